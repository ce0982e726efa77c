public import Foundation
import GRDB
public import WalletOrders

// Device registrations and the push outbox (schema migration v4-web-service). A save that writes a
// new version enqueues its pushes in the same transaction (`enqueuePushes`), so every change that
// was acknowledged has its pushes on disk.

/// Where one kind of archive and its device registrations are kept: the web service's queries are
/// the same for orders and passes but for these names.
struct RegistrationTables: Sendable {
    /// The kind of archive.
    let kind: ArchiveKind
    /// The table of the archives' newest versions.
    let archives: String
    /// The table of device registrations.
    let registrations: String
    /// The column of the first half of the identifier (the type identifier, also the APNs topic).
    let type: String
    /// The column of the second half.
    let identifier: String

    /// `type = ? AND identifier = ?`, for both tables.
    var key: String { "\(type) = ? AND \(identifier) = ?" }

    static let orders = RegistrationTables(
        kind: .order, archives: "orders", registrations: "registrations", type: "orderTypeIdentifier", identifier: "orderIdentifier")
    static let passes = RegistrationTables(
        kind: .pass, archives: "passes", registrations: "passRegistrations", type: "passTypeIdentifier", identifier: "serialNumber")
}

extension SQLiteOrderStore: DeviceRegistrationStoring {
    public func accessRecord(for identifier: FullyQualifiedOrderIdentifier) async throws -> OrderAccessRecord? {
        try await accessRecord(for: identifier) { _ in false }?.record
    }

