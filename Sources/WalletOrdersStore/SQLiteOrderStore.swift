public import Foundation
import GRDB
public import WalletOrders

/// An ``OrderStoring`` in one SQLite file, through GRDB.
///
/// - **Layout:** one `orders` row per (orderTypeIdentifier, orderIdentifier), holding the archive
///   bytes, their SHA-256, the order's status and its `updatedAt` (as text and as seconds plus
///   nanoseconds), so a save is a single row write in a single transaction.
/// - **Atomicity:** every save reads the stored version, decides with ``OrderStoreDecision`` and
///   writes in one `BEGIN IMMEDIATE` transaction, so concurrent saves (tasks or processes) behave
///   like some serial order: no lost update, no duplicate row.
/// - **Durability:** the file is in WAL mode with `PRAGMA synchronous = FULL`, so the WAL is
///   synced at every commit: a save that returned ``SaveOrderResult/added`` survives a crash or a
///   power cut, and a process killed mid-save leaves the old version or the new one, never a
///   broken row. (`NORMAL`, SQLite's usual WAL setting, could lose the last commits on power loss.)
/// - **Contention:** a writer waits up to ``busyTimeout`` for another process's lock, then throws
///   ``WalletOrdersError/Code/storeUnavailable``.
/// - **Bad files:** a file that isn't a SQLite database gives ``WalletOrdersError/Code/storeCorrupt``
///   and a store with a schema newer than this code gives ``WalletOrdersError/Code/storeTooNew``;
///   neither file is written to.
public final class SQLiteOrderStore: OrderStoring {
    /// How long a write waits for another connection's lock before failing.
    public static let busyTimeout: TimeInterval = 10

    /// The database file.
    public let url: URL
    private let pool: DatabasePool
    private let validator: OrderValidator

