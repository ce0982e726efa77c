public import Foundation

/// The files of an order before packaging: `order.json`, images, `xx.lproj/order.strings`, …
///
/// Paths are relative to the archive root and use `/`. `manifest.json` and `signature` are
/// never part of a source: the builder makes them.
public struct OrderSource: Sendable, Hashable {
    /// A file that was left out of the source, and why.
    public typealias SkippedFile = SkippedSourceFile

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
        (self.files, self.skippedFiles) = SourceFolder.keep(files, kind: .order)
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

    /// Reads every regular file of the folder `directory` (``SourceFolder/read(_:kind:notAFolder:hint:folder:)``).
    static func readFolder(
        _ directory: URL, notAFolder: String, hint: String, folder folderName: String = "the source folder"
    ) throws -> (files: [String: [UInt8]], skipped: [SkippedFile]) {
        try SourceFolder.read(directory, kind: .order, notAFolder: notAFolder, hint: hint, folder: folderName)
    }

    /// Why a source path is left out of an archive (junk, or a file the builder makes), or `nil`
    /// when it belongs. Directory paths end with `/`.
    static func reasonToSkip(_ path: String) -> String? { SourceFolder.reasonToSkip(path, kind: .order) }
}