    public func accessRecord(for identifier: FullyQualifiedOrderIdentifier, archiveIf wantsArchive: (OrderAccessRecord) -> Bool)
        async throws -> (record: OrderAccessRecord, archive: [UInt8]?)?
    {
        // Synchronous, on a lookup connection: one indexed read on the web service's hottest path.
        // One statement, so one snapshot: the archive is the version of the record. SQLite reads
        // the archive (the last column, in overflow pages) only when it is asked for.
        try performSync("read") { _ in
            try withLookup { db -> (record: OrderAccessRecord, archive: [UInt8]?)? in
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT authenticationToken, previousAuthenticationToken, updatedAtSeconds, updatedAtNanos, updatedAtText, sha256, archive
                        FROM orders WHERE orderTypeIdentifier = ? AND orderIdentifier = ?
                        """)
                let cursor = try Row.fetchCursor(statement, arguments: [identifier.orderTypeIdentifier, identifier.orderIdentifier])
                guard let row = try cursor.next() else { return nil }
                let record = OrderAccessRecord(
                    identifier: identifier, authenticationToken: row[0], previousAuthenticationToken: row[1],
                    updatedAt: try Self.storedTimestamp(seconds: row[2], nanoseconds: row[3], text: row[4], of: identifier),
                    sha256: row[5])
                guard wantsArchive(record) else { return (record, nil) }
                // The blob's bytes copied once, straight from SQLite's buffer.
                return (record, try row.withUnsafeData(atIndex: 6) { data in data.map { [UInt8]($0) } ?? [] })
            }
        }
    }

    public func register(
        deviceIdentifier: String, pushToken: String, for order: FullyQualifiedOrderIdentifier, limits: RegistrationLimits
    ) async throws -> DeviceRegistrationResult {
        try await register(
            deviceIdentifier: deviceIdentifier, pushToken: pushToken, in: .orders, order.orderTypeIdentifier, order.orderIdentifier,
            limits: limits)
    }

    /// Registers a device for one archive of `tables`' kind (the order's or the pass's two halves).
    func register(
        deviceIdentifier: String, pushToken: String, in tables: RegistrationTables, _ type: String, _ identifier: String,
        limits: RegistrationLimits
    ) async throws -> DeviceRegistrationResult {
        try await perform("register a device in") { database in
            try await database.write { db in
                let key: [any DatabaseValueConvertible] = [type, identifier, deviceIdentifier]
                // The token is the registration's own: the device's other registrations keep theirs.
                try db.execute(
                    sql: "UPDATE \(tables.registrations) SET pushToken = ? WHERE \(tables.key) AND deviceIdentifier = ?",
                    arguments: StatementArguments([pushToken] + key))
                if db.changesCount > 0 { return .alreadyRegistered }
                // In the same transaction as the insert: an archive deleted since the caller read
                // it gets no registration (its delete removed the others).
                guard
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM \(tables.archives) WHERE \(tables.key))", arguments: [type, identifier])
                        == true
                else { return .notFound }
                // The write transaction holds the store's write lock: the counts can't change before the insert.
                try limits.checkNewRegistration(
                    archiveHas: try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM \(tables.registrations) WHERE \(tables.key)", arguments: [type, identifier]) ?? 0,
                    deviceHas: try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM \(tables.registrations) WHERE deviceIdentifier = ?", arguments: [deviceIdentifier])
                        ?? 0,
                    of: tables.kind)
                try db.execute(
                    sql: """
                        INSERT INTO \(tables.registrations) (\(tables.type), \(tables.identifier), deviceIdentifier, pushToken, createdAt)
                        VALUES (?, ?, ?, ?, ?)
                        """, arguments: StatementArguments(key + [pushToken, Date().timeIntervalSince1970]))
                return .created
            }
        }
    }

    @discardableResult
    public func keepPreviousAuthenticationToken(_ token: String, for order: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await perform("keep a previous token in") { database in
            try await database.write { db in
                try db.execute(
                    sql: """
                        UPDATE orders SET previousAuthenticationToken = ?
                        WHERE orderTypeIdentifier = ? AND orderIdentifier = ? AND previousAuthenticationToken IS NULL
                            AND authenticationToken IS NOT ?
                        """, arguments: [token, order.orderTypeIdentifier, order.orderIdentifier, token])
                return db.changesCount > 0
            }
        }
    }

    @discardableResult
    public func unregister(deviceIdentifier: String, from order: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await unregister(deviceIdentifier: deviceIdentifier, in: .orders, order.orderTypeIdentifier, order.orderIdentifier)
    }

    /// Removes a device's registration for one archive of `tables`' kind.
    func unregister(deviceIdentifier: String, in tables: RegistrationTables, _ type: String, _ identifier: String) async throws -> Bool {
        try await perform("unregister a device in") { database in
            try await database.write { db in
                try db.execute(
                    sql: "DELETE FROM \(tables.registrations) WHERE \(tables.key) AND deviceIdentifier = ?",
                    arguments: [type, identifier, deviceIdentifier])
                return db.changesCount > 0
            }
        }
    }

    public func changedOrders(deviceIdentifier: String, orderTypeIdentifier: String, since tag: String?) async throws
        -> ChangedOrders?
    {
        ChangedOrders(
            changes: try changes(deviceIdentifier: deviceIdentifier, in: .orders, orderTypeIdentifier, since: try ChangedOrders.tag(tag)),
            storeID: storeID)
    }

    /// The identifiers (second halves) of the device's archives of `type` changed after `tag`,
    /// with their change sequence, in that order.
    func changes(deviceIdentifier: String, in tables: RegistrationTables, _ type: String, since tag: OrderChangeTag?) throws
        -> [(identifier: String, sequence: Int64)]
    {
        // The tag's sequence when it is this store's, else -1 (every change). A tag ahead of the
        // store's newest change (a store restored from a backup) counts as -1 too, decided in the
        // SQL, so that one statement reads one consistent snapshot.
        let after = OrderChangeTag.changeSequence(after: tag, storeID: storeID, newest: .max)
        // Synchronous, on a lookup connection, as ``accessRecord(for:)``: one indexed join over
        // one device's registrations (bounded by the registration limits), no task suspended.
        return try performSync("read") { _ in
            try withLookup { db in
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT a.\(tables.identifier), a.changeSequence FROM \(tables.registrations) r
                        JOIN \(tables.archives) a ON a.\(tables.type) = r.\(tables.type) AND a.\(tables.identifier) = r.\(tables.identifier)
                        WHERE r.deviceIdentifier = ?1 AND r.\(tables.type) = ?2 AND a.changeSequence > (
                            CASE WHEN ?3 <= COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0) THEN ?3 ELSE -1 END)
                        ORDER BY a.changeSequence
                        """)
                return try Row.fetchAll(statement, arguments: [deviceIdentifier, type, after]).map { ($0[0], $0[1]) }
            }
        }
    }

    public func isRegistered(deviceIdentifier: String, orderTypeIdentifier: String) async throws -> Bool {
        try isRegistered(deviceIdentifier: deviceIdentifier, in: .orders, orderTypeIdentifier)
    }

    /// Whether the device has a registration for any archive of `type`.
    func isRegistered(deviceIdentifier: String, in tables: RegistrationTables, _ type: String) throws -> Bool {
        try performSync("read") { _ in
            try withLookup { db -> Bool in
                let statement = try db.cachedStatement(
                    sql: "SELECT 1 FROM \(tables.registrations) WHERE deviceIdentifier = ? AND \(tables.type) = ? LIMIT 1")
                return try Bool.fetchOne(statement, arguments: [deviceIdentifier, type]) ?? false
            }
        }
    }

    @discardableResult
    public func removeRegistrations(pushToken: String, orderTypeIdentifier: String) async throws -> Int {
        try await perform("remove registrations from") { database in
            try await database.write { db in try Self.forget(db, pushToken: pushToken, topic: orderTypeIdentifier) }
        }
    }

    /// Removes the registrations with `pushToken` for orders or passes of `topic` (a type
    /// identifier names one kind or the other) and the pushes waiting for them; returns how many
    /// registrations.
    private static func forget(_ db: Database, pushToken: String, topic: String) throws -> Int {
        var registrations = 0
        for tables in [RegistrationTables.orders, .passes] {
            try db.execute(
                sql: "DELETE FROM \(tables.registrations) WHERE pushToken = ? AND \(tables.type) = ?", arguments: [pushToken, topic])
            registrations += db.changesCount
        }
        try db.execute(
            sql: "DELETE FROM pushOutbox WHERE pushToken = ? AND topic = ? AND leasedUntil IS NULL", arguments: [pushToken, topic])
        return registrations
    }

    public func customerLinkSecret() async throws -> [UInt8] {
        var hex = try await perform("read") { database in
            try await database.read { db in try String.fetchOne(db, sql: "SELECT value FROM storeInfo WHERE key = 'customerLinkSecret'") }
        }
        if hex == nil {
            // Made by the v4 migration; made here for a store whose secret was removed by hand.
            hex = try await perform("write") { database in
                try await database.write { db in
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO storeInfo (key, value) VALUES ('customerLinkSecret', ?)", arguments: [Self.randomSecret()])
                    return try String.fetchOne(db, sql: "SELECT value FROM storeInfo WHERE key = 'customerLinkSecret'")
                }
            }
        }
        guard let hex else {
            throw WalletOrdersError(
                .storeCorrupt, "The order store \(url.path) has no customer link secret.", hint: "Restore the store from a backup.")
        }
        guard let secret = DeviceRegistration.secret(hex: hex) else {
            throw WalletOrdersError(
                .storeCorrupt, "The order store \(url.path) has a damaged customer link secret.", hint: "Restore the store from a backup.")
        }
        return secret
    }

    public func acceptCustomerLinkSecret(_ secret: [UInt8]) async throws {
        try DeviceRegistration.checkSecret(secret)
        let hex = DeviceRegistration.hex(secret)
        try await perform("write") { database in
            try await database.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO storeInfo (key, value) VALUES (?, ?)",
                    arguments: [DeviceRegistration.acceptedSecretKeyPrefix + hex, hex])
            }
        }
    }

    public func customerLinkSecrets() async throws -> [[UInt8]] {
        let primary = try await customerLinkSecret()
        let accepted = try await perform("read") { database in
            try await database.read { db in
                try String.fetchAll(
                    db, sql: "SELECT value FROM storeInfo WHERE key LIKE ? ORDER BY key",
                    arguments: [DeviceRegistration.acceptedSecretKeyPrefix + "%"])
            }
        }
        return [primary] + accepted.compactMap(DeviceRegistration.secret(hex:)).filter { $0 != primary }
    }

    public func registrations(for order: FullyQualifiedOrderIdentifier) async throws -> [DeviceRegistration] {
        try await registrations(in: .orders, order.orderTypeIdentifier, order.orderIdentifier)
    }

    /// The devices registered for one archive of `tables`' kind, by device identifier.
    func registrations(in tables: RegistrationTables, _ type: String, _ identifier: String) async throws -> [DeviceRegistration] {
        try await perform("read") { database in
            try await database.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT deviceIdentifier, pushToken FROM \(tables.registrations) WHERE \(tables.key) ORDER BY deviceIdentifier",
                    arguments: [type, identifier]
                ).map { DeviceRegistration(deviceIdentifier: $0[0], pushToken: $0[1]) }
            }
        }
    }

    public func setCustomerLinkSecret(_ secret: [UInt8]) async throws {
        try DeviceRegistration.checkSecret(secret)
        let hex = DeviceRegistration.hex(secret)
        try await perform("write") { database in
            try await database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO storeInfo (key, value) VALUES ('customerLinkSecret', ?)", arguments: [hex])
            }
        }
    }

    public func registrationCount(for order: FullyQualifiedOrderIdentifier) async throws -> Int {
        try await perform("read") { database in
            try await database.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM registrations WHERE orderTypeIdentifier = ? AND orderIdentifier = ?",
                    arguments: [order.orderTypeIdentifier, order.orderIdentifier]) ?? 0
            }
        }
    }
}

