// Why this file is long (about 610 lines): it is the store's whole OrderStoring contract on one
// GRDB database (saving, batches, queries, history, compaction, deletion) plus the connection
// handling those share privately. Migrations, file handling and the web service's side are in
// the +Migrations, +Files and +WebService files.

public import Foundation
import GRDB
import Synchronization
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
/// - **History:** every insert, replacement and delete appends to a `changes` log in the same
///   transaction, so ``history(since:limit:)`` never misses or invents a change; tokens carry
///   the store's random identifier and a log sequence number.
/// - **Contention:** a writer waits up to ``busyTimeout`` for another process's lock, then throws
///   ``WalletOrdersError/Code/storeUnavailable``. Readers never wait for writers (WAL).
/// - **Bad files:** a file that isn't a SQLite database gives ``WalletOrdersError/Code/storeCorrupt``,
///   a store with a schema newer than this code gives ``WalletOrdersError/Code/storeTooNew``, and
///   a file or folder that can't be written gives ``WalletOrdersError/Code/storeReadOnly``; none
///   of them is written to.
public final class SQLiteOrderStore: OrderStoring {
    /// How a store is opened.
    public enum Access: Sendable, Hashable {
        /// Reads and writes; creates the file and migrates its schema when needed.
        case readWrite
        /// Reads only: never creates, migrates or writes the file, so it works on a read-only
        /// file, folder or file system (the store must have been closed cleanly, which leaves
        /// the whole store in the one file; see ``close()``).
        case readOnly
    }

    /// How long a write waits for another connection's lock before failing, by default.
    public static let defaultBusyTimeout: TimeInterval = 10

    /// How long a write waits for another connection's lock before failing.
    public let busyTimeout: TimeInterval

    /// The database file.
    public let url: URL
    /// How the store was opened.
    public let access: Access
    /// A `DatabasePool` (WAL, one writer and pooled readers) for ``Access/readWrite``; one
    /// read-only `DatabaseQueue` for ``Access/readOnly``.
    private let database: any DatabaseWriter
    private let closed = Mutex(false)
    /// Read-only connections of their own for the synchronous lookups (``contains(matching:updatedDate:)``,
    /// Wallet's GET, the changed-orders list): one indexed read outside any explicit transaction
    /// costs a fraction of a pooled read.
    private let lookups: LookupConnections
    /// Concurrent ``save(verifiedArchives:)`` calls share one transaction (one WAL flush).
    private let saveGroups = GroupCommit<VerifiedOrderArchive, Result<OrderSaveReceipt, WalletOrdersError>>()
    /// How far ahead of the clock an archive's `updatedAt` may be.
    public let updatedAtLimit: UpdatedAtLimit
    /// The store's random identifier, made by the migration that created the history log.
    let storeID: String
    /// Set when users other than the owner can read the store's files, which hold every
    /// order's `authenticationToken` and the customer link secret: a warning to show the
    /// operator. A store this library creates is mode 0600 (its `-wal` and `-shm` too).
    public let exposureWarning: String?

