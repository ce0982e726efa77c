import Foundation
import Testing
import WalletOrders
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestSupport

/// A trail written before events carried their order type in a column (SQLite v12, PostgreSQL
/// migration 8): opening the store fills the column from each event's own JSON, so the old
/// events count against their type's share and are read as before.
@Suite(.temporaryFolder) struct DeliveryTrailMigrationTests {
    static let events = [
        DeliveryTrailTests.fetched(0), DeliveryTrailTests.pushed(1),
        DeliveryEvent(
            .fetched, at: DeliveryTrailTests.at(2), orderTypeIdentifier: "order.com.example.returns", orderIdentifier: "R-1",
            detail: .init(status: 200)),
    ]

    @Test("SQLite: events from before v12 get their order type from their JSON when the store opens")
    func sqliteBackfill() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        do {
            let store = try SQLiteOrderStore(url: url)
            try await store.recordDeliveryEvents(Self.events)
            try store.close()
        }
        // Back to v11 with Python's sqlite3: no orderType or typeSequence column, no index.
        let downgrade = try await ExternalProgram.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute('DROP INDEX deliveryEventsByType')
            db.execute('ALTER TABLE deliveryEvents DROP COLUMN orderType')
            db.execute('ALTER TABLE deliveryEvents DROP COLUMN typeSequence')
            db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v12-delivery-trail-shares'")
            db.commit()
            """, [url.path])
        #expect(downgrade.status == 0, "\(downgrade)")
        let store = try SQLiteOrderStore(url: url)
        try store.close()
        let types = try await ExternalProgram.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for row in db.execute('SELECT orderType, count(*) FROM deliveryEvents GROUP BY orderType ORDER BY orderType'):
                print(f'{row[0]}={row[1]}')
            """, [url.path])
        #expect(types.output == "order.com.example.returns=1\norder.com.example.shop=2\n", "\(types)")
        let reopened = try SQLiteOrderStore(url: url)
        defer { try? reopened.close() }
        let order = DeliveryTrailTests.order
        let trail = try await reopened.deliveryEvents(
            trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: [], tokenHashes: [DeliveryTrailTests.token]))
        #expect(Set(trail) == Set(Self.events.prefix(2)))
    }

    @Test("PostgreSQL: events from before migration 8 get their order type from their JSON", .enabled(if: PostgresTestCluster.serverBinaries != nil))
    func postgresBackfill() async throws {
        let cluster = try await PostgresDatabase.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        do {
            let store = try await PostgresOrderStore(url: cluster.url(database: database))
            try await store.recordDeliveryEvents(Self.events)
            await store.close()
        }
        _ = try await cluster.psql(
            """
            DROP INDEX delivery_events_by_type;
            ALTER TABLE delivery_events DROP COLUMN order_type, DROP COLUMN type_sequence;
            DELETE FROM wallet_orders_migrations WHERE version = 8;
            """, database: database)
        let store = try await PostgresOrderStore(url: cluster.url(database: database))
        let types = try await cluster.psql(
            "SELECT order_type || '=' || count(*) FROM delivery_events GROUP BY order_type ORDER BY order_type", database: database)
        #expect(types == "order.com.example.returns=1\norder.com.example.shop=2")
        let trail = try await store.deliveryEvents(
            trailKeys: DeliveryEvent.trailKeys(for: DeliveryTrailTests.order, deviceHashes: [], tokenHashes: [DeliveryTrailTests.token]))
        #expect(Set(trail) == Set(Self.events.prefix(2)))
        await store.close()
    }
}
