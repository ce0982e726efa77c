import Foundation
import GRDB
import WalletOrders

// The store's schema: named, append-only migrations, and applying them safely when several
// processes open a new store at once.
extension SQLiteOrderStore {
    /// The schema's migrations. Add new ones at the end; never edit a shipped one.
    static var migrator: DatabaseMigrator {
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
        migrator.registerMigration("v2-history-and-indexes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE changes (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        orderTypeIdentifier TEXT NOT NULL,
                        orderIdentifier TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('inserted', 'updated', 'deleted'))
                    );
                    CREATE TABLE storeInfo (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE INDEX ordersByUpdatedAt ON orders (updatedAtSeconds, updatedAtNanos);
                    CREATE INDEX ordersByStatus ON orders (status, updatedAtSeconds, updatedAtNanos);
                    INSERT INTO changes (orderTypeIdentifier, orderIdentifier, kind)
                        SELECT orderTypeIdentifier, orderIdentifier, 'inserted' FROM orders
                        ORDER BY savedAt, orderTypeIdentifier, orderIdentifier;
                    INSERT INTO storeInfo (key, value) VALUES ('historyFloor', '0');
                    """)
            try db.execute(
                sql: "INSERT INTO storeInfo (key, value) VALUES ('storeID', ?)", arguments: [UUID().uuidString.lowercased()])
        }
        migrator.registerMigration("v3-covering-version-index") { db in
            // contains() reads only the version: answering from this index never touches the
            // table's pages, which hold the archives and so only a few rows each.
            try db.execute(
                sql: "CREATE INDEX ordersVersions ON orders (orderTypeIdentifier, orderIdentifier, updatedAtSeconds, updatedAtNanos)")
        }
        migrator.registerMigration("v4-web-service") { db in
            try migrateToWebService(db)
        }
        migrator.registerMigration("v5-content-digest") { db in
            // The manifest's content digest tells a rebuild (same files, another signing time) from
            // a new version at the same updatedAt. Stored archives verified when they were saved,
            // so their manifests parse; one that doesn't keeps NULL (its re-saves compare bytes).
            try db.execute(sql: "ALTER TABLE orders ADD COLUMN contentDigest TEXT")
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, archive FROM orders")
            let update = try db.makeStatement(sql: "UPDATE orders SET contentDigest = ? WHERE rowid = ?")
            while let row = try rows.next() {
                let bytes: Data = row[1]
                guard let digest = try? OrderArchive(bytes: [UInt8](bytes)).manifest().contentDigest else { continue }
                try update.execute(arguments: [digest, row[0] as Int64])
            }
        }
        migrator.registerMigration("v6-registration-push-tokens") { db in
            try migrateToRegistrationTokens(db)
        }
        migrator.registerMigration("v7-parked-pushes") { db in
            try migrateToParkedPushes(db)
        }
        migrator.registerMigration("v8-delivery-trail") { db in
            try migrateToDeliveryTrail(db)
        }
        migrator.registerMigration("v9-push-turns") { db in
            try migrateToPushTurns(db)
        }
        migrator.registerMigration("v10-registrations-of-deleted-orders") { db in
            // Deleting an order used to leave its registrations.
            try db.execute(
                sql: """
                    DELETE FROM registrations WHERE NOT EXISTS (
                        SELECT 1 FROM orders
                        WHERE orders.orderTypeIdentifier = registrations.orderTypeIdentifier
                            AND orders.orderIdentifier = registrations.orderIdentifier)
                    """)
        }
        migrator.registerMigration("v11-previous-authentication-token") { db in
            // The token before a version changed it: registered devices still hold it.
            try db.execute(sql: "ALTER TABLE orders ADD COLUMN previousAuthenticationToken TEXT")
        }
        migrator.registerMigration("v12-delivery-trail-shares") { db in
            try migrateToDeliveryTrailShares(db)
        }
        migrator.registerMigration("v13-passes") { db in
            try migrateToPasses(db)
        }
        return migrator
    }

    /// Applies the migrations this file lacks. GRDB decides which to run before it takes the write
    /// lock, so two processes opening a new store at once may both try the same migration; the
    /// second one's transaction fails and rolls back, and deciding again finds it applied.
    static func migrate(_ database: any DatabaseWriter, with migrator: DatabaseMigrator) throws {
        var attempts = 0
        while true {
            do {
                try migrator.migrate(database)
                return
            } catch {
                attempts += 1
                if (try? database.read { db in try migrator.hasCompletedMigrations(db) }) == true { return }
                if attempts >= 5 { throw error }
            }
        }
    }
}