    /// Opens the store at `url`, creating the file (not its folder) and migrating the schema when
    /// needed, or, with ``Access/readOnly``, reading it as it is.
    ///
    /// Several processes may open a new store at once: creating it, switching it to WAL and
    /// migrating its schema each wait their turn (up to `busyTimeout`), so none fails because
    /// another is doing the same.
    ///
    /// - Parameters:
    ///   - url: The SQLite file.
    ///   - busyTimeout: How long a write waits for another process's lock before throwing
    ///     ``WalletOrdersError/Code/storeUnavailable`` (default ``defaultBusyTimeout``).
    ///   - access: ``Access/readWrite`` (default) or ``Access/readOnly``.
    ///   - updatedAtLimit: How far ahead of this process's clock an archive's `updatedAt` may
    ///     be; one further ahead is refused with ``WalletOrdersError/Code/updatedAtInFuture``.
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/storeCorrupt``,
    ///   ``WalletOrdersError/Code/storeTooNew``, ``WalletOrdersError/Code/storeReadOnly`` or
    ///   ``WalletOrdersError/Code/storeUnavailable``.
    public init(
        url: URL, busyTimeout: TimeInterval = SQLiteOrderStore.defaultBusyTimeout,
        access: Access = .readWrite, updatedAtLimit: UpdatedAtLimit = .default
    ) throws {
        self.url = url
        self.updatedAtLimit = updatedAtLimit
        self.busyTimeout = busyTimeout
        self.access = access
        let path = url.path
        let migrator = Self.migrator
        var readOnlyConfiguration = Configuration()
        readOnlyConfiguration.readonly = true
        readOnlyConfiguration.busyMode = .timeout(busyTimeout)
        readOnlyConfiguration.prepareDatabase { db in
            // Index pages read through a memory map: no read(2) per page that misses the cache.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        let deadline = Date().addingTimeInterval(busyTimeout)
        do {
            switch access {
            case .readWrite:
                try Self.checkWritable(url)
                Self.createPrivately(url)
                var configuration = Configuration()
                configuration.busyMode = .timeout(busyTimeout)
                // Opening a new file switches it to WAL, which needs the file to itself for a moment:
                // another process doing the same gets SQLITE_BUSY at once (no busy handler runs), so wait.
                let pool = try Self.retryingWhileBusy(until: deadline) { try DatabasePool(path: path, configuration: configuration) }
                // The WAL synced at every commit. Set here, on the pool's one writer, and not in
                // prepareDatabase: the pool sets NORMAL when it puts the writer in WAL mode, after
                // prepareDatabase has run.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                database = pool
            case .readOnly:
                // A read-only connection (SQLITE_OPEN_READONLY: every write fails with
                // SQLITE_READONLY). Not `query_only`: GRDB resets that pragma after each read.
                let location = try Self.readOnlyPath(url)
                let configuration = readOnlyConfiguration
                database = try DatabaseQueue(path: location.path, configuration: configuration)
            }
            let superseded = try database.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded {
                throw WalletOrdersError(
                    .storeTooNew,
                    "The order store \(path) was written by a newer version of wallet-orders; its schema is unknown here, so it was left untouched.",
                    hint: "Use the newer wallet-orders with this store, or pick another store file.")
            }
            switch access {
            case .readWrite:
                let writer = database
                try Self.retryingWhileBusy(until: deadline) { try Self.migrate(writer, with: migrator) }
                lookups = LookupConnections(
                    first: try DatabaseQueue(path: path, configuration: readOnlyConfiguration), path: path,
                    configuration: readOnlyConfiguration)
            case .readOnly:
                guard try database.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                    throw WalletOrdersError(
                        .storeReadOnly,
                        "The order store \(path) has an older schema, which a read-only open can't upgrade. Nothing was changed.",
                        hint: "Open it once with write access (any store command that saves) to upgrade it.")
                }
                let location = try Self.readOnlyPath(url)
                lookups = LookupConnections(
                    first: database as! DatabaseQueue, path: location.path, configuration: readOnlyConfiguration)
            }
            storeID =
                try database.read { db in
                    try String.fetchOne(db, sql: "SELECT value FROM storeInfo WHERE key = 'storeID'")
                } ?? ""
            exposureWarning = Self.exposure(of: url)
        } catch {
            throw Self.storeError(error, path: path, doing: "open", busyTimeout: busyTimeout)
        }
    }

    deinit {
        try? close()
    }