extension SQLiteOrderStore: OrderChangeSequencing {
    public func newestChangeSequence() async throws -> Int64 {
        try await perform("read") { database in
            try await database.read { db in try Self.newestChangeSequence(db) }
        }
    }

    public func continueChangeSequence(after sequence: Int64) async throws {
        try await perform("write") { database in
            try await database.write { db in
                // The `changes` log's AUTOINCREMENT counter numbers every change (and so every tag).
                try db.execute(
                    sql: """
                        INSERT INTO sqlite_sequence (name, seq) SELECT 'changes', 0
                        WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'changes')
                        """)
                try db.execute(
                    sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'changes' AND seq < ?", arguments: [sequence, sequence])
            }
        }
    }

    /// The number of the newest change: the `changes` log's AUTOINCREMENT counter.
    static func newestChangeSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
    }
}

extension SQLiteOrderStore: PushOutboxStoring {
    public func claimPushes(limit: Int, lease: Duration, now: Date) async throws -> [PendingPush] {
        guard limit > 0 else { return [] }
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await perform("claim pushes from") { database in
            try await database.write { db in
                // Each order type's pushes take turns (its first, then every type's second, …),
                // so one merchant's fan-out never holds back another's. Only the first `limit` due
                // pushes of each type can be in the batch, and each type's are read from the
                // `pushOutboxTurns` index in due order (the types themselves by a skip scan of
                // it), so a claim costs the same with a hundred pushes waiting or a million.
                let statement = try db.cachedStatement(
                    sql: """
                        WITH RECURSIVE topics(topic) AS (
                            SELECT MIN(topic) FROM pushOutbox WHERE parkedSince IS NULL
                            UNION ALL
                            SELECT (SELECT MIN(topic) FROM pushOutbox WHERE parkedSince IS NULL AND topic > topics.topic)
                            FROM topics WHERE topic IS NOT NULL),
                        candidates AS (
                            SELECT p.id, p.topic, p.notBefore FROM topics JOIN pushOutbox p ON p.id IN (
                                SELECT q.id FROM pushOutbox q INDEXED BY pushOutboxTurns
                                WHERE q.topic = topics.topic AND q.parkedSince IS NULL AND q.notBefore <= ?2
                                    AND (q.leasedUntil IS NULL OR q.leasedUntil <= ?2)
                                ORDER BY q.notBefore, q.id LIMIT ?3))
                        UPDATE pushOutbox SET leasedUntil = ?1, attempts = attempts + 1
                        WHERE id IN (
                            SELECT id FROM (
                                SELECT id, notBefore, ROW_NUMBER() OVER (PARTITION BY topic ORDER BY notBefore, id) AS turn
                                FROM candidates)
                            ORDER BY turn, notBefore, id LIMIT ?3)
                        RETURNING id, pushToken, topic, attempts, enqueuedAt
                        """)
                let rows = try Row.fetchAll(statement, arguments: [until, nowSeconds, limit])
                return rows.map {
                    PendingPush(
                        id: $0[0], pushToken: $0[1], topic: $0[2], attempts: $0[3],
                        enqueuedAt: Date(timeIntervalSince1970: $0[4]))
                }
            }
        }
    }

