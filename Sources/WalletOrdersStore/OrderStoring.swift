public import WalletOrders

/// What saving an archive did, FinanceKit's `FinanceStore.SaveOrderResult`.
public enum SaveOrderResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// The order is stored: inserted, replacing an older version, or already stored byte for byte.
    case added
    /// The confirmation handler declined; the store is unchanged.
    case cancelled
    /// The store holds a newer version of the order; the incoming archive was discarded.
    case newerExisting
}

/// How a stored order compares with a version the caller names, FinanceKit's
/// `FinanceStore.ContainsOrderResult`.
public enum ContainsOrderResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// The order is stored (at exactly the given `updatedAt`, when one was given).
    case exists
    /// The stored version is newer than the given `updatedAt`.
    case newerExists
    /// The stored version is older than the given `updatedAt`.
    case olderExists
    /// No order with that identifier is stored.
    case notFound
}

/// What saving one archive of a batch did, and to which order.
public struct OrderSaveReceipt: Sendable, Hashable, Codable {
    /// The order the archive holds.
    public var identifier: FullyQualifiedOrderIdentifier
    /// The archive's `updatedAt`.
    public var updatedAt: Timestamp
    /// What the save did.
    public var result: SaveOrderResult
    /// Whether the save wrote to the store. `false` for ``SaveOrderResult/newerExisting`` and for
    /// an ``SaveOrderResult/added`` that found the same content already stored (a re-save, or a
    /// rebuild of the same files at the same `updatedAt`): the stored archive was kept.
    public var storeChanged: Bool

    /// Creates a receipt.
    public init(identifier: FullyQualifiedOrderIdentifier, updatedAt: Timestamp, result: SaveOrderResult, storeChanged: Bool) {
        self.identifier = identifier
        self.updatedAt = updatedAt
        self.result = result
        self.storeChanged = storeChanged
    }
}

/// What a save would change, handed to the confirmation handler before anything is written
/// (the headless counterpart of Wallet's confirmation sheet).
public struct SaveProposal: Sendable, Hashable, Codable {
    /// The order being saved.
    public var identifier: FullyQualifiedOrderIdentifier
    /// The incoming archive's `updatedAt`.
    public var incomingUpdatedAt: Timestamp
    /// The stored version's `updatedAt`, or `nil` when the order isn't stored yet.
    public var storedUpdatedAt: Timestamp?

    /// Creates a proposal.
    public init(identifier: FullyQualifiedOrderIdentifier, incomingUpdatedAt: Timestamp, storedUpdatedAt: Timestamp?) {
        self.identifier = identifier
        self.incomingUpdatedAt = incomingUpdatedAt
        self.storedUpdatedAt = storedUpdatedAt
    }
}

/// A store of signed order archives that answers FinanceKit's questions.
///
/// A store is persistence only: it saves ``VerifiedOrderArchive`` values, which only an
/// ``OrderValidator`` makes, and never validates anything itself. Taking bytes in (validate,
/// sign, save, notify) is the order intake's job (`OrderIntake`, in `WalletOrdersIntake`).
///
/// The contract is the same for every implementation, and they all take it from
/// ``OrderStoreDecision``:
///
/// - Orders are keyed by ``FullyQualifiedOrderIdentifier``, exact and case-sensitive; versions are
///   compared by `updatedAt` as an instant (offsets normalized, fractional seconds kept).
/// - ``save(verifiedArchive:confirm:)``: a new order is inserted and an older stored version
///   replaced (``SaveOrderResult/added``), each only after `confirm` agrees
///   (``SaveOrderResult/cancelled`` when it declines); a newer stored version is kept
///   (``SaveOrderResult/newerExisting``); the same `updatedAt` with identical bytes (or the same
///   files signed at another time) is an idempotent ``SaveOrderResult/added``; with other files
///   it throws ``WalletOrdersError/Code/updatedAtConflict`` and keeps the stored version.
/// - ``contains(matching:updatedDate:)``: `.notFound`, `.exists` (no date, or the same instant),
///   `.newerExists` (stored is later than the date) or `.olderExists` (stored is earlier).
public protocol OrderStoring: Sendable {
    /// Saves a verified archive.
    ///
    /// - Parameters:
    ///   - verifiedArchive: The archive, validated by an ``OrderValidator``.
    ///   - confirm: Asked before the store changes; returning `false` gives ``SaveOrderResult/cancelled``.
    ///     `nil` saves without asking.
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/updatedAtConflict``,
    ///   ``WalletOrdersError/Code/updatedAtInFuture`` or a store error.
    func save(verifiedArchive: VerifiedOrderArchive, confirm: (@Sendable (SaveProposal) async -> Bool)?) async throws
        -> SaveOrderResult