    /// Closes the store's connections; for a writable store it first checkpoints the WAL into
    /// the file (`PRAGMA wal_checkpoint(TRUNCATE)`) and closes the writer last, so SQLite removes
    /// the `-wal` and `-shm` files: after a clean close the `.sqlite` file alone is the whole
    /// store (copy it, or open it ``Access/readOnly`` on a read-only file system). When another
    /// process still has the store open, it keeps the WAL until it closes too. Later calls do
    /// nothing; other calls after it throw.
    ///
    /// `deinit` calls it; call it yourself where the store's lifetime isn't obvious.
    public func close() throws {
        let alreadyClosed = closed.withLock { value in
            defer { value = true }
            return value
        }
        guard !alreadyClosed else { return }
        do {
            if access == .readWrite {
                try lookups.close()
                // Never waits: with other processes at work a TRUNCATE checkpoint would block (up to
                // the busy timeout) until they pause; then the WAL stays, and the last to close empties it.
                _ = try? database.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA busy_timeout = 0")
                    try db.checkpoint(.truncate)
                }
            }
            if access == .readOnly {
                try lookups.close(keeping: database as? DatabaseQueue)  // the first is `database`
            }
            try database.close()
            if access == .readWrite {
                // GRDB closes the pool's writer before its readers, and a read-only last connection
                // leaves the WAL files behind (GRDB issue 739). A last connection that can write
                // checkpoints and removes them, unless another process still has the store open.
                var configuration = Configuration()
                configuration.busyMode = .immediateError
                try? DatabaseQueue(path: url.path, configuration: configuration).close()
            }
        } catch {
            throw Self.storeError(error, path: url.path, doing: "close", busyTimeout: busyTimeout)
        }
    }

    public func save(verifiedArchive incoming: VerifiedOrderArchive, confirm: (@Sendable (SaveProposal) async -> Bool)?)
        async throws -> SaveOrderResult
    {
        return try await ConfirmedSave.run(incoming, limit: updatedAtLimit, confirm: confirm) { save in
            try await perform("save to") { database in
                try await database.writeWithoutTransaction { db in
                    var outcome = ConfirmedSave.Outcome.done(.added)
                    try db.inTransaction(.immediate) {
                        switch save.step(stored: try Self.storedVersion(db, incoming.identifier)) {
                        case .conclude(let concluded):
                            outcome = concluded
                        case .write(let replacing):
                            try Self.write(db, incoming, replacing: replacing)
                            outcome = .done(.added)
                        }
                        return .commit
                    }
                    return outcome
                }
            }
        }
    }

    /// Saves that overlap in time are written together (``GroupCommit``): one transaction and
    /// one flush for all of them, each still durable when its answer comes back.
    public func save(verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        try await saveGroups.submit(verifiedArchives) { [self] group in try await commit(group) }
    }

    /// Writes `verifiedArchives` in one transaction, one after the other.
    private func commit(_ verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        let limit = updatedAtLimit
        return try await perform("save to") { database in
            try await database.writeWithoutTransaction { db in
                var results: [Result<OrderSaveReceipt, WalletOrdersError>] = []
                results.reserveCapacity(verifiedArchives.count)
                try db.inTransaction(.immediate) {
                    results.removeAll(keepingCapacity: true)
                    for incoming in verifiedArchives {
                        if let refusal = limit.refusal(of: incoming) {
                            results.append(.failure(refusal))
                            continue
                        }
                        let stored = try Self.storedVersion(db, incoming.identifier)
                        switch OrderStoreDecision.save(stored: stored, incoming: incoming.version) {
                        case .keep(let result):
                            results.append(.success(incoming.receipt(result, storeChanged: false)))
                        case .conflict(let stored, let incomingVersion):
                            results.append(
                                .failure(
                                    OrderStoreDecision.conflictError(
                                        incoming.identifier, stored: stored, incoming: incomingVersion)))
                        case .insert, .replace:
                            try Self.write(db, incoming, replacing: stored != nil)
                            results.append(.success(incoming.receipt(.added, storeChanged: true)))
                        }
                    }
                    return .commit
                }
                return results
            }
        }
    }

    /// Runs `body` on a read-only lookup connection no other lookup holds, synchronously
    /// (``LookupConnections``).
    func withLookup<T>(_ body: (Database) throws -> T) throws -> T {
        try lookups.withConnection(body)
    }

    public func summary(for identifier: FullyQualifiedOrderIdentifier) async throws -> StoredOrderSummary? {
        try await perform("read") { database in
            try await database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Self.summaryColumns) FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier]
                ).map(Self.summary)
            }
        }
    }

    public func list(_ query: OrderQuery) async throws -> OrderListPage {
        try query.checkCursor()
        return try await perform("read") { database in
            try await database.read { db in
                var conditions: [String] = []
                var arguments = StatementArguments()
                if let type = query.orderTypeIdentifier {
                    conditions.append("orderTypeIdentifier = ?")
                    arguments += [type]
                }
                if let types = query.orderTypeIdentifiers {
                    // SQLite takes an empty list too: `IN ()` matches nothing.
                    conditions.append("orderTypeIdentifier IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))")
                    arguments += StatementArguments(types.sorted())
                }
                if let status = query.status {
                    conditions.append("status = ?")
                    arguments += [status]
                }
                if let since = query.updatedSince {
                    conditions.append("(updatedAtSeconds, updatedAtNanos) >= (?, ?)")
                    arguments += [since.secondsSince1970, Int64(since.nanoseconds)]
                }
                let order: String
                switch query.sort {
                case .updatedAtDescending:
                    order = "updatedAtSeconds DESC, updatedAtNanos DESC, orderTypeIdentifier DESC, orderIdentifier DESC"
                    if let after = query.after {
                        conditions.append("(updatedAtSeconds, updatedAtNanos, orderTypeIdentifier, orderIdentifier) < (?, ?, ?, ?)")
                        arguments += [after.seconds, Int64(after.nanoseconds), after.orderTypeIdentifier, after.orderIdentifier]
                    }
                case .updatedAtAscending:
                    order = "updatedAtSeconds, updatedAtNanos, orderTypeIdentifier, orderIdentifier"
                    if let after = query.after {
                        conditions.append("(updatedAtSeconds, updatedAtNanos, orderTypeIdentifier, orderIdentifier) > (?, ?, ?, ?)")
                        arguments += [after.seconds, Int64(after.nanoseconds), after.orderTypeIdentifier, after.orderIdentifier]
                    }
                case .identifier:
                    order = "orderTypeIdentifier, orderIdentifier"
                    if let after = query.after {
                        conditions.append("(orderTypeIdentifier, orderIdentifier) > (?, ?)")
                        arguments += [after.orderTypeIdentifier, after.orderIdentifier]
                    }
                }
                let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
                arguments += [query.limit + 1]
                let rows = try Row.fetchAll(
                    db, sql: "SELECT \(Self.summaryColumns) FROM orders \(filter) ORDER BY \(order) LIMIT ?",
                    arguments: arguments)
                var orders = try rows.prefix(query.limit).map(Self.summary)
                let more = rows.count > query.limit
                orders.reserveCapacity(query.limit)
                return OrderListPage(orders: orders, nextCursor: more ? orders.last?.cursor(query.sort) : nil)
            }
        }
    }

    public func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await perform("delete from") { database in
            try await database.write { db in
                try db.execute(
                    sql: "DELETE FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
                guard db.changesCount > 0 else { return false }
                // Its devices' registrations go with it: they would count toward each device's cap
                // for ever, and reach the next order stored under the same identifier.
                try db.execute(
                    sql: "DELETE FROM registrations WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
                try Self.logChange(db, identifier, .deleted)
                return true
            }
        }
    }

    public func history(since token: OrderHistoryToken?, limit: Int?) async throws -> OrderChanges {
        try await changeLog(
            of: .order, since: token, limit: limit,
            present: "SELECT orderTypeIdentifier, orderIdentifier FROM orders ORDER BY orderTypeIdentifier, orderIdentifier"
        ) { FullyQualifiedOrderIdentifier(orderTypeIdentifier: $0, orderIdentifier: $1) }
    }

    /// The changes of one kind of archive since `token`, from the one change log. `present`
    /// selects the two halves of every stored archive of the kind, by identifier: the answer
    /// without a token once the log was compacted.
    func changeLog<Identifier>(
        of kind: ArchiveKind, since token: OrderHistoryToken?, limit: Int?, present: String,
        identifier: @escaping @Sendable (String, String) -> Identifier
    ) async throws -> StoreChanges<Identifier> {
        let storeID = storeID
        return try await perform("read") { database in
            try await database.read { db in
                let floor = try Self.historyFloor(db)
                let newest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
                let start: Int64
                if let token {
                    start = try StoreChanges<Identifier>.start(after: token, storeID: storeID, floor: floor, newest: newest)
                } else if floor > 0 {
                    // The log no longer starts at the beginning: describe the present instead.
                    let identifiers = try Row.fetchAll(db, sql: present).map { identifier($0[0], $0[1]) }
                    return StoreChanges(
                        inserted: identifiers, updated: [], deleted: [],
                        newToken: OrderHistoryToken(storeID: storeID, sequence: newest), hasMore: false)
                } else {
                    start = 0
                }
                var sql = """
                    SELECT sequence, orderTypeIdentifier, orderIdentifier, kind FROM changes
                    WHERE sequence > ? AND archiveKind = ? ORDER BY sequence
                    """
                var arguments: StatementArguments = [start, kind.rawValue]
                if let limit {
                    sql += " LIMIT ?"
                    arguments += [max(1, limit) + 1]
                }
                let records = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                    ChangeRecord(
                        sequence: row[0], identifier: identifier(row[1], row[2]),
                        kind: ChangeRecord<Identifier>.Kind(rawValue: row[3]) ?? .updated)
                }
                return StoreChanges.page(records, after: start, limit: limit, storeID: storeID)
            }
        }
    }

    /// Drops all but the newest `count` entries of the change log, so it doesn't grow forever.
    ///
    /// Tokens older than what is kept then throw ``WalletOrdersError/Code/historyTokenInvalid``,
    /// and `history(since: nil)` lists the stored orders instead of replaying the log.
    ///
    /// - Returns: The number of entries removed.
    @discardableResult
    public func compactHistory(keepingLast count: Int) async throws -> Int {
        try await perform("compact") { database in
            try await database.write { db in
                let newest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
                let floor = newest - Int64(max(0, count))
                guard floor > (try Self.historyFloor(db)) else { return 0 }
                try db.execute(sql: "DELETE FROM changes WHERE sequence <= ?", arguments: [floor])
                let removed = db.changesCount
                try db.execute(
                    sql: "UPDATE storeInfo SET value = ? WHERE key = 'historyFloor'", arguments: [String(floor)])
                return removed
            }
        }
    }

    /// Writes a consistent, compacted copy of the whole store to `destination` (SQLite's
    /// `VACUUM INTO`) while the store stays in use: a backup, or a fixture to copy around.
    ///
    /// - Throws: ``WalletOrdersError/Code/storeUnavailable`` when `destination` exists or can't be written.
    public func backup(to destination: URL) async throws {
        try await perform("back up") { database in
            try await database.unsafeRead { db in  // VACUUM can't run inside the transaction `read` opens
                try db.execute(sql: "VACUUM INTO ?", arguments: [destination.path])
            }
        }
    }

    /// The number of stored orders.
    public func count() async throws -> Int {
        try await perform("read") { database in
            try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM orders") ?? 0 }
        }
    }

    // MARK: - Rows

    private static func storedVersion(_ db: Database, _ identifier: FullyQualifiedOrderIdentifier) throws
        -> OrderVersion?
    {
        let statement = try db.cachedStatement(
            sql: "SELECT updatedAtText, sha256, contentDigest FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?")
        guard let row = try Row.fetchOne(statement, arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
        else { return nil }
        let text: String = row[0]
        do {
            return OrderVersion(updatedAt: try Timestamp(rfc3339: text), sha256: row[1], contentDigest: row[2])
        } catch {
            throw WalletOrdersError(
                .storeCorrupt, "The stored updatedAt of \(identifier) is not an RFC 3339 date-time: \(text)",
                underlying: error)
        }
    }

    private static func write(_ db: Database, _ archive: VerifiedOrderArchive, replacing: Bool) throws {
        let updatedAt = archive.version.updatedAt
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO orders
                    (orderTypeIdentifier, orderIdentifier, updatedAtSeconds, updatedAtNanos, updatedAtText,
                     status, archive, sha256, savedAt, authenticationToken, changeSequence, contentDigest,
                     previousAuthenticationToken)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    (SELECT CASE WHEN authenticationToken IS NOT ?10 THEN authenticationToken ELSE previousAuthenticationToken END
                     FROM orders WHERE orderTypeIdentifier = ?1 AND orderIdentifier = ?2))
                """)
        let sequence = try logChange(db, archive.identifier, replacing ? .updated : .inserted)
        try statement.execute(arguments: [
            archive.identifier.orderTypeIdentifier, archive.identifier.orderIdentifier,
            updatedAt.secondsSince1970, Int64(updatedAt.nanoseconds), updatedAt.text, archive.status,
            Data(archive.bytes), archive.version.sha256, Timestamp(Date()).text, archive.authenticationToken, sequence,
            archive.version.contentDigest,
        ])
        try enqueuePushes(db, for: archive.identifier)
    }

    /// Appends to the history log; returns the entry's sequence number.
    @discardableResult
    private static func logChange(
        _ db: Database, _ identifier: FullyQualifiedOrderIdentifier, _ kind: OrderChangeRecord.Kind
    ) throws -> Int64 {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO changes (orderTypeIdentifier, orderIdentifier, kind) VALUES (?, ?, ?)")
        try statement.execute(arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier, kind.rawValue])
        return db.lastInsertedRowID
    }

    static func historyFloor(_ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, sql: "SELECT value FROM storeInfo WHERE key = 'historyFloor'") ?? "0") ?? 0
    }

    private static let summaryColumns =
        "orderTypeIdentifier, orderIdentifier, updatedAtSeconds, updatedAtNanos, status, sha256, length(archive), savedAt, updatedAtText"

    private static func summary(_ row: Row) throws -> StoredOrderSummary {
        let identifier = FullyQualifiedOrderIdentifier(orderTypeIdentifier: row[0], orderIdentifier: row[1])
        let savedText: String = row[7]
        return StoredOrderSummary(
            identifier: identifier, updatedAt: try storedTimestamp(seconds: row[2], nanoseconds: row[3], text: row[8], of: identifier),
            status: row[4], sha256: row[5], archiveSize: row[6],
            savedAt: (try? Timestamp(rfc3339: savedText)) ?? Timestamp(secondsSince1970: 0))
    }

    /// The stored `updatedAt`: the text as the order wrote it, when it still denotes the stored instant.
    static func storedTimestamp(seconds: Int64, nanoseconds: Int64, text: String, of identifier: FullyQualifiedOrderIdentifier)
        throws -> Timestamp
    {
        // The text as stored when it names the stored instant (one parse, no formatting: this is
        // on every Wallet fetch); otherwise the instant, in UTC.
        if let stored = try? Timestamp(rfc3339: text), stored.secondsSince1970 == seconds, Int64(stored.nanoseconds) == nanoseconds {
            return stored
        }
        return try timestamp(seconds: seconds, nanoseconds: nanoseconds, of: identifier)
    }

    private static func timestamp(seconds: Int64, nanoseconds: Int64, of identifier: FullyQualifiedOrderIdentifier) throws
        -> Timestamp
    {
        guard (0..<1_000_000_000).contains(nanoseconds),
            (Timestamp.minimumSeconds...Timestamp.maximumSeconds).contains(seconds)
        else {
            throw WalletOrdersError(
                .storeCorrupt, "The stored updatedAt of \(identifier) is out of range (\(seconds) s, \(nanoseconds) ns).",
                hint: "Delete the order and save it again.")
        }
        return Timestamp(secondsSince1970: seconds, nanoseconds: Int32(nanoseconds))
    }

    /// A `PRAGMA`'s value on the connection that writes (`synchronous`, `journal_mode`): what
    /// SQLite itself says the commits run with.
    package func writerPragma(_ name: String) async throws -> String? {
        precondition(name.allSatisfy { $0.isLetter || $0 == "_" }, "a pragma name")
        return try await perform("read") { database in
            try await database.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
        }
    }

    // MARK: - Errors

    /// Runs a database operation, turning GRDB's errors into ``WalletOrdersError``.
    func perform<T: Sendable>(
        _ doing: String, _ operation: @Sendable (any DatabaseWriter) async throws -> T
    ) async throws -> T {
        do {
            return try await operation(database)
        } catch {
            throw Self.storeError(error, path: url.path, doing: doing, busyTimeout: busyTimeout)
        }
    }

    /// Runs a synchronous database operation, turning GRDB's errors into ``WalletOrdersError``.
    func performSync<T>(_ doing: String, _ operation: (any DatabaseWriter) throws -> T) throws -> T {
        do {
            return try operation(database)
        } catch {
            throw Self.storeError(error, path: url.path, doing: doing, busyTimeout: busyTimeout)
        }
    }

}
