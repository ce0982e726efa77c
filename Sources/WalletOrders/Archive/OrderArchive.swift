public import Foundation

/// An opened `.order` archive: its entries, its files' bytes, and typed access to `order.json`,
/// `manifest.json` and the signature.
///
/// Opening reads every entry once, within ``ArchiveLimits``, and records anything unsafe or
/// broken about the zip itself (``readingDiagnostics``) instead of failing: only data that is
/// not a zip archive at all makes ``init(bytes:limits:)`` throw. ``OrderArchiveVerifier`` turns
/// the rest into a full report. The zip reading is the one every archive kind shares
/// (``SignedArchive``).
public struct OrderArchive: Sendable {
    /// `order.json`, the order itself.
    public static let orderPath = ArchiveKind.order.contentPath
    /// `manifest.json`, the SHA-256 of every other file.
    public static let manifestPath = ArchiveKind.manifestPath
    /// `signature`, the detached CMS signature of `manifest.json`.
    public static let signaturePath = ArchiveKind.signaturePath
    /// The MIME type to serve archives with.
    public static let mimeType = ArchiveKind.order.mimeType

    /// One entry of the zip's central directory.
    public typealias Entry = SignedArchive.Entry

    /// The archive as read, whatever its kind.
    public let archive: SignedArchive

    /// Every entry in central-directory order.
    public var entries: [Entry] { archive.entries }
    /// The size of the archive in bytes.
    public var byteCount: Int { archive.byteCount }
    /// What was wrong with the zip container while reading it (unsafe names, duplicates, encrypted
    /// entries, bombs, checksum failures). Empty for a clean archive.
    public var readingDiagnostics: [Diagnostic] { archive.readingDiagnostics }
    /// The paths of the files that were read, sorted.
    public var filePaths: [String] { archive.filePaths }

    /// The bytes of one file, or `nil` when the archive has no readable file at `path`.
    public func contents(of path: String) -> [UInt8]? { archive.contents(of: path) }

    /// Wraps an archive opened as an order.
    package init(_ archive: SignedArchive) {
        self.archive = archive
    }

    /// Opens an archive from a file.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` or ``WalletOrdersError/Code/archiveUnreadable``.
    public init(contentsOf url: URL, limits: ArchiveLimits = .init()) throws {
        try self.init(bytes: try BoundedFile.read(url, as: .archive), limits: limits)
    }

    /// Opens an archive held in memory (for example the body FinanceKit's `saveOrder(signedArchive:)` takes).
    public init(data: Data, limits: ArchiveLimits = .init()) throws {
        try self.init(bytes: Array(data), limits: limits)
    }

    /// Opens an archive held in memory.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveUnreadable`` when the bytes are not a zip archive.
    public init(bytes: [UInt8], limits: ArchiveLimits = .init()) throws {
        archive = try SignedArchive(bytes: bytes, kind: .order, limits: limits)
    }

    /// Decodes `order.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidOrder``.
    public func order() throws -> Order {
        guard let bytes = contents(of: Self.orderPath) else {
            throw WalletOrdersError(.archiveEntryMissing, "The archive has no order.json at its root.")
        }
        do {
            return try Order.decodeFast(bytes)
        } catch {
            throw WalletOrdersError(
                .invalidOrder, "order.json is not a valid order: \(OrderDecoding.describe(error))", underlying: error)
        }
    }

    /// Parses `manifest.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidOrder``.
    public func manifest() throws -> Manifest { try archive.manifest() }

    /// Reads the facts of the signature: signer, issuer, serial, validity, signing time, algorithms.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidCertificate``.
    public func signatureInfo() throws -> SignatureInfo { try archive.signatureInfo() }

    /// What is unsafe about an entry path, if anything (``SignedArchive/pathProblem(_:)``).
    package static func pathProblem(_ path: String) -> (rule: ValidationRule, message: String, hint: String)? {
        SignedArchive.pathProblem(path)
    }
}

/// Human-readable decoding errors.
typealias OrderDecoding = DecodingErrorText