    /// Saves verified archives in one transaction, as if saved one after another in order,
    /// without confirmation.
    ///
    /// Each archive gets its own result, so one conflict doesn't stop the others. A store error
    /// (locked, read-only, damaged) throws and saves none of them.
    ///
    /// - Returns: One result per archive, in the order given: an ``OrderSaveReceipt``, or
    ///   ``WalletOrdersError/Code/updatedAtConflict`` or ``WalletOrdersError/Code/updatedAtInFuture``.
    func save(verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>]

    /// Says whether the order is stored and how its version compares with `updatedDate`.
    func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult

    /// The stored archive's bytes, or `nil` when the order isn't stored.
    func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]?

    /// What the store knows about the order (version, status, hash, size), or `nil` when it isn't stored.
    func summary(for identifier: FullyQualifiedOrderIdentifier) async throws -> StoredOrderSummary?

    /// One page of stored orders matching `query`.
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` when the query's cursor was made for
    ///   another sort order.
    func list(_ query: OrderQuery) async throws -> OrderListPage

    /// Removes the order, and with it the devices' registrations for it on a store that keeps
    /// them (``DeviceRegistrationStoring``); returns whether it was stored.
    func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool

    /// What changed since `token`, like FinanceKit's `FinanceStore.history(since:)`.
    ///
    /// - Parameters:
    ///   - token: The ``OrderChanges/newToken`` of the previous call, or `nil` for everything:
    ///     every stored order, as inserted.
    ///   - limit: The largest number of log entries to read in one call (`nil`: all). When the
    ///     call stops early, ``OrderChanges/hasMore`` is `true`; call again with the new token.
    /// - Throws: ``WalletOrdersError/Code/historyTokenInvalid`` when the token comes from another
    ///   store or the changes after it were compacted away: call again with `nil` to resynchronize.
    func history(since token: OrderHistoryToken?, limit: Int?) async throws -> OrderChanges
}

extension OrderStoring {
    /// Saves a verified archive without asking for confirmation.
    public func save(verifiedArchive: VerifiedOrderArchive) async throws -> SaveOrderResult {
        try await save(verifiedArchive: verifiedArchive, confirm: nil)
    }

    /// Says whether the order is stored, whatever its version.
    public func contains(matching identifier: FullyQualifiedOrderIdentifier) async throws -> ContainsOrderResult {
        try await contains(matching: identifier, updatedDate: nil)
    }

    /// Everything that changed since `token` (`nil`: every stored order), in one call.
    public func history(since token: OrderHistoryToken?) async throws -> OrderChanges {
        try await history(since: token, limit: nil)
    }

    /// The stored order, decoded from the stored archive's `order.json`, or `nil` when it isn't stored.
    public func order(for identifier: FullyQualifiedOrderIdentifier) async throws -> Order? {
        guard let bytes = try await archive(for: identifier) else { return nil }
        return try OrderArchive(bytes: bytes).order()
    }
}

/// A store whose change log can be compacted, so it doesn't grow forever.
public protocol OrderHistoryCompacting: Sendable {
    /// Drops all but the newest `count` entries of the change log.
    ///
    /// Tokens older than what is kept then throw ``WalletOrdersError/Code/historyTokenInvalid``,
    /// and `history(since: nil)` lists the stored orders instead of replaying the log.
    ///
    /// - Returns: The number of entries removed.
    @discardableResult
    func compactHistory(keepingLast count: Int) async throws -> Int
}

extension SQLiteOrderStore: OrderHistoryCompacting {}
extension InMemoryOrderStore: OrderHistoryCompacting {}
