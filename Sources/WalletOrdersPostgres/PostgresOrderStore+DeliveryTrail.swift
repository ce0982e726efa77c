import Foundation
import PostgresNIO
import WalletOrders
public import WalletOrdersStore

// The delivery trail on PostgreSQL: the SQLite store's table and bounds. Keys are compared
// byte by byte (COLLATE "C"): a locale's collation may skip the U+001F that separates their parts.

extension PostgresOrderStore: DeliveryTrailStoring {
    public func recordDeliveryEvents(_ events: [DeliveryEvent]) async throws {
        guard !events.isEmpty else { return }
        let keys = events.map(\.trailKey)
        let ats = events.map(\.at.timeIntervalSince1970)
        let documents = try events.map { try $0.encoded() }
        let trails = Array(Set(keys)).sorted()
        try await withConnection("record the delivery trail in") { [logger] connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO delivery_events (trail_key, at, event)
                    SELECT * FROM unnest(\(keys)::text[], \(ats)::double precision[], \(documents)::text[])
                    """, logger: logger)
                // Each trail keeps its newest events; the table its newest in all.
                try await connection.query(
                    """
                    DELETE FROM delivery_events d USING (
                        SELECT id FROM (
                            SELECT id, row_number() OVER (PARTITION BY trail_key ORDER BY id DESC) AS newest
                            FROM delivery_events WHERE trail_key = ANY(\(trails)::text[])) ranked
                        WHERE newest > \(DeliveryTrailLimits.perTrail)) old
                    WHERE d.id = old.id
                    """, logger: logger)
                try await connection.query(
                    "DELETE FROM delivery_events WHERE id <= (SELECT max(id) FROM delivery_events) - \(DeliveryTrailLimits.total)",
                    logger: logger)
            }
        }
    }

    public func deliveryEvents(trailKeys: [String]) async throws -> [DeliveryEvent] {
        guard !trailKeys.isEmpty else { return [] }
        let keys = Array(Set(trailKeys)).sorted()
        return try await events("SELECT event FROM delivery_events WHERE trail_key = ANY(\(keys)::text[]) ORDER BY id")
    }

    public func deliveryEvents(trailKeyPrefix prefix: String) async throws -> [DeliveryEvent] {
        let end = Self.end(ofPrefix: prefix)
        return try await events(
            """
            SELECT event FROM delivery_events
            WHERE trail_key COLLATE "C" >= \(prefix) AND trail_key COLLATE "C" < \(end) ORDER BY id
            """)
    }

    private func events(_ query: PostgresQuery) async throws -> [DeliveryEvent] {
        let texts = try await withConnection("read the delivery trail from") { [logger] connection -> [String] in
            var texts: [String] = []
            for try await row in try await connection.query(query, logger: logger) { texts.append(try row.decode(String.self)) }
            return texts
        }
        return texts.compactMap { try? DeliveryEvent.decoded($0) }
    }
}
