public import WalletOrders

/// An ``OrderStoring`` that keeps everything in memory, for tests and quick scripts.
///
/// It follows the same decision table as ``SQLiteOrderStore`` (``OrderStoreDecision``). While a
/// confirmation handler runs other calls may change the store; the save then decides again on
/// the new state, asking again when it would still write.
public actor InMemoryOrderStore: OrderStoring {
    private struct Entry {
        var version: OrderVersion
        var status: String
        var bytes: [UInt8]
    }

    private let validator: OrderValidator
    private var entries: [FullyQualifiedOrderIdentifier: Entry] = [:]

    /// Creates an empty store.
    ///
    /// - Parameter validator: Judges every archive before it is stored (default: `OrderValidator()`,
    ///   which trusts Apple's root only).
    /// - Throws: ``WalletOrdersError`` when the default validator can't be built.
    public init(validator: OrderValidator? = nil) throws {
        self.validator = try validator ?? OrderValidator()
    }

    /// The number of stored orders.
    public var count: Int { entries.count }

    public func save(signedArchive: [UInt8], confirm: (@Sendable (SaveProposal) async -> Bool)?) async throws
        -> SaveOrderResult
    {
        let incoming = try VerifiedArchive(bytes: signedArchive, validator: validator)
        // The stored version the handler agreed to replace (`.some(nil)`: agreed to insert).
        var confirmedStored: OrderVersion?? = nil
        while true {
            let stored = entries[incoming.identifier]?.version
            let decision = OrderStoreDecision.save(stored: stored, incoming: incoming.version)
            switch decision {
            case .keep(let result):
                return result
            case .conflict(let stored, let incomingVersion):
                throw OrderStoreDecision.conflictError(incoming.identifier, stored: stored, incoming: incomingVersion)
            case .insert, .replace:
                if let confirm, confirmedStored != .some(stored) {
                    let proposal = SaveProposal(
                        identifier: incoming.identifier, incomingUpdatedAt: incoming.version.updatedAt,
                        storedUpdatedAt: stored?.updatedAt)
                    guard await confirm(proposal) else { return .cancelled }
                    // The actor may have changed while the handler ran: decide again.
                    confirmedStored = .some(stored)
                    continue
                }
                entries[incoming.identifier] = Entry(
                    version: incoming.version, status: incoming.status, bytes: incoming.bytes)
                return .added
            }
        }
    }

    public func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult
    {
        OrderStoreDecision.contains(stored: entries[identifier]?.version.updatedAt, updatedDate: updatedDate)
    }

    public func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]? {
        entries[identifier]?.bytes
    }

    public func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool {
        entries.removeValue(forKey: identifier) != nil
    }
}
