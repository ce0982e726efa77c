public import Foundation
import Logging
import PostgresNIO
public import WalletOrders
public import WalletOrdersStore

// Device registrations and the push outbox. A save that writes a new version queues its pushes in
// its own transaction (`Writer.write`), so every acknowledged change has its pushes stored.

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

    static let orders = RegistrationTables(
        kind: .order, archives: "orders", registrations: "registrations", type: "order_type_identifier", identifier: "order_identifier")
    static let passes = RegistrationTables(
        kind: .pass, archives: "passes", registrations: "pass_registrations", type: "pass_type_identifier",
        identifier: "serial_number")
}

extension PostgresOrderStore {
    public func accessRecord(for identifier: FullyQualifiedOrderIdentifier) async throws -> OrderAccessRecord? {
        try await withConnection("read") { [logger] connection -> OrderAccessRecord? in
            let rows = try await connection.query(
                """
                SELECT authentication_token, previous_authentication_token, updated_at_seconds, updated_at_nanos, updated_at_text, sha256
                FROM orders
                WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                """, logger: logger)
            for try await row in rows {
                let (token, previous, seconds, nanos, text, sha256) = try row.decode((String?, String?, Int64, Int64, String, String).self)
                return OrderAccessRecord(
                    identifier: identifier, authenticationToken: token, previousAuthenticationToken: previous,
                    updatedAt: try Self.storedTimestamp(seconds: seconds, nanoseconds: nanos, text: text, of: identifier),
                    sha256: sha256)
            }
            return nil
        }
    }

