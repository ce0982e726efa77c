package import Foundation
public import WalletOrders
import WalletOrdersInterop
import WalletOrdersJSON

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

extension VerifiedOrderArchive {
    /// The receipt for saving this archive with `result`.
    package func receipt(_ result: SaveOrderResult, storeChanged: Bool) -> OrderSaveReceipt {
        OrderSaveReceipt(identifier: identifier, updatedAt: version.updatedAt, result: result, storeChanged: storeChanged)
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
