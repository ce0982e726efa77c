import Foundation
public import WalletOrders

/// The order in which ``OrderStoring/list(_:)`` returns orders.
public enum OrderSort: String, Sendable, Hashable, Codable, CaseIterable {
    /// Most recently updated first (then by identifier, descending, for equal instants).
    case updatedAtDescending = "-updatedAt"
    /// Least recently updated first (then by identifier, ascending, for equal instants).
    case updatedAtAscending = "updatedAt"
    /// By order type identifier, then order identifier, comparing UTF-8 bytes.
    case identifier
}

/// Which stored orders ``OrderStoring/list(_:)`` returns, in which order, and how many at a time.
///
/// Every filter is optional and they combine with "and". Pages are *keyset* pages: ``after`` is
/// the cursor of the previous page's last order, so an order saved or deleted between two calls
/// never makes a page repeat or skip the others.
public struct OrderQuery: Sendable, Hashable {
    /// Only orders of this order type identifier (exact match).
    public var orderTypeIdentifier: String?
    /// Only orders of one of these order types (exact match; an empty set matches nothing), for a
    /// caller allowed to see only some types. Combines with ``orderTypeIdentifier``.
    public var orderTypeIdentifiers: Set<String>?
    /// Only orders whose stored version has this `status` (`open`, `completed`, `cancelled`,
    /// or any other string an order uses).
    public var status: String?
    /// Only orders whose `updatedAt` is at or after this instant.
    public var updatedSince: Timestamp?
    /// The order of the results.
    public var sort: OrderSort
    /// The largest number of orders in one page (at least 1).
    public var limit: Int
    /// Continue after this cursor, from a previous page's ``OrderListPage/nextCursor``.
    public var after: OrderListCursor?

    /// The default page size.
    public static let defaultLimit = 100

    /// Creates a query; with no arguments, the first page of every order, most recently updated first.
    public init(
        orderTypeIdentifier: String? = nil, orderTypeIdentifiers: Set<String>? = nil, status: String? = nil,
        updatedSince: Timestamp? = nil, sort: OrderSort = .updatedAtDescending, limit: Int = OrderQuery.defaultLimit,
        after: OrderListCursor? = nil
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderTypeIdentifiers = orderTypeIdentifiers
        self.status = status
        self.updatedSince = updatedSince
        self.sort = sort
        self.limit = max(1, limit)
        self.after = after
    }

    /// Whether a stored order passes the filters (not the cursor).
    func matches(_ summary: StoredOrderSummary) -> Bool {
        if let orderTypeIdentifier, !summary.identifier.orderTypeIdentifier.utf8.elementsEqual(orderTypeIdentifier.utf8) {
            return false
        }
        if let orderTypeIdentifiers,
            !orderTypeIdentifiers.contains(where: { $0.utf8.elementsEqual(summary.identifier.orderTypeIdentifier.utf8) })
        {
            return false
        }
        if let status, !summary.status.utf8.elementsEqual(status.utf8) { return false }
        if let updatedSince, summary.updatedAt < updatedSince { return false }
        return true
    }

    /// Throws ``WalletOrdersError/Code/malformedToken`` when ``after`` was made for another sort.
    package func checkCursor() throws {
        if let after, after.sort != sort {
            throw WalletOrdersError(
                .malformedToken,
                "The list cursor was made for sort order \(after.sort.rawValue), but this query sorts by \(sort.rawValue).",
                hint: "Use the same sort order for every page, or start again without a cursor.")
        }
    }
}

/// What a store knows about one stored order, without its archive bytes.
public struct StoredOrderSummary: Sendable, Hashable, Codable {
    /// The order's identifier.
    public var identifier: FullyQualifiedOrderIdentifier
    /// The stored version's `updatedAt`.
    public var updatedAt: Timestamp
    /// The stored version's `status`.
    public var status: String
    /// The lowercase hexadecimal SHA-256 of the stored archive.
    public var sha256: String
    /// The stored archive's size in bytes.
    public var archiveSize: Int
    /// When this version was saved (the store's clock, UTC).
    public var savedAt: Timestamp

    /// Creates a summary.
    public init(
        identifier: FullyQualifiedOrderIdentifier, updatedAt: Timestamp, status: String, sha256: String,
        archiveSize: Int, savedAt: Timestamp
    ) {
        self.identifier = identifier
        self.updatedAt = updatedAt
        self.status = status
        self.sha256 = sha256
        self.archiveSize = archiveSize
        self.savedAt = savedAt
    }

