import Foundation
public import WalletOrders

/// An ``OrderStoring`` that keeps everything in memory, for tests and quick scripts.
///
/// It follows the same decision table as ``SQLiteOrderStore`` (``OrderStoreDecision``) and keeps
/// a change log for ``history(since:limit:)`` the same way. While a confirmation handler runs
/// other calls may change the store; the save then decides again on the new state, asking again
/// when it would still write.
public actor InMemoryOrderStore: OrderStoring {
    private struct Entry {
        var version: OrderVersion
        var status: String
        var bytes: [UInt8]
        var savedAt: Timestamp
    }

    /// How far ahead of the clock an archive's `updatedAt` may be.
    public let updatedAtLimit: UpdatedAtLimit
    private var entries: [FullyQualifiedOrderIdentifier: Entry] = [:]
    private var changes: [OrderChangeRecord] = []
    private var nextSequence: Int64 = 1
    private var historyFloor: Int64 = 0
    private let storeID = UUID().uuidString.lowercased()

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - updatedAtLimit: How far ahead of the clock an archive's `updatedAt` may be; one
    ///     further ahead is refused with ``WalletOrdersError/Code/updatedAtInFuture``.
    public init(updatedAtLimit: UpdatedAtLimit = .default) {
        self.updatedAtLimit = updatedAtLimit
    }

    /// The number of stored orders.
    public var count: Int { entries.count }

    public func save(verifiedArchive incoming: VerifiedOrderArchive, confirm: (@Sendable (SaveProposal) async -> Bool)?)
        async throws -> SaveOrderResult
    {
        // The actor may change while the handler runs: each turn decides again.
        return try await ConfirmedSave.run(incoming, limit: updatedAtLimit, confirm: confirm) { save in
            switch save.step(stored: entries[incoming.identifier]?.version) {
            case .conclude(let outcome):
                return outcome
            case .write:
                write(incoming)
                return .done(.added)
            }
        }
    }

    public func save(verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        // No suspension point: the batch is applied as one step of the actor.
        verifiedArchives.map { incoming in
            if let refusal = updatedAtLimit.refusal(of: incoming) { return .failure(refusal) }
            switch OrderStoreDecision.save(stored: entries[incoming.identifier]?.version, incoming: incoming.version) {
            case .keep(let result):
                return .success(incoming.receipt(result, storeChanged: false))
            case .conflict(let stored, let incomingVersion):
                return .failure(
                    OrderStoreDecision.conflictError(incoming.identifier, stored: stored, incoming: incomingVersion))
            case .insert, .replace:
                write(incoming)
                return .success(incoming.receipt(.added, storeChanged: true))
            }
        }
    }

    private func write(_ incoming: VerifiedOrderArchive) {
        let replacing = entries[incoming.identifier] != nil
        entries[incoming.identifier] = Entry(
            version: incoming.version, status: incoming.status, bytes: incoming.bytes, savedAt: Timestamp(Date()))
        log(incoming.identifier, replacing ? .updated : .inserted)
    }

    private func log(_ identifier: FullyQualifiedOrderIdentifier, _ kind: OrderChangeRecord.Kind) {
        changes.append(OrderChangeRecord(sequence: nextSequence, identifier: identifier, kind: kind))
        nextSequence += 1
    }

    public func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult
    {
        OrderStoreDecision.contains(stored: entries[identifier]?.version.updatedAt, updatedDate: updatedDate)
    }

    public func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]? {
        entries[identifier]?.bytes
    }

    public func summary(for identifier: FullyQualifiedOrderIdentifier) async throws -> StoredOrderSummary? {
        entries[identifier].map { Self.summary(identifier, $0) }
    }

    private static func summary(_ identifier: FullyQualifiedOrderIdentifier, _ entry: Entry) -> StoredOrderSummary {
        StoredOrderSummary(
            identifier: identifier, updatedAt: entry.version.updatedAt, status: entry.status,
            sha256: entry.version.sha256, archiveSize: entry.bytes.count, savedAt: entry.savedAt)
    }

    public func list(_ query: OrderQuery) async throws -> OrderListPage {
        try query.checkCursor()
        var matching = entries.map { Self.summary($0.key, $0.value) }.filter { summary in
            query.matches(summary) && (query.after.map { summary.comes(after: $0) } ?? true)
        }
        switch query.sort {
        case .updatedAtDescending: matching.sort { $0.sortKey(query.sort) > $1.sortKey(query.sort) }
        case .updatedAtAscending, .identifier: matching.sort { $0.sortKey(query.sort) < $1.sortKey(query.sort) }
        }
        let page = Array(matching.prefix(query.limit))
        let more = matching.count > query.limit
        return OrderListPage(orders: page, nextCursor: more ? page.last?.cursor(query.sort) : nil)
    }

    public func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool {
        guard entries.removeValue(forKey: identifier) != nil else { return false }
        log(identifier, .deleted)
        return true
    }

    public func history(since token: OrderHistoryToken?, limit: Int?) async throws -> OrderChanges {
        let newest = nextSequence - 1
        let start: Int64
        if let token {
            start = try OrderChanges.start(after: token, storeID: storeID, floor: historyFloor, newest: newest)
        } else if historyFloor > 0 {
            return OrderChanges(
                inserted: entries.keys.sorted(), updated: [], deleted: [],
                newToken: OrderHistoryToken(storeID: storeID, sequence: newest), hasMore: false)
        } else {
            start = 0
        }
        return OrderChanges.page(changes.filter { $0.sequence > start }, after: start, limit: limit, storeID: storeID)
    }

    /// Drops all but the newest `count` entries of the change log, as
    /// ``SQLiteOrderStore/compactHistory(keepingLast:)`` does.
    @discardableResult
    public func compactHistory(keepingLast count: Int) -> Int {
        let floor = nextSequence - 1 - Int64(max(0, count))
        guard floor > historyFloor else { return 0 }
        let before = changes.count
        changes.removeAll { $0.sequence <= floor }
        historyFloor = floor
        return before - changes.count
    }
}

extension InMemoryOrderStore: OrderChangeSequencing {
    public func newestChangeSequence() -> Int64 { nextSequence - 1 }

    public func continueChangeSequence(after sequence: Int64) {
        nextSequence = max(nextSequence, min(sequence, Int64.max - 1) + 1)
    }
}
