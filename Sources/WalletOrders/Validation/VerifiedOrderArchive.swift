public import Foundation
import WalletOrdersInterop
import WalletOrdersJSON

/// A signed archive that passed validation, with what a store keeps about it: the only thing an
/// order store saves.
///
/// Only an ``OrderValidator`` makes one: from archive bytes (``checking(bytes:validator:)``), or,
/// inside this package, from an archive built from a source it validated before signing (the
/// order intake), so a store holds nothing that didn't verify and never validates again. Make
/// one when the archive was validated anyway (a service that checks an upload before answering,
/// say) to save it without validating twice; the store trusts the validator used here.
public struct VerifiedOrderArchive: Sendable {
    /// The order the archive holds.
    public let identifier: FullyQualifiedOrderIdentifier
    /// The order's `updatedAt` and the archive's SHA-256.
    public let version: OrderVersion
    /// The order's `status`.
    public let status: String
    /// The archive's bytes.
    public let bytes: [UInt8]
    /// The order's `authenticationToken`, the web service's shared secret for it, if it has one.
    public let authenticationToken: String?

    /// The order's `updatedAt`.
    public var updatedAt: Timestamp { version.updatedAt }

    /// Validates `bytes` with `validator` and reads the identity and version from `order.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveRejected`` listing the error findings.
    public init(bytes: [UInt8], validator: OrderValidator) throws {
        let checked = Self.checking(bytes: bytes, validator: validator)
        self = try checked.archive.get()
    }

    /// Validates `bytes` with `validator`: the verified archive, or the error that rejects it,
    /// with the whole report either way (a web service answers a rejected upload with it).
    public static func checking(bytes: [UInt8], validator: OrderValidator)
        -> (archive: Result<VerifiedOrderArchive, WalletOrdersError>, report: ValidationReport)
    {
        // The archive is opened once and order.json parsed once, for validation and for reading
        // the four fields the store keeps (decoding the whole model again cost a tenth of a save).
        let archive = try? OrderArchive(bytes: bytes, limits: validator.verifier.limits)
        let (report, root) =
            archive.map { validator.validateKeepingOrder($0, subject: "archive") }
            ?? (validator.validate(archiveBytes: bytes, subject: "archive"), nil)
        let errors = report.errors
        guard errors.isEmpty, archive != nil, let root else {
            return (
                .failure(
                    WalletOrdersError(
                        .archiveRejected,
                        "The archive does not verify, so it was not stored (\(errors.count) error\(errors.count == 1 ? "" : "s")):\n"
                            + errors.map { "  \($0.ruleID): \($0.message)" }.joined(separator: "\n"),
                        hint: "Validate the archive for the full report.")), report
            )
        }
        do {
            // The manifest verified, so it parses; its digest tells a rebuild from a new version.
            let contentDigest = try archive?.manifest().contentDigest
            return (.success(try VerifiedOrderArchive(bytes: bytes, order: root, contentDigest: contentDigest)), report)
        } catch {
            return (.failure(error as? WalletOrdersError ?? WalletOrdersError(.archiveRejected, "\(error)")), report)
        }
    }

    init(bytes: [UInt8], order root: JSONNode, contentDigest: String?) throws {
        // Validation found no error, so the schema's required strings are there and updatedAt is
        // RFC 3339; a failure here would be a disagreement between schema and store: say so.
        func string(_ key: String) throws -> String {
            guard let value = root[key]?.stringValue else {
                throw WalletOrdersError(.archiveRejected, "The archive's order.json has no string \(key).")
            }
            return value
        }
        identifier = FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: try string("orderTypeIdentifier"), orderIdentifier: try string("orderIdentifier"))
        let updatedAt: Timestamp
        do {
            updatedAt = try Timestamp(rfc3339: try string("updatedAt"))
        } catch {
            throw WalletOrdersError(.archiveRejected, "The archive's updatedAt could not be read: \(error)", underlying: error)
        }
        version = OrderVersion(updatedAt: updatedAt, sha256: SHA256.hexHash(bytes), contentDigest: contentDigest)
        status = try string("status")
        authenticationToken = root["authenticationToken"]?.stringValue
        self.bytes = bytes
    }

    /// Validates many archives in parallel (at most `maximumConcurrency` at a time), keeping
    /// the input order in the results.
    public static func verifying(
        _ archives: [[UInt8]], validator: OrderValidator,
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) async -> [Result<VerifiedOrderArchive, WalletOrdersError>] {
        var results = [Result<VerifiedOrderArchive, WalletOrdersError>?](repeating: nil, count: archives.count)
        await withTaskGroup(of: (Int, Result<VerifiedOrderArchive, WalletOrdersError>).self) { group in
            var next = 0
            func addTask() {
                let index = next
                let bytes = archives[index]
                next += 1
                group.addTask {
                    do {
                        return (index, .success(try VerifiedOrderArchive(bytes: bytes, validator: validator)))
                    } catch {
                        return (
                            index,
                            .failure(
                                (error as? WalletOrdersError)
                                    ?? WalletOrdersError(.archiveRejected, "\(error)", underlying: error))
                        )
                    }
                }
            }
            while next < min(archives.count, max(1, maximumConcurrency)) { addTask() }
            for await (index, result) in group {
                results[index] = result
                if next < archives.count { addTask() }
            }
        }
        return results.map { $0! }
    }
}

// `Data`, NIO's `ByteBufferView` or any other collection of bytes wherever `[UInt8]` is taken
// (one contiguous copy; an array is passed on without one): a service hands an upload's body
// straight in.
extension VerifiedOrderArchive {
    /// Validates archive bytes held in any collection with `validator`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveRejected`` listing the error findings.
    public init(bytes: some Collection<UInt8>, validator: OrderValidator) throws {
        try self.init(bytes: [UInt8](bytes), validator: validator)
    }

    /// Validates archive bytes held in any collection: the verified archive or the error that
    /// rejects it, with the whole report either way.
    public static func checking(bytes: some Collection<UInt8>, validator: OrderValidator)
        -> (archive: Result<VerifiedOrderArchive, WalletOrdersError>, report: ValidationReport)
    {
        checking(bytes: [UInt8](bytes), validator: validator)
    }
}