    /// The position of this order in `sort`, for the next page's cursor.
    package func cursor(_ sort: OrderSort) -> OrderListCursor {
        OrderListCursor(
            sort: sort, seconds: updatedAt.secondsSince1970, nanoseconds: updatedAt.nanoseconds,
            orderTypeIdentifier: identifier.orderTypeIdentifier, orderIdentifier: identifier.orderIdentifier)
    }

    /// Whether this order comes strictly after `cursor` in the cursor's sort order.
    func comes(after cursor: OrderListCursor) -> Bool {
        let key = cursor.key
        switch cursor.sort {
        case .updatedAtAscending: return sortKey(cursor.sort) > key
        case .updatedAtDescending: return sortKey(cursor.sort) < key
        case .identifier: return sortKey(cursor.sort) > key
        }
    }

    func sortKey(_ sort: OrderSort) -> OrderListCursor.Key {
        cursor(sort).key
    }
}

/// One page of ``OrderStoring/list(_:)``.
public struct OrderListPage: Sendable, Hashable {
    /// The orders, in the query's sort order.
    public var orders: [StoredOrderSummary]
    /// Pass as ``OrderQuery/after`` for the next page; `nil` when this page is the last.
    public var nextCursor: OrderListCursor?

    /// Creates a page.
    public init(orders: [StoredOrderSummary], nextCursor: OrderListCursor?) {
        self.orders = orders
        self.nextCursor = nextCursor
    }
}

/// An opaque position in a sorted list of orders. `Codable` as one string, the same as
/// ``encoded``, so it can be handed to a client and back.
public struct OrderListCursor: Sendable, Hashable, Codable, CustomStringConvertible {
    let sort: OrderSort
    package let seconds: Int64
    package let nanoseconds: Int32
    package let orderTypeIdentifier: String
    package let orderIdentifier: String

    init(sort: OrderSort, seconds: Int64, nanoseconds: Int32, orderTypeIdentifier: String, orderIdentifier: String) {
        self.sort = sort
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
    }

    /// A comparable key in the cursor's sort: identifiers compare by UTF-8 bytes, as SQLite's
    /// BINARY collation does.
    struct Key: Comparable {
        var seconds: Int64
        var nanoseconds: Int32
        var identifier: FullyQualifiedOrderIdentifier

        static func < (lhs: Self, rhs: Self) -> Bool {
            if lhs.seconds != rhs.seconds { return lhs.seconds < rhs.seconds }
            if lhs.nanoseconds != rhs.nanoseconds { return lhs.nanoseconds < rhs.nanoseconds }
            return lhs.identifier < rhs.identifier
        }
    }

    var key: Key {
        let identifier = FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        return sort == .identifier
            ? Key(seconds: 0, nanoseconds: 0, identifier: identifier)
            : Key(seconds: seconds, nanoseconds: nanoseconds, identifier: identifier)
    }

    private struct Wire: Codable {
        var o: String
        var s: Int64
        var n: Int32
        var t: String
        var i: String
    }

    /// The cursor as URL-safe text.
    public var encoded: String {
        OpaqueToken.encode(Wire(o: sort.rawValue, s: seconds, n: nanoseconds, t: orderTypeIdentifier, i: orderIdentifier))
    }

    /// Reads a cursor from ``encoded``.
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` when the text isn't a cursor.
    public init(encoded text: String) throws {
        let wire = try OpaqueToken.decode(Wire.self, from: text, kind: "list cursor")
        guard let sort = OrderSort(rawValue: wire.o), (0..<1_000_000_000).contains(wire.n) else {
            throw OpaqueToken.malformed(text, kind: "list cursor")
        }
        self.init(sort: sort, seconds: wire.s, nanoseconds: wire.n, orderTypeIdentifier: wire.t, orderIdentifier: wire.i)
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

/// Opaque tokens as base64url (no padding) of compact JSON: short, URL- and shell-safe, and
/// versionable without a format of our own.
enum OpaqueToken {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return base64URL((try? encoder.encode(value)) ?? Data())
    }

    /// `data` as base64url without padding.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, kind: String) throws -> T {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
            let data = Data(base64Encoded: base64),
            let value = try? JSONDecoder().decode(T.self, from: data)
        else { throw malformed(text, kind: kind) }
        return value
    }

    static func malformed(_ text: String, kind: String) -> WalletOrdersError {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return WalletOrdersError(
            .malformedToken, "\"\(shown)\" is not a \(kind) made by wallet-orders.",
            hint: "Pass the \(kind) exactly as the previous call printed it.")
    }
}
