// The store's OrderStoring contract on one connection pool: saving, batches, queries, history,
// compaction, deletion. Leasing connections is in +Connections; the web service's side, the
// schema and the error mapping are in +WebService, +Schema and +Errors.

public import Foundation
public import Logging
import NIOCore
import PostgresNIO
public import ServiceLifecycle
import Synchronization
public import WalletOrders
public import WalletOrdersStore

/// An ``OrderStoring`` (with the web service's registrations and push outbox) in a PostgreSQL
/// database, through postgres-nio's connection pool: one store for many servers.
///
/// - **The same contract** as ``SQLiteOrderStore`` and ``InMemoryOrderStore``: every save decides
///   with ``OrderStoreDecision`` inside the transaction that writes.
/// - **Order writers take one lock**: every transaction that changes orders (save, delete,
///   compaction) first locks the row of the change counter (`SELECT … FOR UPDATE`), so writes
///   from every server on the database behave like some serial order (compare-and-replace, no
///   lost update, no duplicate row), and history sequence numbers become visible in order, so a
///   history token never skips a change that commits late. This is SQLite's one-writer rule
///   across servers for orders; reads never wait. Registrations and the push outbox's updates
///   touch their own rows and don't take this lock.
/// - **Durability** is the server's: an acknowledged save is committed (with the server's
///   default `synchronous_commit = on`, flushed to its WAL).
/// - **Schema:** named migrations in `wallet_orders_migrations`, applied in one transaction under
///   `pg_advisory_xact_lock`, so servers starting together migrate once; a schema newer than
///   this code throws ``WalletOrdersError/Code/storeTooNew`` and is left alone.
/// - **Push outbox:** workers on several servers claim due pushes with `FOR UPDATE SKIP LOCKED`
///   and a lease; two workers never claim the same push while its lease runs. Delivery is at
///   least once: a push whose worker dies mid-send is claimed again when its lease expires.
/// - **Errors:** an unreachable server or database, a full pool and a timed-out statement give
///   ``WalletOrdersError/Code/storeUnavailable``; rejected credentials
///   ``WalletOrdersError/Code/storeAccessDenied``; each names the server (never the password)
///   and says what to check.
///
/// The connection pool runs either by itself, from the store's creation until ``close()`` (call
/// it when done), or as a ServiceLifecycle service of a server's group
/// (``PoolRunner/serviceGroup``): then it runs while ``run()`` runs and stops at the group's
/// graceful shutdown, after the services listed after it (the HTTP server, the push worker).
public final class PostgresOrderStore: OrderStoring, DeviceRegistrationStoring, PushOutboxStoring, Service {
    /// Who runs the store's connection pool.
    public enum PoolRunner: Sendable, Hashable {
        /// The store, from its creation until ``PostgresOrderStore/close()`` (command-line tools,
        /// scripts, tests). ``PostgresOrderStore/run()`` then only waits for the group's shutdown.
        case store
        /// The service group the store is a service of: the pool runs while
        /// ``PostgresOrderStore/run()`` runs. Calls before the group starts wait for it.
        case serviceGroup
    }

    /// Where the store connects.
    public let configuration: PostgresStoreConfiguration
    let client: PostgresClient
    /// The pool's run, when the store runs it itself (``PoolRunner/store``).
    let runTask: Task<Void, Never>?
    /// Where the store's own tasks run (`nil`: Swift's default executor).
    let taskExecutor: (any TaskExecutor)?
    let connectionWatch = ConnectionWatch()
    /// Concurrent ``save(verifiedArchives:)`` calls share one transaction (one commit).
    private let saveGroups = GroupCommit<VerifiedOrderArchive, Result<OrderSaveReceipt, WalletOrdersError>>()
    /// How far ahead of the clock an archive's `updatedAt` may be.
    public let updatedAtLimit: UpdatedAtLimit
    let logger: Logger
    /// The store's random identifier, made by the first migration (history tokens carry it).
    let storeID: String

