public import WalletOrders
public import Foundation
import WalletOrdersJSON
import WalletOrdersInterop

/// One version of an order as the decision sees it: its `updatedAt`, the SHA-256 of its archive
/// bytes and the digest of its content.
public struct OrderVersion: Sendable, Hashable, Codable {
    /// The order's `updatedAt`, compared as an instant.
    public var updatedAt: Timestamp
    /// The lowercase hexadecimal SHA-256 of the archive's bytes.
    public var sha256: String
    /// The archive's ``Manifest/contentDigest``: equal for two builds of the same files, whatever
    /// their signing times. `nil` where it is unknown (a version stored before stores kept it
    /// whose archive could not be read again).
    public var contentDigest: String?

    /// Creates a version.
    public init(updatedAt: Timestamp, sha256: String, contentDigest: String? = nil) {
        self.updatedAt = updatedAt
        self.sha256 = sha256
        self.contentDigest = contentDigest
    }

    /// Whether `other` holds the same content: the same archive bytes, or the same files (equal
    /// content digests) signed at another time.
    public func hasSameContent(as other: OrderVersion) -> Bool {
        if sha256 == other.sha256 { return true }
        guard let contentDigest, let otherDigest = other.contentDigest else { return false }
        return contentDigest == otherDigest
    }

    /// The first twelve hex digits of ``sha256``, for messages.
    public var shortHash: String { String(sha256.prefix(12)) }
}

/// FinanceKit's save and contains decision tables, as pure functions every ``OrderStoring``
/// implementation shares (run inside the write transaction, so the comparison and the write are
/// one atomic step).
public enum OrderStoreDecision: Sendable, Hashable {
    /// No order with that identifier is stored: insert it (after confirmation) → ``SaveOrderResult/added``.
    case insert
    /// The stored version is older: replace it (after confirmation) → ``SaveOrderResult/added``.
    case replace
    /// Leave the store as it is and answer `result`: ``SaveOrderResult/newerExisting`` for a newer
    /// stored version, ``SaveOrderResult/added`` for a re-save of the same content (the same bytes,
    /// or the same files signed at another time: a rebuild).
    case keep(SaveOrderResult)
    /// Same `updatedAt`, different content: keep the stored version and throw
    /// ``WalletOrdersError/Code/updatedAtConflict``.
    case conflict(stored: OrderVersion, incoming: OrderVersion)

    /// Decides what saving `incoming` does when `stored` is the stored version (or `nil`).
    public static func save(stored: OrderVersion?, incoming: OrderVersion) -> Self {
        guard let stored else { return .insert }
        if stored.updatedAt < incoming.updatedAt { return .replace }
        if incoming.updatedAt < stored.updatedAt { return .keep(.newerExisting) }
        return stored.hasSameContent(as: incoming) ? .keep(.added) : .conflict(stored: stored, incoming: incoming)
    }

    /// Whether the decision writes to the store (and so needs confirmation).
    public var writes: Bool {
        switch self {
        case .insert, .replace: true
        case .keep, .conflict: false
        }
    }

    /// Answers `contains(matching:updatedDate:)` for the stored `updatedAt` (or `nil` when not stored).
    public static func contains(stored: Timestamp?, updatedDate: Timestamp?) -> ContainsOrderResult {
        guard let stored else { return .notFound }
        guard let updatedDate, stored != updatedDate else { return .exists }
        return stored > updatedDate ? .newerExists : .olderExists
    }

    /// The error a conflict throws, naming both versions.
    package static func conflictError(
        _ identifier: FullyQualifiedOrderIdentifier, stored: OrderVersion, incoming: OrderVersion
    ) -> WalletOrdersError {
        WalletOrdersError(
            .updatedAtConflict,
            "The store already holds \(identifier) at updatedAt \(stored.updatedAt) (sha256 \(stored.shortHash)…), "
                + "and the incoming archive (sha256 \(incoming.shortHash)…) has the same updatedAt "
                + "\(incoming.updatedAt) but different files; the stored version was kept.",
            hint: "updatedAt must increase with every new version of an order: give the new version a later "
                + "updatedAt. (A rebuild of the same files is accepted at the same updatedAt, whatever its signing time.)")
    }
}

