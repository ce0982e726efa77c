package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file that was left out of a source folder, and why.
public struct SkippedSourceFile: Sendable, Hashable, CustomStringConvertible {
    /// The path relative to the source folder.
    public var path: String
    /// Why it was left out.
    public var reason: String

    /// Creates a record of a skipped file.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Reading the folder an archive is built from (an order's or a pass's), the same way for both:
/// every regular file, junk skipped and recorded, links and special files refused.
package enum SourceFolder {
    /// Reads every regular file of the folder `directory`, throwing
    /// ``WalletOrdersError/Code/invalidSource`` with `notAFolder` and `hint` when it isn't one.
    package static func read(
        _ directory: URL, kind: ArchiveKind, notAFolder: String, hint: String, folder folderName: String = "the source folder"
    ) throws -> (files: [String: [UInt8]], skipped: [SkippedSourceFile]) {
        let root = directory.standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WalletOrdersError(.invalidSource, notAFolder, hint: hint)
        }
        var files: [String: [UInt8]] = [:]
        var skipped: [SkippedSourceFile] = []
        try walk(OpenFolder(path: root), kind: kind, relative: "", into: &files, skipped: &skipped, folder: folderName)
        return (files, skipped)
    }

    /// Reads every regular file under `folder` (sorted, recursively), skipping junk (recorded in
    /// `skipped`) and refusing links and special files. Every entry is looked at and opened
    /// relative to its open folder, so nothing swapped in during the walk is followed. `relative`
    /// is the folder's path in the source; `folderName` names the source in messages.
    static func walk(
        _ folder: borrowing OpenFolder, kind: ArchiveKind, relative: String, into files: inout [String: [UInt8]],
        skipped: inout [SkippedSourceFile], folder folderName: String
    ) throws {
        for name in try folder.names() {
            let path = relative.isEmpty ? name : relative + "/" + name
            let type = try folder.status(of: name).st_mode & S_IFMT
            if type == S_IFDIR {
                if let reason = reasonToSkip(path + "/", kind: kind) {
                    skipped.append(SkippedSourceFile(path: path + "/", reason: reason))
                } else {
                    try walk(folder.subfolder(name), kind: kind, relative: path, into: &files, skipped: &skipped, folder: folderName)
                }
                continue
            }
            if let reason = reasonToSkip(path, kind: kind) {
                skipped.append(SkippedSourceFile(path: path, reason: reason))
                continue
            }
            guard type == S_IFREG else {
                let what = type == S_IFLNK ? "a symbolic link" : "a special file (device, socket or pipe)"
                throw WalletOrdersError(
                    .invalidSource, "'\(path)' in \(folderName) is \(what); \(kind.plural) may only contain regular files.",
                    hint: type == S_IFLNK
                        ? "Replace the link with a copy of the file it points to (cp -L), or remove it."
                        : "Remove it from \(folderName).")
            }
            files[path] = try folder.read(name, as: kind == .order ? .orderFile : .passFile)
        }
    }

    /// `files` (path → bytes, held in memory) without the junk and the files the builder makes,
    /// which are listed, sorted, as skipped: what a folder read would keep.
    package static func keep(_ files: [String: [UInt8]], kind: ArchiveKind) -> (files: [String: [UInt8]], skipped: [SkippedSourceFile]) {
        var kept: [String: [UInt8]] = [:]
        var skipped: [SkippedSourceFile] = []
        for (path, bytes) in files {
            if let reason = reasonToSkip(path, kind: kind) {
                skipped.append(SkippedSourceFile(path: path, reason: reason))
            } else {
                kept[path] = bytes
            }
        }
        return (kept, skipped.sorted { $0.path < $1.path })
    }

    /// Why a source path is left out of an archive (junk, or a file the builder makes), or `nil`
    /// when it belongs. Directory paths end with `/`.
    package static func reasonToSkip(_ path: String, kind: ArchiveKind) -> String? {
        if let reason = JunkFiles.reason(path, kind: kind) { return reason }
        if path == ArchiveKind.manifestPath { return "an old manifest.json; the builder writes a new one" }
        if path == ArchiveKind.signaturePath { return "an old signature; the builder signs anew" }
        return nil
    }
}
