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
        let types = events.map(\.orderTypeIdentifier)
        let trails = Array(Set(keys)).sorted()
        let orderPrefixes = Array(Set(events.compactMap(\.orderRegistrationPrefix))).sorted()
        try await withConnection("record the delivery trail in") { [logger] connection in
            try await connection.withTransaction(logger: logger) { connection in
                // Each order type numbers its events (type_sequence), so that its share is one
                // range to cut, found by index. Servers writing at once may number alike: the
                // share is then off by what they wrote together, never unbounded.
                let distinctTypes = Array(Set(types)).sorted()
                var newest: [String: Int64] = [:]
                for try await (type, sequence) in try await connection.query(
                    """
                    SELECT t, COALESCE((SELECT max(type_sequence) FROM delivery_events WHERE order_type = t), 0)
                    FROM unnest(\(distinctTypes)::text[]) AS t
                    """, logger: logger
                ).decode((String, Int64).self) {
                    newest[type] = sequence
                }
                var sequences: [Int64] = []
                for type in types {
                    let sequence = newest[type, default: 0] + 1
                    newest[type] = sequence
                    sequences.append(sequence)
                }
                try await connection.query(
                    """
                    INSERT INTO delivery_events (trail_key, at, event, order_type, type_sequence)
                    SELECT * FROM unnest(\(keys)::text[], \(ats)::double precision[], \(documents)::text[], \(types)::text[],
                        \(sequences)::bigint[])
                    """, logger: logger)
                // Each trail keeps its newest events.
                try await connection.query(
                    """
                    DELETE FROM delivery_events d USING (
                        SELECT id FROM (
                            SELECT id, row_number() OVER (PARTITION BY trail_key ORDER BY id DESC) AS newest
                            FROM delivery_events WHERE trail_key = ANY(\(trails)::text[])) ranked
                        WHERE newest > \(DeliveryTrailLimits.perTrail)) old
                    WHERE d.id = old.id
                    """, logger: logger)
                // Each order its newest registration events (the range holds at most the share
                // and one write's events, as it is cut at every write).
                for prefix in orderPrefixes {
                    let end = Self.end(ofPrefix: prefix)
                    try await connection.query(
                        """
                        DELETE FROM delivery_events d USING (
                            SELECT id FROM (
                                SELECT id, row_number() OVER (ORDER BY id DESC) AS newest FROM delivery_events
                                WHERE trail_key COLLATE "C" >= \(prefix) AND trail_key COLLATE "C" < \(end)) ranked
                            WHERE newest > \(DeliveryTrailLimits.perOrder)) old
                        WHERE d.id = old.id
                        """, logger: logger)
                }
                // Each order type its newest; the table its newest in all.
                let cut = newest.filter { $0.value > Int64(DeliveryTrailLimits.perOrderType) }.sorted { $0.key < $1.key }
                if !cut.isEmpty {
                    let cutTypes = cut.map(\.key)
                    let below = cut.map { $0.value - Int64(DeliveryTrailLimits.perOrderType) }
                    try await connection.query(
                        """
                        DELETE FROM delivery_events d USING unnest(\(cutTypes)::text[], \(below)::bigint[]) AS share(order_type, below)
                        WHERE d.order_type = share.order_type AND d.type_sequence <= share.below
                        """, logger: logger)
                }
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