/// FinanceKit's save with an optional confirmation handler, the one loop every store runs.
///
/// A store supplies one atomic step (a transaction, or an actor turn) that reads the stored
/// version and calls ``step(stored:)``: it writes when told to and reports what it concluded.
/// When a write needs the handler's consent, the loop asks outside the step (the handler may
/// take its time) and runs the step again; the step then writes only if the store still holds
/// what the handler agreed to replace, so another writer's save in between is decided afresh.
package struct ConfirmedSave: Sendable {
    /// What one step concluded.
    package enum Outcome: Sendable {
        case done(SaveOrderResult)
        case conflict(stored: OrderVersion, incoming: OrderVersion)
        case needsConfirmation(stored: OrderVersion?)
    }

    /// What a step does with the stored version it read.
    package enum Step: Sendable {
        /// Write `incoming` (inserting, or replacing the stored version), then conclude `.done(.added)`.
        case write(replacing: Bool)
        /// Conclude without writing.
        case conclude(Outcome)
    }

    let incoming: VerifiedOrderArchive
    let asks: Bool
    /// The stored version the handler agreed to replace (`.some(nil)`: agreed to insert).
    let agreed: OrderVersion??

    /// What the step does when it finds `stored` (or nothing) for the incoming version.
    package func step(stored: OrderVersion?) -> Step {
        switch OrderStoreDecision.save(stored: stored, incoming: incoming.version) {
        case .keep(let result): .conclude(.done(result))
        case .conflict(let stored, let incoming): .conclude(.conflict(stored: stored, incoming: incoming))
        case .insert, .replace:
            asks && agreed != .some(stored) ? .conclude(.needsConfirmation(stored: stored)) : .write(replacing: stored != nil)
        }
    }

    /// Runs `attempt` (one atomic step, given this save's state) until it concludes, asking
    /// `confirm` before any write when there is a handler. An `updatedAt` beyond the store's
    /// `limit` is refused before anything is read or asked.
    /// Runs on the caller's actor (`isolation`), so an actor's step can read its own state.
    package static func run(
        _ incoming: VerifiedOrderArchive, limit: UpdatedAtLimit, confirm: (@Sendable (SaveProposal) async -> Bool)?,
        isolation: isolated (any Actor)? = #isolation, attempt: (ConfirmedSave) async throws -> Outcome
    ) async throws -> SaveOrderResult {
        if let refusal = limit.refusal(of: incoming) { throw refusal }
        var agreed: OrderVersion?? = nil
        while true {
            switch try await attempt(ConfirmedSave(incoming: incoming, asks: confirm != nil, agreed: agreed)) {
            case .done(let result):
                return result
            case .conflict(let stored, let incomingVersion):
                throw OrderStoreDecision.conflictError(incoming.identifier, stored: stored, incoming: incomingVersion)
            case .needsConfirmation(let stored):
                guard let confirm else { return .cancelled }  // unreachable: only asked for with a handler
                let proposal = SaveProposal(
                    identifier: incoming.identifier, incomingUpdatedAt: incoming.version.updatedAt,
                    storedUpdatedAt: stored?.updatedAt)
                guard await confirm(proposal) else { return .cancelled }
                // Other writers may save while the handler runs: the next step decides again.
                agreed = .some(stored)
            }
        }
    }
}

/// A signed archive that passed validation, with what a store keeps about it: the only way into
/// ``OrderStoring/save(verifiedArchives:)``.
///
/// It can only be made by validating bytes, so a store holds nothing that didn't verify. Make
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

    private init(bytes: [UInt8], order root: JSONNode, contentDigest: String?) throws {
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

    package func receipt(_ result: SaveOrderResult, storeChanged: Bool) -> OrderSaveReceipt {
        OrderSaveReceipt(identifier: identifier, updatedAt: version.updatedAt, result: result, storeChanged: storeChanged)
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
                                    ?? WalletOrdersError(.archiveRejected, "\(error)", underlying: error)))
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

extension UpdatedAtLimit {
    /// The error refusing `archive` when its `updatedAt` is too far ahead of the store's clock
    /// (`now`), or `nil`; every store checks each save with it, before deciding anything else.
    package func refusal(of archive: VerifiedOrderArchive, now: Date = Date()) -> WalletOrdersError? {
        refusal(of: archive.identifier, updatedAt: archive.updatedAt, now: now)
    }
}

extension OrderStoring {
    /// Saves what verified, and passes the failures through in their places.
    package func saveMerging(
        _ verified: [Result<VerifiedOrderArchive, WalletOrdersError>]
    ) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        let good = verified.compactMap { try? $0.get() }
        var saved = try await save(verifiedArchives: good).makeIterator()
        return verified.map { item in
            switch item {
            case .failure(let error): .failure(error)
            case .success: saved.next() ?? .failure(WalletOrdersError(.storeUnavailable, "The store returned too few results."))
            }
        }
    }
}
