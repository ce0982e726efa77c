import Foundation
import Logging
import PostgresNIO
import WalletOrders
import WalletOrdersStore

// The store's schema: named, append-only migrations, applied in one transaction under an advisory
// lock so that servers starting at once migrate the database once, one after the other.
extension PostgresOrderStore {
    /// The advisory lock key of migrations (any constant; "wallet-o" as a 64-bit number).
    static let migrationLockKey: Int64 = 0x7761_6C6C_6574_2D6F

    /// The schema's migrations, in order: (name, statements). Add new ones at the end; never
    /// edit a shipped one. Identifiers are `COLLATE "C"`, so they compare by bytes, as in SQLite.
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1-orders-history-web-service",
            [
                "CREATE TABLE store_info (key text PRIMARY KEY, value text NOT NULL)",
                """
                CREATE TABLE change_counter (
                    id integer PRIMARY KEY CHECK (id = 1),
                    last_sequence bigint NOT NULL)
                """,
                "INSERT INTO change_counter (id, last_sequence) VALUES (1, 0)",
                """
                CREATE TABLE orders (
                    order_type_identifier text COLLATE "C" NOT NULL,
                    order_identifier text COLLATE "C" NOT NULL,
                    updated_at_seconds bigint NOT NULL,
                    updated_at_nanos bigint NOT NULL,
                    updated_at_text text NOT NULL,
                    status text COLLATE "C" NOT NULL,
                    archive bytea NOT NULL,
                    sha256 text NOT NULL,
                    content_digest text,
                    saved_at text NOT NULL,
                    authentication_token text,
                    change_sequence bigint NOT NULL,
                    PRIMARY KEY (order_type_identifier, order_identifier))
                """,
                """
                CREATE INDEX orders_by_updated_at
                    ON orders (updated_at_seconds, updated_at_nanos, order_type_identifier, order_identifier)
                """,
                "CREATE INDEX orders_by_status ON orders (status, updated_at_seconds, updated_at_nanos)",
                """
                CREATE TABLE changes (
                    sequence bigint PRIMARY KEY,
                    order_type_identifier text COLLATE "C" NOT NULL,
                    order_identifier text COLLATE "C" NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('inserted', 'updated', 'deleted')))
                """,
                """
                CREATE TABLE devices (
                    device_identifier text COLLATE "C" PRIMARY KEY,
                    push_token text NOT NULL,
                    updated_at double precision NOT NULL)
                """,
                "CREATE INDEX devices_by_push_token ON devices (push_token)",
                """
                CREATE TABLE registrations (
                    order_type_identifier text COLLATE "C" NOT NULL,
                    order_identifier text COLLATE "C" NOT NULL,
                    device_identifier text COLLATE "C" NOT NULL,
                    created_at double precision NOT NULL,
                    PRIMARY KEY (order_type_identifier, order_identifier, device_identifier))
                """,
                "CREATE INDEX registrations_by_device ON registrations (device_identifier, order_type_identifier)",
                """
                CREATE TABLE push_outbox (
                    id bigserial PRIMARY KEY,
                    push_token text NOT NULL,
                    topic text NOT NULL,
                    enqueued_at double precision NOT NULL,
                    not_before double precision NOT NULL,
                    leased_until double precision,
                    attempts bigint NOT NULL DEFAULT 0)
                """,
                "CREATE UNIQUE INDEX push_outbox_waiting ON push_outbox (push_token, topic) WHERE leased_until IS NULL",
                "CREATE INDEX push_outbox_due ON push_outbox (not_before)",
                "INSERT INTO store_info (key, value) VALUES ('historyFloor', '0')",
            ]
        ),
        (
            // The push token moves from the device to each registration (device and order), copied
            // from the device into every one of its registrations.
            "v2-registration-push-tokens",
            [
                "ALTER TABLE registrations ADD COLUMN push_token text",
                """
                UPDATE registrations r SET push_token = d.push_token FROM devices d WHERE d.device_identifier = r.device_identifier
                """,
                "DELETE FROM registrations WHERE push_token IS NULL",
                "ALTER TABLE registrations ALTER COLUMN push_token SET NOT NULL",
                "DROP TABLE devices",
                "CREATE INDEX registrations_by_push_token ON registrations (push_token, order_type_identifier)",
            ]
        ),
        (
            // Pushes whose credentials APNs refused are parked, not dropped.
            "v3-parked-pushes",
            [
                "ALTER TABLE push_outbox ADD COLUMN parked_since double precision",
                "CREATE INDEX push_outbox_parked ON push_outbox (topic) WHERE parked_since IS NOT NULL",
            ]
        ),
        (
            // What happened between changes and devices (DeliveryTrailStoring).
            "v4-delivery-trail",
            [
                """
                CREATE TABLE delivery_events (
                    id bigserial PRIMARY KEY,
                    trail_key text NOT NULL,
                    at double precision NOT NULL,
                    event text NOT NULL)
                """,
                "CREATE INDEX delivery_events_by_trail ON delivery_events (trail_key COLLATE \"C\", id)",
            ]
        ),
        (
            // Each order type's pushes in due order, for claimPushes.
            "v5-push-turns",
            ["CREATE INDEX push_outbox_turns ON push_outbox (topic, not_before, id) WHERE parked_since IS NULL"]
        ),
        (
            // Deleting an order used to leave its registrations.
            "v6-registrations-of-deleted-orders",
            [
                """
                DELETE FROM registrations r WHERE NOT EXISTS (
                    SELECT 1 FROM orders o
                    WHERE o.order_type_identifier = r.order_type_identifier AND o.order_identifier = r.order_identifier)
                """
            ]
        ),
        (
            // The token before a version changed it: registered devices still hold it.
            "v7-previous-authentication-token",
            ["ALTER TABLE orders ADD COLUMN previous_authentication_token text"]
        ),
        (
            // Each delivery event's order type and its number in that type, for the type's
            // share (DeliveryTrailLimits.perOrderType); events from before are numbered 0, the
            // first of their type to go.
            "v8-delivery-trail-shares",
            [
                "ALTER TABLE delivery_events ADD COLUMN order_type text COLLATE \"C\" NOT NULL DEFAULT ''",
                "ALTER TABLE delivery_events ADD COLUMN type_sequence bigint NOT NULL DEFAULT 0",
                "UPDATE delivery_events SET order_type = COALESCE(event::jsonb ->> 'orderTypeIdentifier', '')",
                "CREATE INDEX delivery_events_by_type ON delivery_events (order_type, type_sequence)",
            ]
        ),
        (
            // Passes, their earlier versions and their registrations; the change log says which
            // kind each entry is of.
            "v9-passes",
            [
                """
                CREATE TABLE passes (
                    pass_type_identifier text COLLATE "C" NOT NULL,
                    serial_number text COLLATE "C" NOT NULL,
                    version bigint NOT NULL,
                    archive bytea NOT NULL,
                    sha256 text NOT NULL,
                    content_digest text,
                    authentication_token text,
                    previous_authentication_token text,
                    web_service_url text,
                    voided boolean NOT NULL,
                    modified_at bigint NOT NULL,
                    saved_at text NOT NULL,
                    change_sequence bigint NOT NULL,
                    PRIMARY KEY (pass_type_identifier, serial_number))
                """,
                """
                CREATE TABLE pass_versions (
                    pass_type_identifier text COLLATE "C" NOT NULL,
                    serial_number text COLLATE "C" NOT NULL,
                    version bigint NOT NULL,
                    archive bytea NOT NULL,
                    sha256 text NOT NULL,
                    voided boolean NOT NULL,
                    modified_at bigint NOT NULL,
                    PRIMARY KEY (pass_type_identifier, serial_number, version))
                """,
                """
                CREATE TABLE pass_registrations (
                    pass_type_identifier text COLLATE "C" NOT NULL,
                    serial_number text COLLATE "C" NOT NULL,
                    device_identifier text COLLATE "C" NOT NULL,
                    push_token text NOT NULL,
                    created_at double precision NOT NULL,
                    PRIMARY KEY (pass_type_identifier, serial_number, device_identifier))
                """,
                "CREATE INDEX pass_registrations_by_device ON pass_registrations (device_identifier, pass_type_identifier)",
                "CREATE INDEX pass_registrations_by_push_token ON pass_registrations (push_token, pass_type_identifier)",
                "ALTER TABLE changes ADD COLUMN archive_kind text NOT NULL DEFAULT 'order'",
            ]
        ),
    ]

    /// Applies the migrations the database lacks, under `pg_advisory_xact_lock`, and returns
    /// the store's identifier.
    ///
    /// - Throws: ``WalletOrdersError/Code/storeTooNew`` when the database has migrations this
    ///   code doesn't know (nothing is changed).
    static func migrate(_ connection: PostgresConnection, logger: Logger, errors: ErrorContext) async throws -> String {
        try await connection.withTransaction(logger: logger) { connection -> String in
            // Waiting for another server's migration is no stuck statement: statement_timeout
            // doesn't cut it (nor a long migration; SET LOCAL ends with this transaction).
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            // Read the lock's answer to the end: an error while waiting for it (a timeout, a
            // cancellation) comes in the row stream, and left unread it would surface only as the
            // next statement's "current transaction is aborted".
            for try await _ in try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLockKey))", logger: logger) {}
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS wallet_orders_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: [Int32: String] = [:]
            for try await row in try await connection.query("SELECT version, name FROM wallet_orders_migrations", logger: logger) {
                let (version, name) = try row.decode((Int32, String).self)
                applied[version] = name
            }
            let unknown = applied.filter { $0.key > Int32(migrations.count) }
            if let newest = unknown.keys.max() {
                throw WalletOrdersError(
                    .storeTooNew,
                    "\(errors.store) was written by a newer version of wallet-orders (schema migration \(newest), '\(unknown[newest] ?? "")'; this one knows \(migrations.count)); it was left untouched.",
                    hint: "Use the newer wallet-orders with this database, or point the store URL at another database.")
            }
            for (index, migration) in migrations.enumerated() where applied[Int32(index + 1)] == nil {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                if index == 0 {
                    // Made here, not by the server, so no extension (pgcrypto) is needed.
                    let storeID = UUID().uuidString.lowercased()
                    try await connection.query(
                        """
                        INSERT INTO store_info (key, value) VALUES ('storeID', \(storeID)), ('customerLinkSecret', \(randomSecret()))
                        """, logger: logger)
                }
                try await connection.query(
                    "INSERT INTO wallet_orders_migrations (version, name) VALUES (\(Int32(index + 1)), \(migration.name))",
                    logger: logger)
            }
            for try await row in try await connection.query("SELECT value FROM store_info WHERE key = 'storeID'", logger: logger) {
                return try row.decode(String.self)
            }
            throw WalletOrdersError(
                .storeCorrupt, "\(errors.store) has no store identifier.", hint: "Restore the database from a backup.")
        }
    }

    /// 32 random bytes from OpenSSL's generator, as hex.
    static func randomSecret() -> String { RandomSecret.hex(bytes: 32) }
}
