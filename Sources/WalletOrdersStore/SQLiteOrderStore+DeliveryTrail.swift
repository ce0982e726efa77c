import Foundation
import GRDB
import WalletOrders

// The delivery trail (DeliveryTrailStoring): one table of events, each a JSON document under its
// trail's key; the newest of each trail and the newest in all are kept.

extension SQLiteOrderStore: DeliveryTrailStoring {
    public func recordDeliveryEvents(_ events: [DeliveryEvent]) async throws {
        guard !events.isEmpty else { return }
        let rows = try events.map { ($0.trailKey, $0.at.timeIntervalSince1970, try $0.encoded(), $0.orderTypeIdentifier) }
        let orderPrefixes = Set(events.compactMap(\.orderRegistrationPrefix))
        try await perform("record the delivery trail in") { database in
            try await database.write { db in
                // Each order type numbers its events (typeSequence), so that its share is one
                // range to cut, found by index, however many events it holds.
                var newest: [String: Int64] = [:]
                let last = try db.cachedStatement(sql: "SELECT COALESCE(MAX(typeSequence), 0) FROM deliveryEvents WHERE orderType = ?")
                for type in Set(rows.map(\.3)) { newest[type] = try Int64.fetchOne(last, arguments: [type]) ?? 0 }
                let insert = try db.cachedStatement(
                    sql: "INSERT INTO deliveryEvents (trailKey, at, event, orderType, typeSequence) VALUES (?, ?, ?, ?, ?)")
                for row in rows {
                    let sequence = newest[row.3, default: 0] + 1
                    newest[row.3] = sequence
                    try insert.execute(arguments: [row.0, row.1, row.2, row.3, sequence])
                }
                // Each trail keeps its newest events (ids only grow).
                let trim = try db.cachedStatement(
                    sql: """
                        DELETE FROM deliveryEvents WHERE trailKey = ?1 AND id <= (
                            SELECT id FROM deliveryEvents WHERE trailKey = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                        """)
                for key in Set(rows.map(\.0)) { try trim.execute(arguments: [key, DeliveryTrailLimits.perTrail]) }
                // Each order its newest registration events: the range holds at most the share
                // and one write's events, as it is cut at every write.
                let trimOrder = try db.cachedStatement(
                    sql: """
                        DELETE FROM deliveryEvents WHERE trailKey >= ?1 AND trailKey < ?2 AND id <= (
                            SELECT id FROM deliveryEvents WHERE trailKey >= ?1 AND trailKey < ?2 ORDER BY id DESC LIMIT 1 OFFSET ?3)
                        """)
                for prefix in orderPrefixes {
                    try trimOrder.execute(arguments: [prefix, Self.end(ofPrefix: prefix), DeliveryTrailLimits.perOrder])
                }
                // Each order type its newest; the table its newest in all.
                let trimType = try db.cachedStatement(sql: "DELETE FROM deliveryEvents WHERE orderType = ? AND typeSequence <= ?")
                for (type, sequence) in newest where sequence > Int64(DeliveryTrailLimits.perOrderType) {
                    try trimType.execute(arguments: [type, sequence - Int64(DeliveryTrailLimits.perOrderType)])
                }
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

    /// Schema v12: each event's order type and its number in that type, for the type's share
    /// (``DeliveryTrailLimits/perOrderType``). Events kept from before are numbered 0: the
    /// oldest of their type, the first to go.
    static func migrateToDeliveryTrailShares(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE deliveryEvents ADD COLUMN orderType TEXT NOT NULL DEFAULT '';
                ALTER TABLE deliveryEvents ADD COLUMN typeSequence INTEGER NOT NULL DEFAULT 0;
                UPDATE deliveryEvents SET orderType = COALESCE(json_extract(event, '$.orderTypeIdentifier'), '');
                CREATE INDEX deliveryEventsByType ON deliveryEvents (orderType, typeSequence);
                """)
    }
}
