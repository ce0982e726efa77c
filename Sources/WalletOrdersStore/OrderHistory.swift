import Foundation
public import WalletOrders

/// An opaque position in a store's change history, like FinanceKit's `FinanceStore.HistoryToken`.
///
/// Pass the token from one ``OrderStoring/history(since:limit:)`` call to the next to receive
/// only what changed in between. A token belongs to one store; it stays valid until the history
/// it points into is compacted (``SQLiteOrderStore/compactHistory(keepingLast:)``), after which
/// using it throws ``WalletOrdersError/Code/historyTokenInvalid`` and the caller resynchronizes
/// with `history(since: nil)`.
///
/// `Codable` as one string, the same as ``encoded``.
public struct OrderHistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The store the token belongs to (a random identifier made when the store was created).
    package let storeID: String
    /// The sequence number of the last change the token's holder has seen.
    package let sequence: Int64

    package init(storeID: String, sequence: Int64) {
        self.storeID = storeID
        self.sequence = sequence
    }

    private struct Wire: Codable {
        var v: Int
        var s: String
        var q: Int64
    }

    /// The token as URL-safe text.
    public var encoded: String { OpaqueToken.encode(Wire(v: 1, s: storeID, q: sequence)) }

    /// Reads a token from ``encoded``.
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` when the text isn't a history token.
    public init(encoded text: String) throws {
        let wire = try OpaqueToken.decode(Wire.self, from: text, kind: "history token")
        guard wire.v == 1, wire.q >= 0 else { throw OpaqueToken.malformed(text, kind: "history token") }
        self.init(storeID: wire.s, sequence: wire.q)
    }

    public var description: String { encoded }

    public init(from decoder: any Decoder) throws {
        try self.init(encoded: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoded)
    }
}

/// What changed in a store since a history token, like FinanceKit's `FinanceStore.Changes`: of
/// orders (``OrderChanges``) or of passes (``PassChanges``), which share the store's one change
/// sequence and its tokens.
///
/// Changes are *net* per archive over the span covered: one inserted and then updated appears
/// once, in ``inserted``; one inserted and deleted again doesn't appear; one deleted and saved
/// again appears in ``updated``.
public struct StoreChanges<Identifier: Hashable & Sendable & Codable>: Sendable, Hashable, Codable {
    /// Archives that didn't exist at the old token and exist now.
    public var inserted: [Identifier]
    /// Archives that existed at the old token, exist now, and have a different stored version.
    public var updated: [Identifier]
    /// Archives that existed at the old token and don't exist now.
    public var deleted: [Identifier]
    /// The token to pass next time.
    public var newToken: OrderHistoryToken
    /// Whether more changes follow `newToken` (the call stopped at its `limit`); call again with it.
    public var hasMore: Bool

    /// Creates a change set.
    public init(inserted: [Identifier], updated: [Identifier], deleted: [Identifier], newToken: OrderHistoryToken, hasMore: Bool) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.newToken = newToken
        self.hasMore = hasMore
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What changed among a store's orders since a history token.
public typealias OrderChanges = StoreChanges<FullyQualifiedOrderIdentifier>

/// One entry of a store's change log.
package struct ChangeRecord<Identifier: Hashable & Sendable & Codable>: Sendable, Hashable {
    package enum Kind: String, Sendable {
        case inserted, updated, deleted
    }

    package var sequence: Int64
    package var identifier: Identifier
    package var kind: Kind

    package init(sequence: Int64, identifier: Identifier, kind: Kind) {
        self.sequence = sequence
        self.identifier = identifier
        self.kind = kind
    }
}

/// One entry of the change log for an order.
package typealias OrderChangeRecord = ChangeRecord<FullyQualifiedOrderIdentifier>

extension StoreChanges {
    /// Reduces log entries (in sequence order) to net changes per archive, listed in the order of
    /// each one's last change.
    package static func collapsing(
        _ records: [ChangeRecord<Identifier>], newToken: OrderHistoryToken, hasMore: Bool
    ) -> Self {
        var first: [Identifier: ChangeRecord<Identifier>.Kind] = [:]
        var last: [Identifier: (kind: ChangeRecord<Identifier>.Kind, sequence: Int64)] = [:]
        for record in records {
            if first[record.identifier] == nil { first[record.identifier] = record.kind }
            last[record.identifier] = (record.kind, record.sequence)
        }
        var inserted: [(Int64, Identifier)] = []
        var updated: [(Int64, Identifier)] = []
        var deleted: [(Int64, Identifier)] = []
        for (identifier, end) in last {
            let existedBefore = first[identifier] != .inserted
            let existsAfter = end.kind != .deleted
            switch (existedBefore, existsAfter) {
            case (false, true): inserted.append((end.sequence, identifier))
            case (true, true): updated.append((end.sequence, identifier))
            case (true, false): deleted.append((end.sequence, identifier))
            case (false, false): break
            }
        }
        func ordered(_ list: [(Int64, Identifier)]) -> [Identifier] {
            list.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return Self(
            inserted: ordered(inserted), updated: ordered(updated), deleted: ordered(deleted),
            newToken: newToken, hasMore: hasMore)
    }

    /// The sequence `token` continues from, checked against the store it is shown to: made by
    /// that store (`storeID`), not before its compacted `floor`, not past its `newest` change.
    package static func start(after token: OrderHistoryToken, storeID: String, floor: Int64, newest: Int64) throws -> Int64 {
        guard token.storeID == storeID else { throw invalidToken("it was made by another store") }
        guard token.sequence >= floor else {
            throw invalidToken(
                "the changes after it were compacted away (the history now starts after change \(floor), the token is at \(token.sequence))")
        }
        guard token.sequence <= newest else {
            throw invalidToken("it points past the newest change (\(token.sequence) > \(newest)); the store was restored or replaced")
        }
        return token.sequence
    }

    /// One page of the change log: `records` (in sequence order, after `start`; a store may read
    /// one more than `limit` to learn that more follow) cut to `limit` (at least one), collapsed,
    /// with the token to continue from.
    package static func page(_ records: [ChangeRecord<Identifier>], after start: Int64, limit: Int?, storeID: String) -> Self {
        var records = records
        var hasMore = false
        if let limit, records.count > max(1, limit) {
            records.removeLast(records.count - max(1, limit))
            hasMore = true
        }
        return collapsing(records, newToken: OrderHistoryToken(storeID: storeID, sequence: records.last?.sequence ?? start), hasMore: hasMore)
    }

    /// The error for a token this store can't continue from.
    package static func invalidToken(_ reason: String) -> WalletOrdersError {
        WalletOrdersError(
            .historyTokenInvalid, "The history token can't be used with this store: \(reason).",
            hint: "Resynchronize: ask for the history without a token and keep the new token.")
    }
}
