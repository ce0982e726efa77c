import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Many merchants on one service: a registration belongs to one device and one order, and the
/// holder of one order's token can change nothing of another order's registrations.
@Suite("Order stores: registrations are isolated per order, capped, and removed only for their own push", .serialized)
struct RegistrationIsolationTests {
    /// Order X: the attacker's (any customer of merchant A holds its authenticationToken).
    static let orderX = SampleVersions.identifier
    /// Order Y: another merchant's order, of another order type, on the same service.
    static let orderY = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.com.example.othermerchant", orderIdentifier: "Y-1")
    static let victimToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

    static func archiveY(_ updatedAt: String) throws -> [UInt8] {
        try SampleVersions.archive(
            updatedAt: updatedAt, orderIdentifier: orderY.orderIdentifier, orderTypeIdentifier: orderY.orderTypeIdentifier)
    }

    /// Both orders stored, and device D registered for order Y with its real token.
    static func prepare(_ store: any OrderStoring & DeviceRegistrationStoring) async throws {
        #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        #expect(try await store.intake().save(signedArchive: try archiveY("2025-11-21T00:00:00Z")) == .added)
        #expect(try await store.register(deviceIdentifier: "D", pushToken: victimToken, for: orderY) == .created)
    }

    /// A SQLite store in `folder` as ``prepare(_:)`` leaves it (and device D registered for order X
    /// when `registeringX`), taken back to an older schema by `downgrade` (a Python script given
    /// the file's path), then opened again: the migrations run.
    static func sqliteStore(in folder: TemporaryFolder, registeringX: Bool = false, downgradedBy downgrade: String) async throws
        -> SQLiteOrderStore
    {
        let url = folder.file("orders.sqlite")
        do {
            let store = try SQLiteOrderStore(url: url)
            try await prepare(store)
            if registeringX { _ = try await store.register(deviceIdentifier: "D", pushToken: victimToken, for: orderX) }
            try store.close()
        }
        let result = try await ExternalProgram.python(downgrade, [url.path])
        #expect(result.status == 0, "\(result)")
        return try SQLiteOrderStore(url: url)
    }

    /// The same on a new PostgreSQL database, `downgrade` being SQL run with psql; `body` gets the
    /// store opened again.
    static func withPostgresStore(
        registeringX: Bool = false, downgradedBy downgrade: String, _ body: (PostgresOrderStore) async throws -> Void
    ) async throws {
        let cluster = try await PostgresDatabase.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        do {
            let store = try await PostgresOrderStore(url: cluster.url(database: database))
            try await prepare(store)
            if registeringX { _ = try await store.register(deviceIdentifier: "D", pushToken: victimToken, for: orderX) }
            await store.close()
        }
        try await cluster.psql(downgrade, database: database)
        let store = try await PostgresOrderStore(url: cluster.url(database: database))
        try await body(store)
        await store.close()
    }