    /// Connects to the database named by a `postgres://` URL, creating or upgrading the schema.
    ///
    /// - Parameters:
    ///   - url: A `postgres://` or `postgresql://` URL (see ``PostgresStoreConfiguration``).
    ///   - environment: Where libpq's `PG…` variables are read for what the URL leaves out.
    ///   - logger: Where postgres-nio logs its background work (default: nowhere).
    ///   - updatedAtLimit: How far ahead of this process's clock an archive's `updatedAt` may
    ///     be; one further ahead is refused with ``WalletOrdersError/Code/updatedAtInFuture``.
    ///   - poolRunner: Who runs the connection pool (default: the store itself).
    ///   - taskExecutor: Where the store runs the tasks it starts itself: each call's wait for a
    ///     pooled connection (and the call, on the connection it got), and the pool when the store
    ///     runs it. `nil` (the default) is Swift's default executor. Give the executor your service
    ///     runs on when it has one of its own, so that a default executor kept busy elsewhere in
    ///     the process can't hold up the store's calls.
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/invalidConfiguration`` (a bad
    ///   URL), ``WalletOrdersError/Code/storeUnavailable`` (the server or database can't be
    ///   reached), ``WalletOrdersError/Code/storeAccessDenied`` (credentials refused) or
    ///   ``WalletOrdersError/Code/storeTooNew`` (a schema from a newer wallet-orders).
    public convenience init(
        url: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger? = nil,
        updatedAtLimit: UpdatedAtLimit = .default, poolRunner: PoolRunner = .store, taskExecutor: (any TaskExecutor)? = nil
    ) async throws {
        try await self.init(
            configuration: try PostgresStoreConfiguration(url: url, environment: environment),
            logger: logger, updatedAtLimit: updatedAtLimit, poolRunner: poolRunner, taskExecutor: taskExecutor)
    }

    /// Connects with `configuration`, creating or upgrading the schema.
    ///
    /// One connection is made first, outside the pool, so that an unreachable server, a missing
    /// database or refused credentials fail here, at once, with their own error.
    ///
    /// - Throws: As ``init(url:environment:logger:updatedAtLimit:poolRunner:taskExecutor:)``.
    public init(
        configuration: PostgresStoreConfiguration, logger: Logger? = nil,
        updatedAtLimit: UpdatedAtLimit = .default, poolRunner: PoolRunner = .store, taskExecutor: (any TaskExecutor)? = nil
    ) async throws {
        self.configuration = configuration
        self.taskExecutor = taskExecutor
        self.updatedAtLimit = updatedAtLimit
        let logger = logger ?? Logger(label: "wallet-orders.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        self.logger = logger
        let errors = ErrorContext(configuration: configuration)
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(), id: 1, logger: logger)
            do {
                storeID = try await Self.migrate(connection, logger: logger, errors: errors)
                try? await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            throw errors.storeError(error, doing: "open")
        }
        let client: PostgresClient
        do {
            client = PostgresClient(configuration: try configuration.clientConfiguration(), backgroundLogger: logger)
        } catch {
            throw errors.storeError(error, doing: "open")
        }
        self.client = client
        switch poolRunner {
        case .store: runTask = Task(executorPreference: taskExecutor) { await client.run() }
        case .serviceGroup: runTask = nil
        }
    }

    deinit {
        runTask?.cancel()
    }

    // MARK: - Saving

    public func save(verifiedArchive incoming: VerifiedOrderArchive, confirm: (@Sendable (SaveProposal) async -> Bool)?)
        async throws -> SaveOrderResult
    {
        // Other servers may save while the handler runs: each transaction decides again.
        return try await ConfirmedSave.run(incoming, limit: updatedAtLimit, confirm: confirm) { save in
            try await writeTransaction("save to") { connection, writer in
                let stored = try await Self.storedVersion(connection, incoming.identifier, logger: writer.logger)
                switch save.step(stored: stored) {
                case .conclude(let outcome):
                    return outcome
                case .write(let replacing):
                    try await writer.write(connection, incoming, replacing: replacing)
                    return .done(.added)
                }
            }
        }
    }

    /// Saves that overlap in time are written together (``GroupCommit``): one transaction and
    /// one commit for all of them, each still durable when its answer comes back.
    public func save(verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        try await saveGroups.submit(verifiedArchives) { [self] group in try await commit(group) }
    }

    /// Writes `verifiedArchives` in one transaction, one after the other.
    private func commit(_ verifiedArchives: [VerifiedOrderArchive]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        let limit = updatedAtLimit
        return try await writeTransaction("save to") { connection, writer in
            var results: [Result<OrderSaveReceipt, WalletOrdersError>] = []
            results.reserveCapacity(verifiedArchives.count)
            for incoming in verifiedArchives {
                if let refusal = limit.refusal(of: incoming) {
                    results.append(.failure(refusal))
                    continue
                }
                let stored = try await Self.storedVersion(connection, incoming.identifier, logger: writer.logger)
                switch OrderStoreDecision.save(stored: stored, incoming: incoming.version) {
                case .keep(let result):
                    results.append(.success(incoming.receipt(result, storeChanged: false)))
                case .conflict(let stored, let incomingVersion):
                    results.append(
                        .failure(OrderStoreDecision.conflictError(incoming.identifier, stored: stored, incoming: incomingVersion)))
                case .insert, .replace:
                    try await writer.write(connection, incoming, replacing: stored != nil)
                    results.append(.success(incoming.receipt(.added, storeChanged: true)))
                }
            }
            return results
        }
    }

    // MARK: - Reading

    public func contains(matching identifier: FullyQualifiedOrderIdentifier, updatedDate: Timestamp?) async throws
        -> ContainsOrderResult
    {
        let version = try await withConnection("read") { [logger] connection -> (Int64, Int64)? in
            let rows = try await connection.query(
                """
                SELECT updated_at_seconds, updated_at_nanos FROM orders
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                """, logger: logger)
            for try await row in rows { return try row.decode((Int64, Int64).self) }
            return nil
        }
        guard let (seconds, nanos) = version else { return .notFound }
        let stored = Timestamp(secondsSince1970: seconds, nanoseconds: Int32(clamping: nanos))
        return OrderStoreDecision.contains(stored: stored, updatedDate: updatedDate)
    }

    public func archive(for identifier: FullyQualifiedOrderIdentifier) async throws -> [UInt8]? {
        try await withConnection("read") { [logger] connection -> [UInt8]? in
            let rows = try await connection.query(
                """
                SELECT archive FROM orders
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                """, logger: logger)
            for try await row in rows {
                let buffer = try row.decode(ByteBuffer.self)
                return Array(buffer.readableBytesView)
            }
            return nil
        }
    }

    public func summary(for identifier: FullyQualifiedOrderIdentifier) async throws -> StoredOrderSummary? {
        try await withConnection("read") { [logger] connection -> StoredOrderSummary? in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.summaryColumns) FROM orders
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                """, logger: logger)
            for try await row in rows { return try Self.summary(row) }
            return nil
        }
    }

    public func list(_ query: OrderQuery) async throws -> OrderListPage {
        try query.checkCursor()
        var conditions: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let type = query.orderTypeIdentifier { conditions.append("order_type_identifier = \(bind(type))") }
        if let types = query.orderTypeIdentifiers { conditions.append("order_type_identifier = ANY(\(bind(types.sorted())))") }
        if let status = query.status { conditions.append("status = \(bind(status))") }
        if let since = query.updatedSince {
            conditions.append(
                "(updated_at_seconds, updated_at_nanos) >= (\(bind(since.secondsSince1970)), \(bind(Int64(since.nanoseconds))))")
        }
        let order: String
        let key = "(updated_at_seconds, updated_at_nanos, order_type_identifier, order_identifier)"
        switch query.sort {
        case .updatedAtDescending:
            order = "updated_at_seconds DESC, updated_at_nanos DESC, order_type_identifier DESC, order_identifier DESC"
            if let after = query.after {
                conditions.append(
                    "\(key) < (\(bind(after.seconds)), \(bind(Int64(after.nanoseconds))), \(bind(after.orderTypeIdentifier)), \(bind(after.orderIdentifier)))"
                )
            }
        case .updatedAtAscending:
            order = "updated_at_seconds, updated_at_nanos, order_type_identifier, order_identifier"
            if let after = query.after {
                conditions.append(
                    "\(key) > (\(bind(after.seconds)), \(bind(Int64(after.nanoseconds))), \(bind(after.orderTypeIdentifier)), \(bind(after.orderIdentifier)))"
                )
            }
        case .identifier:
            order = "order_type_identifier, order_identifier"
            if let after = query.after {
                conditions.append(
                    "(order_type_identifier, order_identifier) > (\(bind(after.orderTypeIdentifier)), \(bind(after.orderIdentifier)))")
            }
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let limit = bind(Int64(query.limit) + 1)
        let sql = "SELECT \(Self.summaryColumns) FROM orders \(filter) ORDER BY \(order) LIMIT \(limit)"
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        let summaries = try await withConnection("read") { [logger] connection -> [StoredOrderSummary] in
            var summaries: [StoredOrderSummary] = []
            for try await row in try await connection.query(statement, logger: logger) {
                summaries.append(try Self.summary(row))
            }
            return summaries
        }
        let orders = Array(summaries.prefix(query.limit))
        return OrderListPage(orders: orders, nextCursor: summaries.count > query.limit ? orders.last?.cursor(query.sort) : nil)
    }

    public func delete(_ identifier: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await writeTransaction("delete from") { connection, writer in
            let rows = try await connection.query(
                """
                DELETE FROM orders
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                RETURNING 1
                """, logger: writer.logger)
            var deleted = false
            for try await _ in rows { deleted = true }
            guard deleted else { return false }
            // Its devices' registrations go with it (as on SQLite).
            try await connection.query(
                """
                DELETE FROM registrations
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                """, logger: writer.logger)
            try await writer.logChange(connection, identifier, .deleted)
            return deleted
        }
    }

    /// The number of stored orders.
    public func count() async throws -> Int {
        try await withConnection("read") { [logger] connection -> Int in
            for try await row in try await connection.query("SELECT count(*) FROM orders", logger: logger) {
                return Int(try row.decode(Int64.self))
            }
            return 0
        }
    }

    // MARK: - History

    public func history(since token: OrderHistoryToken?, limit: Int?) async throws -> OrderChanges {
        try await changeLog(
            of: .order, since: token, limit: limit,
            present: "SELECT order_type_identifier, order_identifier FROM orders ORDER BY order_type_identifier, order_identifier"
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
        return try await readTransaction("read") { connection, logger in
            let floor = try await Self.historyFloor(connection, logger: logger)
            let newest = try await Self.newestSequence(connection, logger: logger)
            let start: Int64
            if let token {
                start = try StoreChanges<Identifier>.start(after: token, storeID: storeID, floor: floor, newest: newest)
            } else if floor > 0 {
                // The log no longer starts at the beginning: describe the present instead.
                var identifiers: [Identifier] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: present), logger: logger) {
                    let (first, second) = try row.decode((String, String).self)
                    identifiers.append(identifier(first, second))
                }
                return StoreChanges(
                    inserted: identifiers, updated: [], deleted: [],
                    newToken: OrderHistoryToken(storeID: storeID, sequence: newest), hasMore: false)
            } else {
                start = 0
            }
            let fetch = limit.map { Int64(max(1, $0)) + 1 } ?? Int64.max
            var records: [ChangeRecord<Identifier>] = []
            let rows = try await connection.query(
                """
                SELECT sequence, order_type_identifier, order_identifier, kind FROM changes
                WHERE sequence > \(start) AND archive_kind = \(kind.rawValue) ORDER BY sequence LIMIT \(fetch)
                """, logger: logger)
            for try await row in rows {
                let (sequence, first, second, change) = try row.decode((Int64, String, String, String).self)
                records.append(
                    ChangeRecord(
                        sequence: sequence, identifier: identifier(first, second),
                        kind: ChangeRecord<Identifier>.Kind(rawValue: change) ?? .updated))
            }
            return StoreChanges.page(records, after: start, limit: limit, storeID: storeID)
        }
    }

    /// Drops all but the newest `count` entries of the change log, as
    /// ``SQLiteOrderStore/compactHistory(keepingLast:)`` does.
    ///
    /// - Returns: The number of entries removed.
    @discardableResult
    public func compactHistory(keepingLast count: Int) async throws -> Int {
        try await writeTransaction("compact") { connection, writer in
            let floor = writer.sequence - Int64(max(0, count))
            guard floor > (try await Self.historyFloor(connection, logger: writer.logger)) else { return 0 }
            var removed = 0
            for try await _ in try await connection.query(
                "DELETE FROM changes WHERE sequence <= \(floor) RETURNING 1", logger: writer.logger)
            {
                removed += 1
            }
            try await connection.query(
                "UPDATE store_info SET value = \(String(floor)) WHERE key = 'historyFloor'", logger: writer.logger)
            return removed
        }
    }

    // MARK: - Rows

    static let summaryColumns =
        "order_type_identifier, order_identifier, updated_at_seconds, updated_at_nanos, status, sha256, octet_length(archive), saved_at, updated_at_text"

    static func summary(_ row: PostgresRow) throws -> StoredOrderSummary {
        let (type, order, seconds, nanos, status, sha256, size, saved, text) = try row.decode(
            (String, String, Int64, Int64, String, String, Int32, String, String).self)
        let identifier = FullyQualifiedOrderIdentifier(orderTypeIdentifier: type, orderIdentifier: order)
        return StoredOrderSummary(
            identifier: identifier, updatedAt: try storedTimestamp(seconds: seconds, nanoseconds: nanos, text: text, of: identifier),
            status: status, sha256: sha256, archiveSize: Int(size),
            savedAt: (try? Timestamp(rfc3339: saved)) ?? Timestamp(secondsSince1970: 0))
    }

    /// The stored `updatedAt`: the text as the order wrote it, when it still denotes the stored instant.
    static func storedTimestamp(seconds: Int64, nanoseconds: Int64, text: String, of identifier: FullyQualifiedOrderIdentifier)
        throws -> Timestamp
    {
        guard (0..<1_000_000_000).contains(nanoseconds), (Timestamp.minimumSeconds...Timestamp.maximumSeconds).contains(seconds)
        else {
            throw WalletOrdersError(
                .storeCorrupt, "The stored updatedAt of \(identifier) is out of range (\(seconds) s, \(nanoseconds) ns).",
                hint: "Delete the order and save it again.")
        }
        let instant = Timestamp(secondsSince1970: seconds, nanoseconds: Int32(nanoseconds))
        return (try? Timestamp(rfc3339: text)).flatMap { $0 == instant ? $0 : nil } ?? instant
    }

    static func storedVersion(_ connection: PostgresConnection, _ identifier: FullyQualifiedOrderIdentifier, logger: Logger)
        async throws -> OrderVersion?
    {
        let rows = try await connection.query(
            """
            SELECT updated_at_text, sha256, content_digest FROM orders
            WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
            """, logger: logger)
        for try await row in rows {
            let (text, sha256, digest) = try row.decode((String, String, String?).self)
            do {
                return OrderVersion(updatedAt: try Timestamp(rfc3339: text), sha256: sha256, contentDigest: digest)
            } catch {
                throw WalletOrdersError(
                    .storeCorrupt, "The stored updatedAt of \(identifier) is not an RFC 3339 date-time: \(text)", underlying: error)
            }
        }
        return nil
    }

    static func historyFloor(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await row in try await connection.query("SELECT value FROM store_info WHERE key = 'historyFloor'", logger: logger) {
            return Int64(try row.decode(String.self)) ?? 0
        }
        return 0
    }

    static func newestSequence(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await row in try await connection.query("SELECT last_sequence FROM change_counter WHERE id = 1", logger: logger) {
            return try row.decode(Int64.self)
        }
        return 0
    }
}

// MARK: - Transactions

extension PostgresOrderStore {
    /// A write transaction's view of the change counter: holds its lock, hands out sequence
    /// numbers and stores the last one at commit.
    final class Writer: @unchecked Sendable {  // used by one transaction, on one task
        let logger: Logger
        private(set) var sequence: Int64
        private let start: Int64

        init(sequence: Int64, logger: Logger) {
            self.sequence = sequence
            self.start = sequence
            self.logger = logger
        }

        var changed: Bool { sequence != start }

        /// Appends to the history log; returns the entry's sequence number.
        @discardableResult
        func logChange(_ connection: PostgresConnection, _ identifier: FullyQualifiedOrderIdentifier, _ kind: OrderChangeRecord.Kind)
            async throws -> Int64
        {
            try await logEntry(connection, identifier.orderTypeIdentifier, identifier.orderIdentifier, kind.rawValue, of: .order)
        }

        /// Appends an entry for an archive of `archiveKind` to the history log; returns its sequence number.
        @discardableResult
        func logEntry(
            _ connection: PostgresConnection, _ typeIdentifier: String, _ identifier: String, _ kind: String, of archiveKind: ArchiveKind
        ) async throws -> Int64 {
            sequence += 1
            try await connection.query(
                """
                INSERT INTO changes (sequence, order_type_identifier, order_identifier, kind, archive_kind)
                VALUES (\(sequence), \(typeIdentifier), \(identifier), \(kind), \(archiveKind.rawValue))
                """, logger: logger)
            return sequence
        }

        /// Inserts or replaces the order's row, logs the change and queues its pushes.
        func write(_ connection: PostgresConnection, _ archive: VerifiedOrderArchive, replacing: Bool) async throws {
            let sequence = try await logChange(connection, archive.identifier, replacing ? .updated : .inserted)
            let updatedAt = archive.version.updatedAt
            let id = archive.identifier
            try await connection.query(
                """
                INSERT INTO orders (order_type_identifier, order_identifier, updated_at_seconds, updated_at_nanos,
                    updated_at_text, status, archive, sha256, content_digest, saved_at, authentication_token, change_sequence)
                VALUES (\(id.orderTypeIdentifier), \(id.orderIdentifier), \(updatedAt.secondsSince1970),
                    \(Int64(updatedAt.nanoseconds)), \(updatedAt.text), \(archive.status), \(ByteBuffer(bytes: archive.bytes)),
                    \(archive.version.sha256), \(archive.version.contentDigest), \(Timestamp(Date()).text),
                    \(archive.authenticationToken), \(sequence))
                ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE SET
                    updated_at_seconds = EXCLUDED.updated_at_seconds, updated_at_nanos = EXCLUDED.updated_at_nanos,
                    updated_at_text = EXCLUDED.updated_at_text, status = EXCLUDED.status, archive = EXCLUDED.archive,
                    sha256 = EXCLUDED.sha256, content_digest = EXCLUDED.content_digest, saved_at = EXCLUDED.saved_at,
                    authentication_token = EXCLUDED.authentication_token, change_sequence = EXCLUDED.change_sequence,
                    previous_authentication_token = CASE
                        WHEN orders.authentication_token IS DISTINCT FROM EXCLUDED.authentication_token THEN orders.authentication_token
                        ELSE orders.previous_authentication_token END
                """, logger: logger)
            try await enqueuePushes(connection, in: .orders, id.orderTypeIdentifier, id.orderIdentifier)
        }

        /// Queues one push per device registered for one archive of `tables`' kind, its type identifier
        /// the topic, unless one for the same token and topic is already waiting (it will tell the
        /// device all the same). That one is locked (a no-op update) until this transaction ends: a
        /// worker claiming it now (`SKIP LOCKED`) would send it before the change is visible, the
        /// device would fetch too early, and nothing would be left to announce the change.
        func enqueuePushes(_ connection: PostgresConnection, in tables: RegistrationTables, _ type: String, _ identifier: String)
            async throws
        {
            let now = Date().timeIntervalSince1970
            try await connection.query(
                """
                INSERT INTO push_outbox (push_token, topic, enqueued_at, not_before)
                SELECT DISTINCT push_token, \(unescaped: tables.type), \(now)::double precision, \(now)::double precision
                FROM \(unescaped: tables.registrations)
                WHERE \(unescaped: tables.type) = \(type) AND \(unescaped: tables.identifier) = \(identifier)
                ON CONFLICT (push_token, topic) WHERE leased_until IS NULL DO UPDATE SET enqueued_at = push_outbox.enqueued_at
                """, logger: logger)
        }
    }

    /// Runs `body` in a transaction that holds the write lock (the change counter's row) and
    /// stores the counter at the end when it moved.
    func writeTransaction<T: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection, Writer) async throws -> T
    ) async throws -> T {
        try await withConnection(doing) { [logger] connection in
            try await Self.retryingConflicts {
                try await connection.withTransaction(logger: logger) { connection in
                    var last: Int64 = 0
                    for try await row in try await connection.query(
                        "SELECT last_sequence FROM change_counter WHERE id = 1 FOR UPDATE", logger: logger)
                    {
                        last = try row.decode(Int64.self)
                    }
                    let writer = Writer(sequence: last, logger: logger)
                    let result = try await body(connection, writer)
                    if writer.changed {
                        try await connection.query(
                            "UPDATE change_counter SET last_sequence = \(writer.sequence) WHERE id = 1", logger: logger)
                    }
                    return result
                }
            }
        }
    }

    /// Runs `body` in a read-only transaction on one snapshot (`REPEATABLE READ`).
    func readTransaction<T: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        try await withConnection(doing) { [logger] connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                return try await body(connection, logger)
            }
        }
    }

    /// Runs `body` again (up to 5 times) when the server aborted it for a serialization failure,
    /// a deadlock or a unique-key race, all of which a retry resolves.
    static func retryingConflicts<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                attempt += 1
                guard attempt < 5, let state = ErrorContext.sqlState(of: error), ["40001", "40P01", "23505"].contains(state)
                else { throw error }
            }
        }
    }
}
