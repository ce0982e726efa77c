import Foundation
import GRDB
import WalletOrders

// The delivery trail (DeliveryTrailStoring): one table of events, each a JSON document under its
// trail's key; the newest of each trail and the newest in all are kept.

extension SQLiteOrderStore: DeliveryTrailStoring {
    public func recordDeliveryEvents(_ events: [DeliveryEvent]) async throws {
        guard !events.isEmpty else { return }
        let rows = try events.map { ($0.trailKey, $0.at.timeIntervalSince1970, try $0.encoded()) }
        try await perform("record the delivery trail in") { database in
            try await database.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO deliveryEvents (trailKey, at, event) VALUES (?, ?, ?)")
                for row in rows { try insert.execute(arguments: [row.0, row.1, row.2]) }
                // Each trail keeps its newest events; the table its newest in all (ids only grow).
                let trim = try db.cachedStatement(
                    sql: """
                        DELETE FROM deliveryEvents WHERE trailKey = ?1 AND id <= (
                            SELECT id FROM deliveryEvents WHERE trailKey = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                        """)
                for key in Set(rows.map(\.0)) { try trim.execute(arguments: [key, DeliveryTrailLimits.perTrail]) }
                try db.execute(
                    sql: "DELETE FROM deliveryEvents WHERE id <= (SELECT MAX(id) FROM deliveryEvents) - ?",
                    arguments: [DeliveryTrailLimits.total])
            }
        }
    }

    public func deliveryEvents(trailKeys: [String]) async throws -> [DeliveryEvent] {
        guard !trailKeys.isEmpty else { return [] }
        let keys = Array(Set(trailKeys))
        let texts = try await perform("read the delivery trail from") { database -> [String] in
            try await database.read { db -> [String] in
                // A store opened read-only before its upgrade has no trail yet.
                guard try db.tableExists("deliveryEvents") else { return [] }
                return try String.fetchAll(
                    db, sql: "SELECT event FROM deliveryEvents WHERE trailKey IN (\(databaseQuestionMarks(count: keys.count))) ORDER BY id",
                    arguments: StatementArguments(keys))
            }
        }
        return texts.compactMap { try? DeliveryEvent.decoded($0) }
    }

    public func deliveryEvents(trailKeyPrefix prefix: String) async throws -> [DeliveryEvent] {
        let end = Self.end(ofPrefix: prefix)
        let texts = try await perform("read the delivery trail from") { database -> [String] in
            try await database.read { db -> [String] in
                guard try db.tableExists("deliveryEvents") else { return [] }
                return try String.fetchAll(
                    db, sql: "SELECT event FROM deliveryEvents WHERE trailKey >= ? AND trailKey < ? ORDER BY id", arguments: [prefix, end])
            }
        }
        return texts.compactMap { try? DeliveryEvent.decoded($0) }
    }

    /// Schema v8: the delivery trail.
    static func migrateToDeliveryTrail(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE deliveryEvents (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    trailKey TEXT NOT NULL,
                    at REAL NOT NULL,
                    event TEXT NOT NULL);
                CREATE INDEX deliveryEventsByTrail ON deliveryEvents (trailKey, id);
                """)
    }
}