    public func accessRecord(for identifier: FullyQualifiedOrderIdentifier, archiveIf wantsArchive: (OrderAccessRecord) -> Bool)
        async throws -> (record: OrderAccessRecord, archive: [UInt8]?)?
    {
        // Two statements: the record, then the archive only when it is wanted (a 304 moves no
        // archive over the connection). The second asks for the record's version by its digest:
        // when a save replaced it in between, the record is read again.
        while true {
            guard let record = try await accessRecord(for: identifier) else { return nil }
            guard wantsArchive(record) else { return (record, nil) }
            let archive = try await withConnection("read") { [logger] connection -> [UInt8]? in
                let rows = try await connection.query(
                    """
                    SELECT archive FROM orders
                    WHERE order_type_identifier = \(identifier.orderTypeIdentifier) AND order_identifier = \(identifier.orderIdentifier)
                      AND sha256 = \(record.sha256)
                    """, logger: logger)
                for try await row in rows { return Array(try row.decode(ByteBuffer.self).readableBytesView) }
                return nil
            }
            if let archive { return (record, archive) }
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
        try await withConnection("register a device in") { [logger] connection in
            try await Self.retryingConflicts {
                try await connection.withTransaction(logger: logger) { connection -> DeviceRegistrationResult in
                    // The token is the registration's own: the device's other registrations keep theirs.
                    for try await _ in try await connection.query(
                        """
                        UPDATE \(unescaped: tables.registrations) SET push_token = \(pushToken)
                        WHERE \(unescaped: tables.type) = \(type) AND \(unescaped: tables.identifier) = \(identifier)
                            AND device_identifier = \(deviceIdentifier)
                        RETURNING 1
                        """, logger: logger)
                    {
                        return .alreadyRegistered
                    }
                    // The archive's row, share-locked until the insert commits: a delete of it
                    // waits for it (and then removes this registration with the others), or has
                    // already removed the row, and nothing is registered.
                    var stored = false
                    for try await _ in try await connection.query(
                        """
                        SELECT 1 FROM \(unescaped: tables.archives)
                        WHERE \(unescaped: tables.type) = \(type) AND \(unescaped: tables.identifier) = \(identifier)
                        FOR KEY SHARE
                        """, logger: logger)
                    {
                        stored = true
                    }
                    guard stored else { return .notFound }
                    // The archive's and the device's counts can't change before the insert: new
                    // registrations of the same archive, or of the same device, take these locks
                    // (always the archive's first, so two never wait for each other).
                    // (Orders' keys are the ones servers of earlier versions take.)
                    let archiveKey = tables.kind == .order ? "\(type)/\(identifier)" : "\(tables.kind)/\(type)/\(identifier)"
                    let deviceKey = tables.kind == .order ? deviceIdentifier : "\(tables.kind)/\(deviceIdentifier)"
                    try await connection.query(
                        """
                        SELECT pg_advisory_xact_lock(\(Self.registrationLockClass), hashtext(\(archiveKey))),
                            pg_advisory_xact_lock(\(Self.registrationLockClass + 1), hashtext(\(deviceKey)))
                        """, logger: logger)
                    var counts = (archive: Int64(0), device: Int64(0))
                    for try await row in try await connection.query(
                        """
                        SELECT
                            (SELECT count(*) FROM \(unescaped: tables.registrations)
                             WHERE \(unescaped: tables.type) = \(type) AND \(unescaped: tables.identifier) = \(identifier)),
                            (SELECT count(*) FROM \(unescaped: tables.registrations) WHERE device_identifier = \(deviceIdentifier))
                        """, logger: logger)
                    {
                        counts = try row.decode((Int64, Int64).self)
                    }
                    try limits.checkNewRegistration(archiveHas: Int(counts.archive), deviceHas: Int(counts.device), of: tables.kind)
                    for try await _ in try await connection.query(
                        """
                        INSERT INTO \(unescaped: tables.registrations)
                            (\(unescaped: tables.type), \(unescaped: tables.identifier), device_identifier, push_token, created_at)
                        VALUES (\(type), \(identifier), \(deviceIdentifier), \(pushToken), \(Date().timeIntervalSince1970))
                        ON CONFLICT DO NOTHING RETURNING 1
                        """, logger: logger)
                    {
                        return .created
                    }
                    return .alreadyRegistered  // registered meanwhile by a request for the same archive and device
                }
            }
        }
    }

    /// The advisory lock class (the first key of the two-key form) of registration caps: this
    /// one for orders, the next one for devices.
    static let registrationLockClass: Int32 = 0x776F_0001

    @discardableResult
    public func keepPreviousAuthenticationToken(_ token: String, for order: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await withConnection("keep a previous token in") { [logger] connection -> Bool in
            var set = false
            for try await _ in try await connection.query(
                """
                UPDATE orders SET previous_authentication_token = \(token)
                WHERE order_type_identifier = \(order.orderTypeIdentifier) AND order_identifier = \(order.orderIdentifier)
                    AND previous_authentication_token IS NULL AND authentication_token IS DISTINCT FROM \(token)
                RETURNING 1
                """, logger: logger)
            {
                set = true
            }
            return set
        }
    }

    @discardableResult
    public func unregister(deviceIdentifier: String, from order: FullyQualifiedOrderIdentifier) async throws -> Bool {
        try await unregister(deviceIdentifier: deviceIdentifier, in: .orders, order.orderTypeIdentifier, order.orderIdentifier)
    }

    /// Removes a device's registration for one archive of `tables`' kind.
    func unregister(deviceIdentifier: String, in tables: RegistrationTables, _ type: String, _ identifier: String) async throws -> Bool {
        try await withConnection("unregister a device in") { [logger] connection in
            var removed = false
            for try await _ in try await connection.query(
                """
                DELETE FROM \(unescaped: tables.registrations) WHERE \(unescaped: tables.type) = \(type)
                    AND \(unescaped: tables.identifier) = \(identifier) AND device_identifier = \(deviceIdentifier)
                RETURNING 1
                """, logger: logger)
            {
                removed = true
            }
            return removed
        }
    }

    public func changedOrders(deviceIdentifier: String, orderTypeIdentifier: String, since tag: String?) async throws
        -> ChangedOrders?
    {
        ChangedOrders(
            changes: try await changes(
                deviceIdentifier: deviceIdentifier, in: .orders, orderTypeIdentifier, since: try ChangedOrders.tag(tag)),
            storeID: storeID)
    }

    /// The identifiers (second halves) of the device's archives of `type` changed after `tag`,
    /// with their change sequence, in that order.
    func changes(deviceIdentifier: String, in tables: RegistrationTables, _ type: String, since tag: OrderChangeTag?) async throws
        -> [(identifier: String, sequence: Int64)]
    {
        let storeID = storeID
        // One snapshot for the counter and the archives: a tag is never judged against a newer counter.
        return try await readTransaction("read") { connection, logger in
            let after = OrderChangeTag.changeSequence(
                after: tag, storeID: storeID, newest: try await Self.newestSequence(connection, logger: logger))
            var changes: [(identifier: String, sequence: Int64)] = []
            for try await row in try await connection.query(
                """
                SELECT a.\(unescaped: tables.identifier), a.change_sequence FROM \(unescaped: tables.registrations) r
                JOIN \(unescaped: tables.archives) a
                    ON a.\(unescaped: tables.type) = r.\(unescaped: tables.type) AND a.\(unescaped: tables.identifier) = r.\(unescaped: tables.identifier)
                WHERE r.device_identifier = \(deviceIdentifier) AND r.\(unescaped: tables.type) = \(type) AND a.change_sequence > \(after)
                ORDER BY a.change_sequence
                """, logger: logger)
            {
                changes.append(try row.decode((String, Int64).self))
            }
            return changes
        }
    }

    public func isRegistered(deviceIdentifier: String, orderTypeIdentifier: String) async throws -> Bool {
        try await isRegistered(deviceIdentifier: deviceIdentifier, in: .orders, orderTypeIdentifier)
    }

    /// Whether the device has a registration for any archive of `type`.
    func isRegistered(deviceIdentifier: String, in tables: RegistrationTables, _ type: String) async throws -> Bool {
        try await withConnection("read") { [logger] connection -> Bool in
            for try await _ in try await connection.query(
                """
                SELECT 1 FROM \(unescaped: tables.registrations)
                WHERE device_identifier = \(deviceIdentifier) AND \(unescaped: tables.type) = \(type) LIMIT 1
                """, logger: logger)
            {
                return true
            }
            return false
        }
    }

    @discardableResult
    public func removeRegistrations(pushToken: String, orderTypeIdentifier: String) async throws -> Int {
        try await withConnection("remove registrations from") { [logger] connection in
            try await connection.withTransaction(logger: logger) { connection -> Int in
                try await Self.forget(pushToken: pushToken, topic: orderTypeIdentifier, connection, logger: logger)
            }
        }
    }

    /// Removes the registrations with `pushToken` for orders or passes of `topic` (a type
    /// identifier names one kind or the other) and the pushes waiting for them; returns how many
    /// registrations.
    private static func forget(pushToken: String, topic: String, _ connection: PostgresConnection, logger: Logger) async throws -> Int {
        var registrations = 0
        for tables in [RegistrationTables.orders, .passes] {
            for try await _ in try await connection.query(
                """
                DELETE FROM \(unescaped: tables.registrations) WHERE push_token = \(pushToken) AND \(unescaped: tables.type) = \(topic)
                RETURNING 1
                """, logger: logger)
            {
                registrations += 1
            }
        }
        try await connection.query(
            "DELETE FROM push_outbox WHERE push_token = \(pushToken) AND topic = \(topic) AND leased_until IS NULL", logger: logger)
        return registrations
    }

    public func registrations(for order: FullyQualifiedOrderIdentifier) async throws -> [DeviceRegistration] {
        try await registrations(in: .orders, order.orderTypeIdentifier, order.orderIdentifier)
    }

    /// The devices registered for one archive of `tables`' kind, by device identifier.
    func registrations(in tables: RegistrationTables, _ type: String, _ identifier: String) async throws -> [DeviceRegistration] {
        try await withConnection("read") { [logger] connection -> [DeviceRegistration] in
            var registrations: [DeviceRegistration] = []
            for try await (device, token) in try await connection.query(
                """
                SELECT device_identifier, push_token FROM \(unescaped: tables.registrations)
                WHERE \(unescaped: tables.type) = \(type) AND \(unescaped: tables.identifier) = \(identifier)
                ORDER BY device_identifier
                """, logger: logger
            ).decode((String, String).self) {
                registrations.append(DeviceRegistration(deviceIdentifier: device, pushToken: token))
            }
            return registrations
        }
    }

    public func setCustomerLinkSecret(_ secret: [UInt8]) async throws {
        try DeviceRegistration.checkSecret(secret)
        let hex = DeviceRegistration.hex(secret)
        try await withConnection("write") { [logger] connection in
            _ = try await connection.query(
                """
                INSERT INTO store_info (key, value) VALUES ('customerLinkSecret', \(hex))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
        }
    }

    public func registrationCount(for order: FullyQualifiedOrderIdentifier) async throws -> Int {
        try await withConnection("read") { [logger] connection -> Int in
            for try await row in try await connection.query(
                """
                SELECT count(*) FROM registrations
                WHERE order_type_identifier = \(order.orderTypeIdentifier) AND order_identifier = \(order.orderIdentifier)
                """, logger: logger)
            {
                return Int(try row.decode(Int64.self))
            }
            return 0
        }
    }

    public func customerLinkSecret() async throws -> [UInt8] {
        let hex = try await withConnection("read") { [logger] connection -> String? in
            for try await row in try await connection.query(
                "SELECT value FROM store_info WHERE key = 'customerLinkSecret'", logger: logger)
            {
                return try row.decode(String.self)
            }
            return nil
        }
        guard let hex else {
            throw WalletOrdersError(
                .storeCorrupt, "\(ErrorContext(configuration: configuration).store) has no customer link secret.",
                hint: "Restore the database from a backup.")
        }
        guard let secret = DeviceRegistration.secret(hex: hex) else {
            throw WalletOrdersError(
                .storeCorrupt, "\(ErrorContext(configuration: configuration).store) has a damaged customer link secret.",
                hint: "Restore the database from a backup.")
        }
        return secret
    }

    public func acceptCustomerLinkSecret(_ secret: [UInt8]) async throws {
        try DeviceRegistration.checkSecret(secret)
        let hex = DeviceRegistration.hex(secret)
        let key = DeviceRegistration.acceptedSecretKeyPrefix + hex
        try await withConnection("write") { [logger] connection in
            _ = try await connection.query(
                "INSERT INTO store_info (key, value) VALUES (\(key), \(hex)) ON CONFLICT (key) DO NOTHING", logger: logger)
        }
    }

    public func customerLinkSecrets() async throws -> [[UInt8]] {
        let primary = try await customerLinkSecret()
        let pattern = DeviceRegistration.acceptedSecretKeyPrefix + "%"
        let accepted = try await withConnection("read") { [logger] connection -> [String] in
            var values: [String] = []
            for try await row in try await connection.query(
                "SELECT value FROM store_info WHERE key LIKE \(pattern) ORDER BY key", logger: logger)
            {
                values.append(try row.decode(String.self))
            }
            return values
        }
        return [primary] + accepted.compactMap(DeviceRegistration.secret(hex:)).filter { $0 != primary }
    }
}

// MARK: - Change sequence

extension PostgresOrderStore: OrderChangeSequencing {
    public func newestChangeSequence() async throws -> Int64 {
        try await withConnection("read") { [logger] connection in try await Self.newestSequence(connection, logger: logger) }
    }

    public func continueChangeSequence(after sequence: Int64) async throws {
        // Under the write lock, like every change: no transaction numbers a change meanwhile.
        try await writeTransaction("write") { connection, writer in
            guard sequence > writer.sequence else { return }
            try await connection.query("UPDATE change_counter SET last_sequence = \(sequence) WHERE id = 1", logger: writer.logger)
        }
    }
}

// MARK: - Push outbox

extension PostgresOrderStore {
    /// Claims up to `limit` due pushes for `lease`, the order types in turn, oldest first within a type.
    ///
    /// Rows are picked with `FOR UPDATE SKIP LOCKED`: workers on several servers claiming at the
    /// same moment skip each other's rows instead of waiting for them or claiming them twice.
    public func claimPushes(limit: Int, lease: Duration, now: Date) async throws -> [PendingPush] {
        guard limit > 0 else { return [] }
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await withConnection("claim pushes from") { [logger] connection -> [PendingPush] in
            var pushes: [PendingPush] = []
            for try await row in try await connection.query(
                """
                WITH RECURSIVE topics(topic) AS (
                    SELECT min(topic) FROM push_outbox WHERE parked_since IS NULL
                    UNION ALL
                    SELECT (SELECT min(o.topic) FROM push_outbox o WHERE o.parked_since IS NULL AND o.topic > t.topic)
                    FROM topics t WHERE t.topic IS NOT NULL),
                candidates AS (
                    SELECT c.id, c.topic, c.not_before FROM topics t CROSS JOIN LATERAL (
                        SELECT q.id, q.topic, q.not_before FROM push_outbox q
                        WHERE q.topic = t.topic AND q.parked_since IS NULL AND q.not_before <= \(nowSeconds)
                            AND (q.leased_until IS NULL OR q.leased_until <= \(nowSeconds))
                        ORDER BY q.not_before, q.id LIMIT \(Int64(limit))) c),
                turns AS (
                    SELECT id, not_before, row_number() OVER (PARTITION BY topic ORDER BY not_before, id) AS turn
                    FROM candidates),
                due AS (
                    SELECT p.id FROM push_outbox p
                    WHERE p.id IN (SELECT id FROM turns ORDER BY turn, not_before, id LIMIT \(Int64(limit)))
                        AND p.not_before <= \(nowSeconds) AND (p.leased_until IS NULL OR p.leased_until <= \(nowSeconds))
                        AND p.parked_since IS NULL
                    FOR UPDATE SKIP LOCKED),
                claimed AS (
                    UPDATE push_outbox p SET leased_until = \(until), attempts = p.attempts + 1
                    FROM due WHERE p.id = due.id
                    RETURNING p.id, p.push_token, p.topic, p.attempts, p.enqueued_at)
                SELECT id, push_token, topic, attempts, enqueued_at FROM claimed ORDER BY id
                """, logger: logger)
            {
                let (id, token, topic, attempts, enqueued) = try row.decode((Int64, String, String, Int64, Double).self)
                pushes.append(
                    PendingPush(
                        id: id, pushToken: token, topic: topic, attempts: Int(attempts),
                        enqueuedAt: Date(timeIntervalSince1970: enqueued)))
            }
            return pushes
        }
    }

    public func claimParkedPushes(lease: Duration, now: Date) async throws -> [PendingPush] {
        let nowSeconds = now.timeIntervalSince1970
        let until = nowSeconds + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await withConnection("claim pushes from") { [logger] connection -> [PendingPush] in
            var pushes: [PendingPush] = []
            for try await row in try await connection.query(
                """
                WITH due AS (
                    SELECT id FROM push_outbox
                    WHERE id IN (
                        SELECT min(id) FROM push_outbox
                        WHERE parked_since IS NOT NULL AND (leased_until IS NULL OR leased_until <= \(nowSeconds)) GROUP BY topic)
                        AND parked_since IS NOT NULL AND (leased_until IS NULL OR leased_until <= \(nowSeconds))
                    FOR UPDATE SKIP LOCKED)
                UPDATE push_outbox p SET leased_until = \(until), attempts = p.attempts + 1
                FROM due WHERE p.id = due.id
                RETURNING p.id, p.push_token, p.topic, p.attempts, p.enqueued_at
                """, logger: logger)
            {
                let (id, token, topic, attempts, enqueued) = try row.decode((Int64, String, String, Int64, Double).self)
                pushes.append(
                    PendingPush(id: id, pushToken: token, topic: topic, attempts: Int(attempts), enqueuedAt: Date(timeIntervalSince1970: enqueued)))
            }
            return pushes
        }
    }

    @discardableResult
    public func resumeParkedPushes(topic: String, now: Date) async throws -> Int {
        try await withConnection("update the push outbox of") { [logger] connection -> Int in
            var resumed = 0
            for try await _ in try await connection.query(
                """
                UPDATE push_outbox SET parked_since = NULL, not_before = \(now.timeIntervalSince1970)
                WHERE topic = \(topic) AND parked_since IS NOT NULL RETURNING 1
                """, logger: logger)
            {
                resumed += 1
            }
            return resumed
        }
    }

    public func complete(_ completed: [CompletedPush]) async throws {
        guard !completed.isEmpty else { return }
        // Delivered and dropped pushes (most of them) go in one statement; the others one by one.
        let removed = completed.filter { $0.completion == .remove }.map(\.push.id)
        let others = completed.filter { $0.completion != .remove }
        try await withConnection("update the push outbox of") { [logger] connection in
            try await Self.retryingConflicts {
                try await connection.withTransaction(logger: logger) { connection in
                    if !removed.isEmpty {
                        try await connection.query("DELETE FROM push_outbox WHERE id = ANY(\(removed))", logger: logger)
                    }
                    for (push, completion) in others.map({ ($0.push, $0.completion) }) {
                        switch completion {
                        case .remove:
                            break
                        case .tokenGone:
                            try await connection.query("DELETE FROM push_outbox WHERE id = \(push.id)", logger: logger)
                            _ = try await Self.forget(pushToken: push.pushToken, topic: push.topic, connection, logger: logger)
                        case .retry(let notBefore):
                            try await Self.requeue(connection, push.id, notBefore: notBefore.timeIntervalSince1970, logger: logger)
                        case .park:
                            try await Self.requeue(
                                connection, push.id, notBefore: Date().timeIntervalSince1970, parked: true, logger: logger)
                        }
                    }
                }
            }
        }
    }

    public func release(_ pushes: [PendingPush]) async throws {
        guard !pushes.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        try await withConnection("update the push outbox of") { [logger] connection in
            try await Self.retryingConflicts {
                try await connection.withTransaction(logger: logger) { connection in
                    for push in pushes { try await Self.requeue(connection, push.id, notBefore: now, logger: logger) }
                }
            }
        }
    }

    public func outboxStatus(now: Date) async throws -> PushOutboxStatus {
        let (pending, parked, next, oldest) = try await withConnection("read") { [logger] connection -> (Int64, Int64, Double?, Double?) in
            for try await row in try await connection.query(
                """
                SELECT count(*), count(parked_since),
                    min(greatest(not_before, coalesce(leased_until, 0))) FILTER (WHERE parked_since IS NULL),
                    min(enqueued_at)
                FROM push_outbox
                """, logger: logger)
            {
                return try row.decode((Int64, Int64, Double?, Double?).self)
            }
            return (0, 0, nil, nil)
        }
        return PushOutboxStatus(
            pending: Int(pending), parked: Int(parked), nextDue: next.map { Date(timeIntervalSince1970: $0) },
            oldestEnqueuedAt: oldest.map { Date(timeIntervalSince1970: $0) })
    }

    /// Puts a claimed push back, due at `notBefore` (or parked); when a newer push for the same
    /// token and topic is already waiting (a change arrived while this one was out), that one stands for
    /// both and this one is removed.
    private static func requeue(
        _ connection: PostgresConnection, _ id: Int64, notBefore: Double, parked: Bool = false, logger: Logger
    ) async throws {
        try await connection.query(
            """
            DELETE FROM push_outbox this WHERE this.id = \(id) AND EXISTS (
                SELECT 1 FROM push_outbox other
                WHERE other.push_token = this.push_token AND other.topic = this.topic
                    AND other.leased_until IS NULL AND other.id <> this.id)
            """, logger: logger)
        try await connection.query(
            """
            UPDATE push_outbox SET leased_until = NULL, not_before = \(notBefore),
                parked_since = CASE WHEN \(parked) THEN coalesce(parked_since, \(notBefore)) END
            WHERE id = \(id)
            """, logger: logger)
    }
}
