import Foundation
import GRDB
import Synchronization
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

/// The read-only connections of a store's synchronous lookups (``SQLiteOrderStore/withLookup(_:)``),
/// opened as concurrent lookups need them: a store that serves one lookup at a time holds one
/// (two file descriptors: the file and its WAL; SQLite maps the shared memory once a process),
/// and however many cores the host has, never more than ``maximum``. A lookup takes a connection no other lookup holds, so a
/// thread preempted in the middle of one never makes another wait. When every connection is held
/// and no other may be opened (the cap, or the open-file limit), a lookup waits for the next one
/// in turn.
final class LookupConnections: Sendable {
    private struct State {
        var open: [DatabaseQueue]
        /// One bit per connection of `open`: set while a lookup holds it.
        var inUse: UInt64 = 0
        var next = 0
        var closed = false
    }

    /// At most twice the cores, at least 4, at most 64 (one bit each in the busy mask).
    static let maximum = min(64, max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let state: Mutex<State>
    private let path: String
    private let configuration: Configuration

    /// `first` is the connection the store opened, or one it opened to read with.
    init(first: DatabaseQueue, path: String, configuration: Configuration) {
        state = Mutex(State(open: [first]))
        self.path = path
        self.configuration = configuration
    }

    func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        let (held, connection) = state.withLock { state -> (Int?, DatabaseQueue) in
            let available = ~state.inUse & (state.open.count == 64 ? ~0 : (1 << state.open.count) - 1)
            if available != 0 {
                let index = available.trailingZeroBitCount
                state.inUse |= 1 << index
                return (index, state.open[index])
            }
            // Opened under the lock: a fraction of a millisecond, once per connection; a failure
            // (EMFILE) leaves the lookup to share.
            if !state.closed, state.open.count < Self.maximum,
                let opened = try? DatabaseQueue(path: path, configuration: configuration)
            {
                state.open.append(opened)
                state.inUse |= 1 << (state.open.count - 1)
                return (state.open.count - 1, opened)
            }
            defer { state.next &+= 1 }
            return (nil, state.open[(state.next & Int.max) % state.open.count])
        }
        defer {
            if let held { state.withLock { $0.inUse &= ~(1 << held) } }
        }
        return try connection.inDatabase(body)
    }

    /// Closes every connection but `keeping` (the store's own, which it closes itself); later
    /// lookups share what was open, and fail as closed connections do.
    func close(keeping: DatabaseQueue? = nil) throws {
        let open = state.withLock { state in
            state.closed = true
            return state.open
        }
        for connection in open where connection !== keeping { try connection.close() }
    }
}
