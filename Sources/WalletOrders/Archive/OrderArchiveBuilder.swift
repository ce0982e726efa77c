public import Foundation
import WalletOrdersInterop
import WalletOrdersJSON

/// Packages an ``OrderSource`` into a signed `.order` archive: `manifest.json` (SHA-256 of every
/// file), a detached CMS signature of it, and a zip.
///
/// The output is reproducible: equal sources, identity and signing time give byte-identical
/// archives (entries in a fixed order, every timestamp set to the signing time in UTC, fixed
/// permissions, fixed compression). A builder is an immutable `Sendable` value; reuse one for
/// any number of archives, from any number of tasks.
public struct OrderArchiveBuilder: Sendable {
    /// The Order Type ID certificate, key and intermediate that sign every archive.
    public var identity: SigningIdentity

    /// How the files are compressed in the zip (default: ``ArchiveCompression/deflate``).
    public var compression: ArchiveCompression

    /// Creates a builder that signs with `identity` and compresses as `compression` says.
    public init(identity: SigningIdentity, compression: ArchiveCompression = .deflate) {
        self.identity = identity
        self.compression = compression
    }

    /// Builds and signs an archive.
    ///
    /// - Parameters:
    ///   - source: The order's files.
    ///   - signingTime: The signingTime attribute and the zip timestamps (default: now). Must fall
    ///     inside the certificate's validity.
    /// - Returns: The archive, its manifest and notes (files skipped from the source).
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/invalidSource``,
    ///   ``WalletOrdersError/Code/invalidOrder``, ``WalletOrdersError/Code/orderTypeMismatch``
    ///   (the identity's certificate was issued for another order type), ``WalletOrdersError/Code/bundleTooLarge``,
    ///   ``WalletOrdersError/Code/certificateNotValid``, ``WalletOrdersError/Code/signingFailed``
    ///   or ``WalletOrdersError/Code/archiveWriteFailed``.
    public func build(_ source: OrderSource, signingTime: Date = Date()) throws -> BuiltOrderArchive {
        try build(source, identifier: nil, signingTime: signingTime)
    }

    /// Builds and signs an archive whose `order.json` the caller has parsed already (order
    /// intake validates it first): `identifier` is its identifier, so it isn't parsed again.
    /// `nil` parses it, as ``build(_:signingTime:)`` does.
    package func build(
        _ source: OrderSource, identifier known: FullyQualifiedOrderIdentifier?, signingTime: Date = Date()
    ) throws -> BuiltOrderArchive {
        guard let orderJSON = source.orderJSON else {
            throw WalletOrdersError(.invalidSource, "The source has no order.json.", hint: "Add order.json at the top level.")
        }
        let identifier = try known ?? Self.identifier(of: orderJSON)
        try identity.checkCanSign(orderTypeIdentifier: identifier.orderTypeIdentifier)
        try identity.checkValidity(at: signingTime)
        let written = try SignedArchiveWriter(kind: .order, identity: identity, compression: compression).write(
            source.files, skipped: source.skippedFiles, signingTime: signingTime
        ) { size in
            if size.isTooLarge { throw Self.tooLarge(size) }
        }
        return BuiltOrderArchive(
            bytes: written.bytes, manifest: written.manifest, manifestBytes: written.manifestBytes, orderJSON: orderJSON,
            orderIdentifier: identifier, signingTime: signingTime, diagnostics: written.diagnostics)
    }

    /// The order's fully qualified identifier, read from the parsed `order.json`.
    ///
    /// The builder packages; it checks only what packaging needs: `order.json` is well-formed
    /// JSON (an object, no duplicate keys, nothing after it) with `orderTypeIdentifier` and
    /// `orderIdentifier` strings. Decoding the whole order model cost a sixth of build+sign time
    /// and proves less than validation does, which `wallet-orders build` and
    /// `OrderBatchBuilder` run first (``OrderValidator``).
    static func identifier(of orderJSON: [UInt8]) throws -> FullyQualifiedOrderIdentifier {
        let parsed = JSONParser.parse(orderJSON, maxDepth: Order.fastDecodingMaxDepth, allowingTrailingCommas: true)
        let hint = "Fix order.json; validating the source lists every problem."
        if let problem = parsed.problems.first(where: { $0.kind != .trailingComma }) {
            throw WalletOrdersError(.invalidOrder, "order.json is not valid JSON: \(problem.message) at \(problem.position).", hint: hint)
        }
        guard let root = parsed.root, root.members != nil else {
            throw WalletOrdersError(.invalidOrder, "order.json is not a JSON object.", hint: hint)
        }
        func string(_ key: String) throws -> String {
            guard let node = root[key] else {
                throw WalletOrdersError(.invalidOrder, "order.json has no \(key).", hint: hint)
            }
            guard let value = node.stringValue, !value.isEmpty else {
                throw WalletOrdersError(.invalidOrder, "order.json's \(key) at \(node.position) is not a non-empty string.", hint: hint)
            }
            return value
        }
        return FullyQualifiedOrderIdentifier(orderTypeIdentifier: try string("orderTypeIdentifier"), orderIdentifier: try string("orderIdentifier"))
    }

    static func tooLarge(_ size: ArchiveLimits.BundleSize) -> WalletOrdersError {
        WalletOrdersError(
            .bundleTooLarge,
            "The order adds up to \(ByteCountText.format(size.total)); Wallet requires less than 5 MB. Largest files: \(size.largestText).",
            hint: "Shrink or drop the largest files: images need only be 300×300 px (@2x 600, @3x 900).")
    }
}

/// A signed archive produced by ``OrderArchiveBuilder``.
public struct BuiltOrderArchive: BuiltArchive {
    /// The `.order` file's bytes.
    public var bytes: [UInt8]
    /// The manifest that was signed.
    public var manifest: Manifest
    /// The exact `manifest.json` bytes in the archive (what the signature covers).
    public var manifestBytes: [UInt8]
    /// The exact `order.json` bytes in the archive.
    public var orderJSON: [UInt8]
    /// The order's fully qualified identifier (`orderTypeIdentifier`, `orderIdentifier`).
    public var orderIdentifier: FullyQualifiedOrderIdentifier
    /// The signing time used.
    public var signingTime: Date
    /// Warnings and notes from building (nothing here stopped the build).
    public var diagnostics: [Diagnostic]

    /// The order decoded from ``orderJSON``: the builder reads only the identifiers, so this
    /// decodes on each call.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidOrder`` when `order.json` doesn't decode as an
    ///   ``Order`` (validation, which reports every problem, would have refused it).
    public func order() throws -> Order {
        do {
            return try Order.decodeFast(orderJSON)
        } catch {
            throw WalletOrdersError(
                .invalidOrder, "order.json is not a valid order: \(OrderDecoding.describe(error))",
                hint: "Fix order.json; validating the source lists every problem.", underlying: error)
        }
    }

    /// The `.order` file's bytes as `Data` (for FinanceKit-style APIs and HTTP bodies).
    public var data: Data { Data(bytes) }

    /// Writes the archive to `url` without destroying what is there.
    ///
    /// A new or regular file is replaced atomically (a temporary file in the same folder, then a
    /// rename). A character or block device or a FIFO is written through, as `cat > PATH` would:
    /// `/dev/null` stays a device. A symbolic link stays a link and what it points to is written
    /// (a regular file it points to is replaced atomically). A folder, a socket, a link to nothing
    /// and a path in a folder that doesn't exist are refused.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` naming the path and the reason (ENOSPC's
    ///   "No space left on device" on `/dev/full`, for one).
    public func write(to url: URL) throws {
        try OutputFile.write(bytes, to: url.path)
    }
}