    @Test(
        "Hijack: order X's holder registers device D with another token; D's pushes for order Y still go to D's own token",
        arguments: StoreKind.webServiceCases)
    func hijackLeavesOtherRegistrations(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            // What the route allows with order X's token: any device identifier, any push token.
            _ = try await store.register(deviceIdentifier: "D", pushToken: "eeee0000eeee0000", for: Self.orderX)

            #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
            #expect(try await store.registrations(for: Self.orderX) == [DeviceRegistration(deviceIdentifier: "D", pushToken: "eeee0000eeee0000")])
            #expect(try await store.intake().save(signedArchive: try Self.archiveY("2025-11-22T00:00:00Z")) == .added)
            let pushes = try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date())
            #expect(pushes.map(\.pushToken) == [Self.victimToken], "order Y's change is pushed to D's own token only")
            #expect(pushes.map(\.topic) == [Self.orderY.orderTypeIdentifier])
        }
    }

    @Test("A token APNs refuses removes only the registrations its push was for, not the device's other orders", arguments: StoreKind.webServiceCases)
    func refusedTokenRemovesOnlyItsRegistrations(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            // The attacker registers D for X with a token APNs will refuse, then has X change.
            _ = try await store.register(deviceIdentifier: "D", pushToken: "0bad0bad0bad0bad", for: Self.orderX)
            _ = try await store.register(deviceIdentifier: "E", pushToken: "0bad0bad0bad0bad", for: Self.orderX)
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
            let pushes = try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date())
            let refused = try #require(pushes.first { $0.pushToken == "0bad0bad0bad0bad" })
            try await store.complete(refused, .tokenGone)

            #expect(try await store.registrations(for: Self.orderX).isEmpty, "the refused token's registrations are gone")
            #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
            #expect(try await store.intake().save(signedArchive: try Self.archiveY("2025-11-22T00:00:00Z")) == .added)
            #expect(try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date()).map(\.pushToken) == [Self.victimToken])
        }
    }

    @Test(
        "The same token registered for orders of two types: APNs refusing it for one topic leaves the other type's registrations",
        arguments: StoreKind.webServiceCases)
    func refusedForOneTopicOnly(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            _ = try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: Self.orderX)
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
            let push = try #require(try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date()).first)
            #expect(push.topic == Self.orderX.orderTypeIdentifier)
            try await store.complete(push, .tokenGone)  // DeviceTokenNotForTopic, for X's topic
            #expect(try await store.registrationCount(for: Self.orderX) == 0)
            #expect(try await store.registrationCount(for: Self.orderY) == 1)
        }
    }

    @Test("SQLite: a store whose push tokens were the devices' (schema v5) is migrated, each registration keeping its device's token")
    func sqliteMigrationKeepsRegistrations() async throws {
        let folder = try TemporaryFolder("migration")
        defer { folder.remove() }
        // Back to v5 with Python's sqlite3: the token on a devices row, none on the registration.
        let store = try await Self.sqliteStore(
            in: folder,
            downgradedBy:
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute('CREATE TABLE devices (deviceIdentifier TEXT PRIMARY KEY NOT NULL, pushToken TEXT NOT NULL, updatedAt REAL NOT NULL)')
                db.execute('INSERT INTO devices SELECT deviceIdentifier, pushToken, 0 FROM registrations GROUP BY deviceIdentifier')
                db.execute("INSERT INTO registrations (orderTypeIdentifier, orderIdentifier, deviceIdentifier, pushToken, createdAt) VALUES ('order.com.example.othermerchant', 'Y-2', 'D', '', 0)")
                db.execute('DROP INDEX registrationsByPushToken')
                db.execute('ALTER TABLE registrations DROP COLUMN pushToken')
                db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v6-registration-push-tokens'")
                db.commit()
                """)
        let second = FullyQualifiedOrderIdentifier(orderTypeIdentifier: Self.orderY.orderTypeIdentifier, orderIdentifier: "Y-2")
        #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
        #expect(try await store.registrations(for: second) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
    }

    @Test(
        "PostgreSQL: a database whose push tokens were the devices' (migration 1) is migrated, each registration keeping its device's token",
        .enabled(if: PostgresTestCluster.serverBinaries != nil))
    func postgresMigrationKeepsRegistrations() async throws {
        try await Self.withPostgresStore(
            downgradedBy:
                """
                CREATE TABLE devices (device_identifier text COLLATE "C" PRIMARY KEY, push_token text NOT NULL, updated_at double precision NOT NULL);
                INSERT INTO devices SELECT device_identifier, min(push_token), 0 FROM registrations GROUP BY device_identifier;
                INSERT INTO registrations VALUES ('order.com.example.othermerchant', 'Y-2', 'D', 0, 'x');
                ALTER TABLE registrations DROP COLUMN push_token;
                DELETE FROM wallet_orders_migrations WHERE version = 2;
                """
        ) { (store: PostgresOrderStore) async throws in
            let second = FullyQualifiedOrderIdentifier(orderTypeIdentifier: Self.orderY.orderTypeIdentifier, orderIdentifier: "Y-2")
            #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
            #expect(try await store.registrations(for: second) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
        }
    }

    @Test("The access record keeps the token a version replaced, until another version replaces that one", arguments: StoreKind.webServiceCases)
    func previousToken(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            let order = RegistrationIsolationTests.orderY
            func save(_ day: Int, token: String) async throws {
                let archive = try SampleVersions.archive(
                    updatedAt: "2025-11-2\(day)T00:00:00Z", orderIdentifier: order.orderIdentifier, orderTypeIdentifier: order.orderTypeIdentifier,
                    authenticationToken: token)
                #expect(try await store.intake().save(signedArchive: archive) == .added)
            }
            try await save(1, token: "first-token-0123456789")
            #expect(try await store.accessRecord(for: order)?.previousAuthenticationToken == nil)
            try await save(2, token: "second-token-0123456789")
            #expect(try await store.accessRecord(for: order)?.previousAuthenticationToken == "first-token-0123456789")
            try await save(3, token: "second-token-0123456789")
            #expect(
                try await store.accessRecord(for: order)?.previousAuthenticationToken == "first-token-0123456789",
                "a version with the same token keeps it")
            try await save(4, token: "third-token-0123456789")
            let record = try #require(try await store.accessRecord(for: order))
            #expect(record.authenticationToken == "third-token-0123456789")
            #expect(record.previousAuthenticationToken == "second-token-0123456789")
        }
    }

    @Test(
        "Registering for an order that isn't stored (deleted since it was authorized) registers nothing",
        arguments: StoreKind.webServiceCases)
    func registerForMissingOrder(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            #expect(try await store.delete(Self.orderX))
            #expect(try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: Self.orderX) == .notFound)
            #expect(try await store.registrationCount(for: Self.orderX) == 0)
            #expect(try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: Self.orderY) == .alreadyRegistered)
        }
    }

    @Test("SQLite: registrations a deleted order left behind (before schema v10) are removed when the store opens")
    func sqliteMigrationRemovesRegistrationsOfDeletedOrders() async throws {
        let folder = try TemporaryFolder("migration")
        defer { folder.remove() }
        // What a delete did before v10: the order's row only.
        let store = try await Self.sqliteStore(
            in: folder, registeringX: true,
            downgradedBy: """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("DELETE FROM orders WHERE orderIdentifier = '\(Self.orderX.orderIdentifier)'")
                db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v10-registrations-of-deleted-orders'")
                db.commit()
                """)
        #expect(try await store.registrationCount(for: Self.orderX) == 0)
        #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
    }

    @Test(
        "PostgreSQL: registrations a deleted order left behind (before migration 6) are removed when the store opens",
        .enabled(if: PostgresTestCluster.serverBinaries != nil))
    func postgresMigrationRemovesRegistrationsOfDeletedOrders() async throws {
        try await Self.withPostgresStore(
            registeringX: true,
            downgradedBy: """
                DELETE FROM orders WHERE order_identifier = '\(Self.orderX.orderIdentifier)';
                DELETE FROM wallet_orders_migrations WHERE version = 6;
                """
        ) { (store: PostgresOrderStore) async throws in
            #expect(try await store.registrationCount(for: Self.orderX) == 0)
            #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])
        }
    }

    @Test(
        "Caps: a new registration past the order's or the device's cap is refused with its code and nothing stored; registering again still works",
        arguments: StoreKind.webServiceCases)
    func caps(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            let limits = RegistrationLimits(maximumPerOrder: 3, maximumPerDevice: 2)
            for device in ["A", "B", "C"] {
                #expect(try await store.register(deviceIdentifier: device, pushToken: "abcd1234", for: Self.orderX, limits: limits) == .created)
            }
            let full = try await #require(throws: WalletOrdersError.self) {
                try await store.register(deviceIdentifier: "E", pushToken: "abcd1234", for: Self.orderX, limits: limits)
            }
            #expect(full.code == .orderRegistrationLimit)
            #expect(try await store.registrationCount(for: Self.orderX) == 3)
            #expect(try await store.register(deviceIdentifier: "A", pushToken: "beef5678", for: Self.orderX, limits: limits) == .alreadyRegistered)

            // D holds order Y; with X it has two, its cap: a third order is refused.
            let limitsForD = RegistrationLimits(maximumPerOrder: 10, maximumPerDevice: 2)
            #expect(try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: Self.orderX, limits: limitsForD) == .created)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "X-2"))
            let third = SampleVersions.identifier("X-2")
            let deviceFull = try await #require(throws: WalletOrdersError.self) {
                try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: third, limits: limitsForD)
            }
            #expect(deviceFull.code == .deviceRegistrationLimit)
            #expect(try await store.registrationCount(for: third) == 0)
        }
    }

    @Test("Caps hold under concurrent registrations: 20 at once for an order capped at 5 store exactly 5", arguments: StoreKind.webServiceCases)
    func capsUnderConcurrency(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            let limits = RegistrationLimits(maximumPerOrder: 5, maximumPerDevice: 100)
            let created = await withTaskGroup(of: Bool.self) { group -> Int in
                for device in 0..<20 {
                    group.addTask {
                        (try? await store.register(deviceIdentifier: "d\(device)", pushToken: "abcd1234", for: Self.orderX, limits: limits))
                            == .created
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(created == 5)
            #expect(try await store.registrationCount(for: Self.orderX) == 5)
        }
    }

    @Test(
        "Deleting an order removes its registrations: they no longer count toward the device's cap, and a new order under the same identifier reaches none of the old devices",
        arguments: StoreKind.webServiceCases)
    func deleteRemovesRegistrations(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            let limits = RegistrationLimits(maximumPerOrder: 10, maximumPerDevice: 2)
            #expect(try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: Self.orderX, limits: limits) == .created)
            #expect(try await store.delete(Self.orderX))
            #expect(try await store.registrationCount(for: Self.orderX) == 0)
            #expect(try await store.registrations(for: Self.orderY) == [DeviceRegistration(deviceIdentifier: "D", pushToken: Self.victimToken)])

            // D holds order Y only: a second order is within its cap of two.
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "X-2"))
            #expect(
                try await store.register(deviceIdentifier: "D", pushToken: Self.victimToken, for: SampleVersions.identifier("X-2"), limits: limits)
                    == .created)

            // The identifier stored again, as another customer's order: D is not told of it.
            for push in try await store.claimPushes(limit: 100, lease: .seconds(30), now: Date()) { try await store.complete(push, .remove) }
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z")) == .added)
            #expect(try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date()).isEmpty)
            let changed = try await store.changedOrders(deviceIdentifier: "D", orderTypeIdentifier: Self.orderX.orderTypeIdentifier, since: nil)
            #expect(changed?.orderIdentifiers == ["X-2"])
        }
    }
}
