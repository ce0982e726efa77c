public import Foundation

/// The files every order of a batch shares: images and `xx.lproj/order.strings`.
public struct OrderBatchTemplate: Sendable {
    /// Path (relative, `/`-separated) → exact bytes. Never holds `order.json`: each order brings its own.
    public private(set) var files: [String: [UInt8]]
    /// Files found in the template folder but left out: junk, dotfiles, an old manifest or
    /// signature, and an `order.json` (each order of the batch brings its own).
    public private(set) var skippedFiles: [OrderSource.SkippedFile]

    /// A template from files in memory. Junk and `order.json` are left out and listed in ``skippedFiles``.
    public init(files: [String: [UInt8]] = [:]) {
        let source = OrderSource(files: files)
        var kept = source.files
        var skipped = source.skippedFiles
        if kept.removeValue(forKey: OrderArchive.orderPath) != nil {
            skipped.append(.init(path: OrderArchive.orderPath, reason: "each order of the batch brings its own order.json"))
        }
        self.files = kept
        self.skippedFiles = skipped.sorted { $0.path < $1.path }
    }

    /// Reads a template folder: every regular file below it, with the same rules as
    /// ``OrderSource/init(directory:)`` (junk skipped; symbolic links and special files refused),
    /// except that no `order.json` is needed, and one that is there is left out.
    ///
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/invalidSource`` (not a
    ///   folder, a link, a special file) or ``WalletOrdersError/Code/fileAccess``.
    public init(directory: URL) throws {
        let (files, skipped) = try OrderSource.readFolder(
            directory, notAFolder: "The template '\(directory.path)' is not a folder.",
            hint: "Pass the folder that holds the images and .lproj folders every order shares.",
            folder: "the template folder")
        self.init(files: files)
        self.skippedFiles = (self.skippedFiles + skipped).sorted { $0.path < $1.path }
    }
}
