public import Foundation
import WalletOrdersJSON

/// An opened `.pkpass` archive: its entries, its files' bytes, and the facts of `pass.json` that
/// bind it to its certificate.
///
/// Opening reads every entry once, within ``ArchiveLimits/defaults(for:)``, and records anything
/// unsafe or broken about the zip itself (``readingDiagnostics``) instead of failing: only data
/// that is not a zip archive at all makes ``init(bytes:limits:)`` throw. ``PassArchiveVerifier``
/// turns the rest into a full report. The zip reading is the one orders use too (``SignedArchive``).
public struct PassArchive: Sendable {
    /// `pass.json`, the pass itself.
    public static let passPath = ArchiveKind.pass.contentPath
    /// `personalization.json`, the rewards enrollment of an NFC pass.
    public static let personalizationPath = "personalization.json"
    /// The MIME type to serve passes with (`application/vnd.apple.pkpass`).
    public static let mimeType = ArchiveKind.pass.mimeType

    /// The archive as read.
    public let archive: SignedArchive

    /// Every entry in central-directory order.
    public var entries: [SignedArchive.Entry] { archive.entries }
    /// The size of the archive in bytes.
    public var byteCount: Int { archive.byteCount }
    /// What was wrong with the zip container while reading it. Empty for a clean archive.
    public var readingDiagnostics: [Diagnostic] { archive.readingDiagnostics }
    /// The paths of the files that were read, sorted.
    public var filePaths: [String] { archive.filePaths }

    /// The bytes of one file, or `nil` when the archive has no readable file at `path`.
    public func contents(of path: String) -> [UInt8]? { archive.contents(of: path) }

    /// Opens a pass from a file (read within ``FileKind/passArchive``'s limit).
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` or ``WalletOrdersError/Code/archiveUnreadable``.
    public init(contentsOf url: URL, limits: ArchiveLimits? = nil) throws {
        try self.init(bytes: try BoundedFile.read(url, as: .passArchive), limits: limits)
    }

    /// Opens a pass held in memory.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveUnreadable`` when the bytes are not a zip archive.
    public init(bytes: [UInt8], limits: ArchiveLimits? = nil) throws {
        archive = try SignedArchive(bytes: bytes, kind: .pass, limits: limits)
    }

    /// Wraps an archive opened as a pass.
    package init(_ archive: SignedArchive) {
        self.archive = archive
    }

    /// The facts of `pass.json` (``PassIdentity``), read leniently as Wallet reads it.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidOrder``
    ///   when there is no `pass.json` or it is not a JSON object.
    public func identity() throws -> PassIdentity {
        guard let bytes = contents(of: Self.passPath) else {
            throw WalletOrdersError(.archiveEntryMissing, "The archive has no pass.json at its root.")
        }
        return try Self.identity(of: bytes)
    }

    /// The facts of `pass.json` bytes (``PassIdentity``), read leniently as Wallet reads them.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidOrder`` when they are not a JSON object.
    public static func identity(of passJSON: [UInt8]) throws -> PassIdentity {
        switch PassIdentity.read(passJSON) {
        case .identity(let identity): return identity
        case .unreadable(let problem):
            throw WalletOrdersError(.invalidOrder, "pass.json is not a valid pass: \(problem.message)")
        }
    }

    /// Parses `manifest.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidOrder``.
    public func manifest() throws -> Manifest { try archive.manifest() }

    /// Reads the facts of the signature: signer, issuer, serial, validity, signing time, algorithms.
    public func signatureInfo() throws -> SignatureInfo { try archive.signatureInfo() }
}