    /// Opens the store at `url`, creating the file (not its folder) and migrating the schema when needed.
    ///
    /// - Parameters:
    ///   - url: The SQLite file.
    ///   - validator: Judges every archive before it is stored (default: `OrderValidator()`,
    ///     which trusts Apple's root only).
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/storeCorrupt``,
    ///   ``WalletOrdersError/Code/storeTooNew`` or ``WalletOrdersError/Code/storeUnavailable``.
    public init(url: URL, validator: OrderValidator? = nil) throws {
        self.url = url
        self.validator = try validator ?? OrderValidator()
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let path = url.path
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw Self.storeError(error, path: path, doing: "open")
        }
        let migrator = Self.migrator
        do {
            let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded {
                throw WalletOrdersError(
                    .storeTooNew,
                    "The order store \(path) was written by a newer version of wallet-orders; its schema is unknown here, so it was left untouched.",
                    hint: "Use the newer wallet-orders with this store, or pick another store file.")
            }
            try migrator.migrate(pool)
        } catch {
            throw Self.storeError(error, path: path, doing: "open")
        }
    }

    /// The schema's migrations. Add new ones at the end; never edit a shipped one.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-orders") { db in
            try db.execute(
                sql: """
                    CREATE TABLE orders (
                        orderTypeIdentifier TEXT NOT NULL,
                        orderIdentifier TEXT NOT NULL,
                        updatedAtSeconds INTEGER NOT NULL,
                        updatedAtNanos INTEGER NOT NULL,
                        updatedAtText TEXT NOT NULL,
                        status TEXT NOT NULL,
                        archive BLOB NOT NULL,
                        sha256 TEXT NOT NULL,
                        savedAt TEXT NOT NULL,
                        PRIMARY KEY (orderTypeIdentifier, orderIdentifier)
                    )
                    """)
        }
        return migrator
    }

    /// What one save transaction concluded.
    private enum Outcome: Sendable {
        case done(SaveOrderResult)
        case conflict(stored: OrderVersion, incoming: OrderVersion)
        case needsConfirmation(stored: OrderVersion?)
    }

    public func save(signedArchive: [UInt8], confirm: (@Sendable (SaveProposal) async -> Bool)?) async throws
        -> SaveOrderResult
    {
        let incoming = try VerifiedArchive(bytes: signedArchive, validator: validator)
        // The stored version the handler agreed to replace (`.some(nil)`: agreed to insert).
        var confirmedStored: OrderVersion?? = nil
        while true {
            let asks = confirm != nil
            let agreed = confirmedStored
            let outcome: Outcome = try await perform("save to") { pool in
                try await pool.writeWithoutTransaction { db in
                    var outcome = Outcome.done(.added)
                    try db.inTransaction(.immediate) {
                        let stored = try Self.storedVersion(db, incoming.identifier)
                        switch OrderStoreDecision.save(stored: stored, incoming: incoming.version) {
                        case .keep(let result):
                            outcome = .done(result)
                        case .conflict(let stored, let incoming):
                            outcome = .conflict(stored: stored, incoming: incoming)
                        case .insert, .replace:
                            if asks && agreed != .some(stored) {
                                outcome = .needsConfirmation(stored: stored)
                            } else {
                                try Self.write(db, incoming)
                                outcome = .done(.added)
                            }
                        }
                        return .commit
                    }
                    return outcome
                }
            }
            switch outcome {
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
                // Other writers may have saved while the handler ran: the next transaction decides
                // again and writes only if the store still holds what was confirmed.
                confirmedStored = .some(stored)
            }
        }
    }

    public func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult
    {
        let stored = try await perform("read") { pool in
            try await pool.read { db in try Self.storedVersion(db, identifier) }
        }
        return OrderStoreDecision.contains(stored: stored?.updatedAt, updatedDate: updatedDate)
    }

    public func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]? {
        let data = try await perform("read") { pool in
            try await pool.read { db in
                try Data.fetchOne(
                    db, sql: "SELECT archive FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
            }
        }
        return data.map { Array($0) }
    }

    public func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await perform("delete from") { pool in
            try await pool.write { db in
                try db.execute(
                    sql: "DELETE FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
                return db.changesCount > 0
            }
        }
    }

    /// The number of stored orders.
    public func count() async throws -> Int {
        try await perform("read") { pool in
            try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM orders") ?? 0 }
        }
    }

    // MARK: - Rows

    private static func storedVersion(_ db: Database, _ identifier: FullyQualifiedOrderIdentifier) throws
        -> OrderVersion?
    {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT updatedAtText, sha256 FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
        else { return nil }
        let text: String = row["updatedAtText"]
        let sha256: String = row["sha256"]
        do {
            return OrderVersion(updatedAt: try Timestamp(rfc3339: text), sha256: sha256)
        } catch {
            throw WalletOrdersError(
                .storeCorrupt, "The stored updatedAt of \(identifier) is not an RFC 3339 date-time: \(text)",
                underlying: error)
        }
    }

    private static func write(_ db: Database, _ archive: VerifiedArchive) throws {
        let updatedAt = archive.version.updatedAt
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO orders
                    (orderTypeIdentifier, orderIdentifier, updatedAtSeconds, updatedAtNanos, updatedAtText,
                     status, archive, sha256, savedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                archive.identifier.orderTypeIdentifier, archive.identifier.orderIdentifier,
                updatedAt.secondsSince1970, Int64(updatedAt.nanoseconds), updatedAt.text, archive.status,
                Data(archive.bytes), archive.version.sha256, Timestamp(Date()).text,
            ])
    }

    // MARK: - Errors

    /// Runs a database operation, turning GRDB's errors into ``WalletOrdersError``.
    private func perform<T: Sendable>(
        _ doing: String, _ operation: @Sendable (DatabasePool) async throws -> T
    ) async throws -> T {
        do {
            return try await operation(pool)
        } catch {
            throw Self.storeError(error, path: url.path, doing: doing)
        }
    }

    private static func storeError(_ error: any Error, path: String, doing: String) -> WalletOrdersError {
        if let error = error as? WalletOrdersError { return error }
        guard let database = error as? DatabaseError else {
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) the order store \(path): \(error)", underlying: error)
        }
        switch database.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return WalletOrdersError(
                .storeCorrupt,
                "\(path) is not an order store: the file is not a SQLite database or is damaged (\(database.message ?? "\(database.resultCode)")). It was not changed.",
                hint: "Check the path (--store / WALLET_ORDERS_STORE); restore the file from a backup if it was a store.",
                underlying: database)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return WalletOrdersError(
                .storeUnavailable,
                "The order store \(path) stayed locked by another process for \(Int(busyTimeout)) seconds.",
                hint: "Try again when the other wallet-orders process has finished.", underlying: database)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) the order store \(path): \(database.message ?? "\(database.resultCode)").",
                hint: "Check that the folder exists and that the file and its folder are writable.", underlying: database)
        default:
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) the order store \(path): \(database)", underlying: database)
        }
    }
}
