public import Foundation

/// The files of an order before packaging: `order.json`, images, `xx.lproj/order.strings`, …
///
/// Paths are relative to the archive root and use `/`. `manifest.json` and `signature` are
/// never part of a source: the builder makes them.
public struct OrderSource: Sendable, Hashable {
    /// A file that was left out of the source, and why.
    public struct SkippedFile: Sendable, Hashable, CustomStringConvertible {
        /// The path relative to the source folder.
        public var path: String
        /// Why it was left out.
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Path → exact bytes.
    public private(set) var files: [String: [UInt8]]
    /// Files found in the folder but left out (junk, dotfiles, an old manifest or signature).
    public private(set) var skippedFiles: [SkippedFile]

    /// The bytes of `order.json`, if present.
    public var orderJSON: [UInt8]? { files[OrderArchive.orderPath] }

    /// Creates a source from files held in memory (path → bytes).
    ///
    /// Junk is dropped and recorded in ``skippedFiles`` just as for a folder.
    public init(files: [String: [UInt8]]) {
        self.files = [:]
        self.skippedFiles = []
        for (path, bytes) in files {
            if let reason = Self.reasonToSkip(path) {
                skippedFiles.append(SkippedFile(path: path, reason: reason))
            } else {
                self.files[path] = bytes
            }
        }
        skippedFiles.sort { $0.path < $1.path }
    }

    /// This source with `template`'s files added where it has none of that path; what it skipped
    /// stays listed in ``skippedFiles``.
    public func filling(from template: OrderBatchTemplate) -> OrderSource {
        var filled = self
        for (path, bytes) in template.files where filled.files[path] == nil { filled.files[path] = bytes }
        return filled
    }

    /// Creates a source from an ``Order`` value and other named files (images, `xx.lproj/order.strings`).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidOrder`` when the order can't be encoded.
    public init(order: Order, files: [String: [UInt8]] = [:]) throws {
        let json: Data
        do {
            json = try order.encodedJSON()
        } catch {
            throw WalletOrdersError(.invalidOrder, "The order could not be encoded as JSON: \(error)")
        }
        var all = files
        all[OrderArchive.orderPath] = Array(json)
        self.init(files: all)
    }

    /// Reads a source folder: `order.json` plus every file below it.
    ///
    /// Junk never enters an archive: `.DS_Store`, `__MACOSX/`, `.gitkeep`, other dotfiles and a
    /// stale `manifest.json` or `signature` are skipped and listed in ``skippedFiles``.
    /// - Throws: ``WalletOrdersError`` with code ``WalletOrdersError/Code/invalidSource`` for a
    ///   missing folder, a symbolic link or a special file (named in the message), and
    ///   ``WalletOrdersError/Code/fileAccess`` when a file can't be read.
    public init(directory: URL) throws {
        let (files, skipped) = try Self.readFolder(
            directory, notAFolder: "'\(directory.path)' is not a folder.",
            hint: "Pass the folder that holds order.json, its images and its .lproj folders.")
        self.files = files
        self.skippedFiles = skipped.sorted { $0.path < $1.path }
        guard files[OrderArchive.orderPath] != nil else {
            throw WalletOrdersError(
                .invalidSource, "'\(directory.path)' has no order.json at its top level.",
                hint: "An order source folder holds order.json at its root (not inside a subfolder).")
        }
    }

    /// Reads every regular file of the folder `directory` (see ``walk(_:relative:into:skipped:folder:)``),
    /// throwing ``WalletOrdersError/Code/invalidSource`` with `notAFolder` and `hint` when it isn't one.
    static func readFolder(
        _ directory: URL, notAFolder: String, hint: String, folder folderName: String = "the source folder"
    ) throws -> (files: [String: [UInt8]], skipped: [SkippedFile]) {
        let root = directory.standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WalletOrdersError(.invalidSource, notAFolder, hint: hint)
        }
        var files: [String: [UInt8]] = [:]
        var skipped: [SkippedFile] = []
        try walk(OpenFolder(path: root), relative: "", into: &files, skipped: &skipped, folder: folderName)
        return (files, skipped)
    }

    /// Reads every regular file under `folder` (sorted, recursively), skipping junk (recorded in
    /// `skipped`) and refusing links and special files. Every entry is looked at and opened
    /// relative to its open folder, so nothing swapped in during the walk is followed. `relative`
    /// is the folder's path in the source; `folderName` names the source in messages.
    static func walk(
        _ folder: borrowing OpenFolder, relative: String, into files: inout [String: [UInt8]], skipped: inout [SkippedFile],
        folder folderName: String = "the source folder"
    ) throws {
        for name in try folder.names() {
            let path = relative.isEmpty ? name : relative + "/" + name
            let type = try folder.status(of: name).st_mode & S_IFMT
            if type == S_IFDIR {
                if let reason = reasonToSkip(path + "/") {
                    skipped.append(SkippedFile(path: path + "/", reason: reason))
                } else {
                    try walk(folder.subfolder(name), relative: path, into: &files, skipped: &skipped, folder: folderName)
                }
                continue
            }
            if let reason = reasonToSkip(path) {
                skipped.append(SkippedFile(path: path, reason: reason))
                continue
            }
            guard type == S_IFREG else {
                let kind = type == S_IFLNK ? "a symbolic link" : "a special file (device, socket or pipe)"
                throw WalletOrdersError(
                    .invalidSource, "'\(path)' in \(folderName) is \(kind); orders may only contain regular files.",
                    hint: type == S_IFLNK
                        ? "Replace the link with a copy of the file it points to (cp -L), or remove it."
                        : "Remove it from \(folderName).")
            }
            files[path] = try folder.read(name, as: .orderFile)
        }
    }

    /// Why a source path is left out of an archive (junk, or a file the builder makes), or `nil`
    /// when it belongs. Directory paths end with `/`.
    static func reasonToSkip(_ path: String) -> String? {
        if let reason = junkReason(path) { return reason }
        if path == OrderArchive.manifestPath { return "an old manifest.json; the builder writes a new one" }
        if path == OrderArchive.signaturePath { return "an old signature; the builder signs anew" }
        return nil
    }

    /// Why a path is junk that never belongs in an order (`.DS_Store`, `__MACOSX/`, dotfiles), or `nil`.
    ///
    /// It runs for every entry of every archive opened and every file of every source, so it reads
    /// the path's bytes once, a component at a time, without splitting it into strings.
    static func junkReason(_ path: String) -> String? {
        var macOSFolder = false
        var hidden = false
        var last: Substring.UTF8View?
        var utf8 = path.utf8[...]
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let component = utf8[..<end]
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
            guard let first = component.first else { continue }  // an empty component ("a//b", "a/")
            last = component
            if first == UInt8(ascii: ".") { hidden = true }
            if first == UInt8(ascii: "_"), component.elementsEqual("__MACOSX".utf8) { macOSFolder = true }
        }
        if macOSFolder { return "macOS resource-fork folder (__MACOSX) is not part of an order" }
        if let last, last.first == UInt8(ascii: ".") {
            if last.elementsEqual(".DS_Store".utf8) { return "Finder metadata (.DS_Store) is not part of an order" }
            if last.elementsEqual(".gitkeep".utf8) { return "placeholder file (.gitkeep) is not part of an order" }
        }
        if hidden { return "hidden file or folder is not part of an order" }
        return nil
    }
}