    public func claimParkedPushes(lease: Duration, now: Date) async throws -> [PendingPush] {
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await perform("claim pushes from") { database in
            try await database.write { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        UPDATE pushOutbox SET leasedUntil = ?, attempts = attempts + 1
                        WHERE id IN (
                            SELECT MIN(id) FROM pushOutbox
                            WHERE parkedSince IS NOT NULL AND (leasedUntil IS NULL OR leasedUntil <= ?) GROUP BY topic)
                        RETURNING id, pushToken, topic, attempts, enqueuedAt
                        """, arguments: [until, nowSeconds]
                ).map { PendingPush(id: $0[0], pushToken: $0[1], topic: $0[2], attempts: $0[3], enqueuedAt: Date(timeIntervalSince1970: $0[4])) }
            }
        }
    }

    @discardableResult
    public func resumeParkedPushes(topic: String, now: Date) async throws -> Int {
        try await perform("update the push outbox of") { database in
            try await database.write { db in
                try db.execute(
                    sql: "UPDATE pushOutbox SET parkedSince = NULL, notBefore = ? WHERE topic = ? AND parkedSince IS NOT NULL",
                    arguments: [now.timeIntervalSince1970, topic])
                return db.changesCount
            }
        }
    }

    public func complete(_ completed: [CompletedPush]) async throws {
        guard !completed.isEmpty else { return }
        try await perform("update the push outbox of") { database in
            try await database.write { db in
                let remove = try db.cachedStatement(sql: "DELETE FROM pushOutbox WHERE id = ?")
                for (push, completion) in completed.map({ ($0.push, $0.completion) }) {
                    switch completion {
                    case .remove:
                        try remove.execute(arguments: [push.id])
                    case .tokenGone:
                        try remove.execute(arguments: [push.id])
                        _ = try Self.forget(db, pushToken: push.pushToken, topic: push.topic)
                    case .retry(let notBefore):
                        try Self.requeue(db, push.id, notBefore: notBefore.timeIntervalSince1970)
                    case .park:
                        try Self.requeue(db, push.id, notBefore: Date().timeIntervalSince1970, parked: true)
                    }
                }
            }
        }
    }

    public func release(_ pushes: [PendingPush]) async throws {
        guard !pushes.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        try await perform("update the push outbox of") { database in
            try await database.write { db in
                for push in pushes { try Self.requeue(db, push.id, notBefore: now) }
            }
        }
    }

    public func outboxStatus(now: Date) async throws -> PushOutboxStatus {
        try await perform("read") { database in
            try await database.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*), COUNT(parkedSince),
                            MIN(CASE WHEN parkedSince IS NULL THEN MAX(notBefore, COALESCE(leasedUntil, 0)) END),
                            MIN(enqueuedAt)
                        FROM pushOutbox
                        """)
                let next: Double? = row?[2]
                let oldest: Double? = row?[3]
                return PushOutboxStatus(
                    pending: row?[0] ?? 0, parked: row?[1] ?? 0, nextDue: next.map { Date(timeIntervalSince1970: $0) },
                    oldestEnqueuedAt: oldest.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    /// Puts a claimed push back, due at `notBefore` (or parked); when a newer push for the same
    /// token and topic is already waiting (a change arrived while this one was out), that one
    /// stands for both and this one is removed.
    private static func requeue(_ db: Database, _ id: Int64, notBefore: Double, parked: Bool = false) throws {
        try db.execute(
            sql: """
                DELETE FROM pushOutbox WHERE id = ? AND EXISTS (
                    SELECT 1 FROM pushOutbox other, pushOutbox this
                    WHERE this.id = ? AND other.pushToken = this.pushToken AND other.topic = this.topic
                        AND other.leasedUntil IS NULL AND other.id <> this.id)
                """, arguments: [id, id])
        try db.execute(
            sql: """
                UPDATE pushOutbox SET leasedUntil = NULL, notBefore = ?,
                    parkedSince = CASE WHEN ? THEN COALESCE(parkedSince, ?) END
                WHERE id = ?
                """, arguments: [notBefore, parked, notBefore, id])
    }
}

extension SQLiteOrderStore {
    /// After a save wrote a new version of `order`: one push per token registered for it, unless
    /// one for the same token and topic is already waiting (it will tell the device all the same).
    static func enqueuePushes(_ db: Database, for order: FullyQualifiedOrderIdentifier) throws {
        try enqueuePushes(db, in: .orders, order.orderTypeIdentifier, order.orderIdentifier)
    }

    /// Queues a push to every device registered for one archive of `tables`' kind, its type
    /// identifier the topic, unless one for the same token and topic is waiting already.
    static func enqueuePushes(_ db: Database, in tables: RegistrationTables, _ type: String, _ identifier: String) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO pushOutbox (pushToken, topic, enqueuedAt, notBefore)
                SELECT DISTINCT pushToken, \(tables.type), ?, ? FROM \(tables.registrations) WHERE \(tables.type) = ? AND \(tables.identifier) = ?
                ON CONFLICT (pushToken, topic) WHERE leasedUntil IS NULL DO NOTHING
                """)
        let now = Date().timeIntervalSince1970
        try statement.execute(arguments: [now, now, type, identifier])
    }

    /// 32 random bytes from OpenSSL's generator, as hex.
    static func randomSecret() -> String { RandomSecret.hex(bytes: 32) }

    /// Schema v9: the outbox's pushes of each order type in due order, for ``claimPushes(limit:lease:now:)``.
    static func migrateToPushTurns(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX pushOutboxTurns ON pushOutbox (topic, notBefore) WHERE parkedSince IS NULL")
    }

    /// Schema v7: pushes whose credentials APNs refused are parked, not dropped.
    static func migrateToParkedPushes(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE pushOutbox ADD COLUMN parkedSince REAL;
                CREATE INDEX pushOutboxParked ON pushOutbox (topic) WHERE parkedSince IS NOT NULL;
                """)
    }

    /// Schema v6: the push token moves from the device to each registration (device and order),
    /// copied from the device into every one of its registrations, so none is lost.
    static func migrateToRegistrationTokens(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE registrations ADD COLUMN pushToken TEXT NOT NULL DEFAULT '';
                UPDATE registrations SET pushToken = COALESCE(
                    (SELECT pushToken FROM devices WHERE devices.deviceIdentifier = registrations.deviceIdentifier), '');
                DELETE FROM registrations WHERE pushToken = '';
                DROP TABLE devices;
                CREATE INDEX registrationsByPushToken ON registrations (pushToken, orderTypeIdentifier);
                """)
    }

    /// The web service's tables. `changeSequence` is the `changes` entry of an order's latest
    /// version, the tag of `changedOrders`; `authenticationToken` is read from each stored archive.
    static func migrateToWebService(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE orders ADD COLUMN authenticationToken TEXT;
                ALTER TABLE orders ADD COLUMN changeSequence INTEGER NOT NULL DEFAULT 0;
                UPDATE orders SET changeSequence = COALESCE((
                    SELECT MAX(sequence) FROM changes c
                    WHERE c.orderTypeIdentifier = orders.orderTypeIdentifier AND c.orderIdentifier = orders.orderIdentifier), 0);
                CREATE TABLE devices (
                    deviceIdentifier TEXT PRIMARY KEY NOT NULL,
                    pushToken TEXT NOT NULL,
                    updatedAt REAL NOT NULL
                );
                CREATE INDEX devicesByPushToken ON devices (pushToken);
                CREATE TABLE registrations (
                    orderTypeIdentifier TEXT NOT NULL,
                    orderIdentifier TEXT NOT NULL,
                    deviceIdentifier TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (orderTypeIdentifier, orderIdentifier, deviceIdentifier)
                );
                CREATE INDEX registrationsByDevice ON registrations (deviceIdentifier, orderTypeIdentifier);
                CREATE TABLE pushOutbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    pushToken TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    enqueuedAt REAL NOT NULL,
                    notBefore REAL NOT NULL,
                    leasedUntil REAL,
                    attempts INTEGER NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX pushOutboxWaiting ON pushOutbox (pushToken, topic) WHERE leasedUntil IS NULL;
                CREATE INDEX pushOutboxDue ON pushOutbox (notBefore);
                """)
        try db.execute(sql: "INSERT INTO storeInfo (key, value) VALUES ('customerLinkSecret', ?)", arguments: [randomSecret()])
        // The token of orders stored before: read once from each archive.
        let rows = try Row.fetchCursor(db, sql: "SELECT rowid, archive FROM orders")
        var tokens: [(Int64, String)] = []
        while let row = try rows.next() {
            let bytes: Data = row[1]
            if let token = try? OrderArchive(data: bytes).order().authenticationToken { tokens.append((row[0], token)) }
        }
        for (rowid, token) in tokens {
            try db.execute(sql: "UPDATE orders SET authenticationToken = ? WHERE rowid = ?", arguments: [token, rowid])
        }
    }
}
