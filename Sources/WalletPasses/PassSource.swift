public import Foundation

/// The files of a pass before packaging: `pass.json`, the images, `xx.lproj/pass.strings`, …
///
/// Paths are relative to the archive root and use `/`. `manifest.json` and `signature` are never
/// part of a source: the builder makes them. A Pass Designer `.pkpasstemplate` is such a folder.
public struct PassSource: Sendable, Hashable {
    /// Path → exact bytes.
    public private(set) var files: [String: [UInt8]]
    /// Files found in the folder but left out (junk, dotfiles, an old manifest or signature).
    public private(set) var skippedFiles: [SkippedSourceFile]

    /// The bytes of `pass.json`, if present.
    public var passJSON: [UInt8]? { files[PassArchive.passPath] }

    /// Creates a source from files held in memory (path → bytes); junk is dropped and recorded in
    /// ``skippedFiles`` just as for a folder.
    public init(files: [String: [UInt8]]) {
        (self.files, self.skippedFiles) = SourceFolder.keep(files, kind: .pass)
    }

    /// Reads a pass source folder (or a `.pkpasstemplate`): `pass.json` plus every file below it.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidSource`` for a missing folder, one without
    ///   `pass.json`, a symbolic link or a special file; ``WalletOrdersError/Code/fileAccess``
    ///   when a file can't be read.
    public init(directory: URL) throws {
        let (files, skipped) = try SourceFolder.read(
            directory, kind: .pass, notAFolder: "'\(directory.path)' is not a folder.",
            hint: "Pass the folder that holds pass.json, its images and its .lproj folders.")
        self.files = files
        self.skippedFiles = skipped.sorted { $0.path < $1.path }
        guard files[PassArchive.passPath] != nil else {
            throw WalletOrdersError(
                .invalidSource, "'\(directory.path)' has no pass.json at its top level.",
                hint: "A pass source folder holds pass.json at its root (not inside a subfolder).")
        }
    }
}
