import GRDB
public import WalletOrders

// The synchronous reads of single orders, on the lookup connections (``withLookup(_:)``): one
// statement each, so one consistent snapshot, on a connection that in WAL mode never waits for
// writers, without suspending the caller's task. The web service's reads are in
// SQLiteOrderStore+WebService.swift.

extension SQLiteOrderStore {
    public func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult
    {
        // One indexed lookup that answers in SQL (0 exists, 1 newerExists, 2 olderExists, no row:
        // notFound): one integer column, no row object, no Timestamp to format.
        let code = try performSync("read") { _ in
            try withLookup { db -> Int? in
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT CASE
                            WHEN ?3 IS NULL OR (updatedAtSeconds = ?3 AND updatedAtNanos = ?4) THEN 0
                            WHEN (updatedAtSeconds, updatedAtNanos) > (?3, ?4) THEN 1
                            ELSE 2 END
                        FROM orders INDEXED BY ordersVersions WHERE orderTypeIdentifier = ?1 AND orderIdentifier = ?2
                        """)
                return try Int.fetchOne(
                    statement,
                    arguments: [
                        identifier.orderTypeIdentifier, identifier.orderIdentifier, updatedDate?.secondsSince1970,
                        updatedDate.map { Int64($0.nanoseconds) },
                    ])
            }
        }
        switch code {
        case nil: return .notFound
        case 0: return .exists
        case 1: return .newerExists
        default: return .olderExists
        }
    }

    public func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]? {
        // Synchronous, on a lookup connection, as ``accessRecord(for:)``: Wallet's 200 reads the
        // archive right after its access record, and an archive is at most a few megabytes.
        try performSync("read") { _ in
            try withLookup { db -> [UInt8]? in
                let statement = try db.cachedStatement(
                    sql: "SELECT archive FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?")
                let cursor = try Row.fetchCursor(statement, arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
                guard let row = try cursor.next() else { return nil }
                // The blob's bytes copied once, straight from SQLite's buffer.
                return try row.withUnsafeData(atIndex: 0) { data in data.map { [UInt8]($0) } ?? [] }
            }
        }
    }
}
