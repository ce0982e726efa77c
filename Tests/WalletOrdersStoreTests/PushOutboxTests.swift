import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("Order stores: device registrations and the durable push outbox", .serialized)
struct PushOutboxTests {
    static let order = SampleVersions.identifier
    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"

    static func withStore(_ body: (SQLiteOrderStore, TemporaryFolder) async throws -> Void) async throws {
        let folder = try TemporaryFolder("outbox")
        defer { folder.remove() }
        try await body(try SQLiteOrderStore(url: folder.file("orders.sqlite")), folder)
    }

    @Test(
        "A save of a new version queues one push per registered device in its transaction; an idempotent save and newerExisting queue none",
        arguments: StoreKind.webServiceCases)
    func savesQueuePushes(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            #expect(try await store.outboxStatus(now: Date()).pending == 0, "no device registered yet")
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order) == .created)
            #expect(try await store.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: Self.order) == .created)
            #expect(try await store.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: Self.order) == .alreadyRegistered)

            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
            #expect(try await store.outboxStatus(now: Date()).pending == 2)
            // The same archive again, and an older one: nothing changes, nothing more is queued.
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .newerExisting)
            // A third version before the pushes went out: coalesced into the waiting ones.
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z")) == .added)
            let claimed = try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date())
            #expect(Set(claimed.map(\.pushToken)) == ["aaaa1111", "bbbb2222"])
            #expect(claimed.allSatisfy { $0.topic == Self.order.orderTypeIdentifier && $0.attempts == 1 })
        }
    }

    @Test(
        "Claims take the order types in turn: a merchant with one push waiting is never behind another's fan-out, leased pushes are skipped",
        arguments: StoreKind.webServiceCases)
    func claimsTakeTurns(kind: StoreKind) async throws {
        let orderY = RegistrationIsolationTests.orderY
        try await kind.withWebServiceStore { store in
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            #expect(try await store.intake().save(signedArchive: try RegistrationIsolationTests.archiveY("2025-11-21T00:00:00Z")) == .added)
            for index in 0..<40 {
                _ = try await store.register(deviceIdentifier: "x\(index)", pushToken: "aa\(index)", for: Self.order)
            }
            for index in 0..<2 {
                _ = try await store.register(deviceIdentifier: "y\(index)", pushToken: "bb\(index)", for: orderY)
            }
            // Merchant X's fan-out is queued first, 40 pushes; merchant Y's 2 after it.
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
            #expect(try await store.intake().save(signedArchive: try RegistrationIsolationTests.archiveY("2025-11-22T00:00:00Z")) == .added)
            let now = Date().addingTimeInterval(1)
            func claim(_ limit: Int) async throws -> [String: Int] {
                let claimed = try await store.claimPushes(limit: limit, lease: .seconds(300), now: now)
                return Dictionary(claimed.map { ($0.topic, 1) }, uniquingKeysWith: +)
            }
            let x = Self.order.orderTypeIdentifier
            let y = orderY.orderTypeIdentifier
            #expect(try await claim(2) == [x: 1, y: 1], "Y's first push goes with X's first")
            #expect(try await claim(3) == [x: 2, y: 1], "then X, Y, X: each type's next in turn")
            // Only X's are left; the ones leased above are skipped, not claimed again.
            #expect(try await claim(100) == [x: 37])
            #expect(try await claim(100).isEmpty)
            #expect(try await store.outboxStatus(now: now).pending == 42, "every claimed push is leased, none removed")
        }
    }

    @Test(
        "Claims lease pushes: claimed ones aren't claimed again until the lease runs out (a dead worker's pushes come back)",
        arguments: StoreKind.webServiceCases)
    func leases(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            _ = try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
            let now = Date()
            let first = try await store.claimPushes(limit: 10, lease: .seconds(30), now: now)
            #expect(first.count == 1)
            #expect(try await store.claimPushes(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(29)).isEmpty)
            // A change while the push is out queues a new one: the device must hear of it too.
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z"))
            #expect(try await store.outboxStatus(now: now).pending == 2)
            let again = try await store.claimPushes(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(31))
            #expect(again.count == 2, "the new push, and the first one whose lease ran out")
            #expect(again.contains { $0.id == first[0].id && $0.attempts == 2 })
        }
    }

    @Test(
        "Completion: delivered removes; retry waits until notBefore (and folds into a newer waiting push); a gone token forgets the device",
        arguments: StoreKind.webServiceCases)
    func completions(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            _ = try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order)
            _ = try await store.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: Self.order)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
            let now = Date()
            let claimed = try await store.claimPushes(limit: 10, lease: .seconds(300), now: now)
            let one = try #require(claimed.first { $0.pushToken == "aaaa1111" })
            let two = try #require(claimed.first { $0.pushToken == "bbbb2222" })

            try await store.complete(one, .retry(notBefore: now.addingTimeInterval(60)))
            #expect(try await store.claimPushes(limit: 10, lease: .seconds(300), now: now.addingTimeInterval(59)).isEmpty)
            #expect(try await store.outboxStatus(now: now).nextDue.map { $0.timeIntervalSince(now) } ?? 0 >= 59)
            let retried = try await store.claimPushes(limit: 10, lease: .seconds(300), now: now.addingTimeInterval(61))
            #expect(retried.map(\.pushToken) == ["aaaa1111"])
            try await store.complete(retried[0], .remove)

            try await store.complete(two, .tokenGone)
            #expect(try await store.registrationCount(for: Self.order) == 1, "d2's registration went with its token")
            #expect(try await store.outboxStatus(now: now).pending == 0)
            #expect(try await store.changedOrders(deviceIdentifier: "d2", orderTypeIdentifier: Self.order.orderTypeIdentifier, since: nil) == nil)
        }
    }

    @Test("release gives claimed pushes back at once (a worker shutting down)", arguments: StoreKind.webServiceCases)
    func release(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            _ = try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
            let claimed = try await store.claimPushes(limit: 10, lease: .seconds(300), now: Date())
            try await store.release(claimed)
            #expect(try await store.claimPushes(limit: 10, lease: .seconds(300), now: Date()).map(\.id) == claimed.map(\.id))
        }
    }

    @Test(
        "The access record carries the order's authenticationToken and version; unregistering removes the registration with its token",
        arguments: StoreKind.webServiceCases)
    func accessAndUnregister(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            #expect(try await store.accessRecord(for: Self.order) == nil)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T10:00:00.25Z"))
            let record = try #require(try await store.accessRecord(for: Self.order))
            #expect(record.authenticationToken == Self.token)
            #expect(record.updatedAt.text == "2025-11-21T10:00:00.25Z")
            #expect(record.sha256.count == 64)
            _ = try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order)
            #expect(try await store.unregister(deviceIdentifier: "d1", from: Self.order))
            #expect(try await store.unregister(deviceIdentifier: "d1", from: Self.order) == false)
            #expect(
                try await store.removeRegistrations(pushToken: "aaaa1111", orderTypeIdentifier: Self.order.orderTypeIdentifier) == 0,
                "the token went with its registration")
        }
    }

    @Test(
        "The access record with its archive in one read: the archive only when asked for, and always the version the record names",
        arguments: StoreKind.webServiceCases)
    func accessRecordWithArchive(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            #expect(try await store.accessRecord(for: Self.order, archiveIf: { _ in true }) == nil)
            let first = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            _ = try await store.intake().save(signedArchive: first)
            var asked: [OrderAccessRecord] = []
            let without = try #require(
                try await store.accessRecord(for: Self.order) { record in
                    asked.append(record)
                    return false
                })
            #expect(without.archive == nil)
            #expect(asked == [without.record])
            #expect(without.record == (try await store.accessRecord(for: Self.order)))
            let with = try #require(try await store.accessRecord(for: Self.order, archiveIf: { _ in true }))
            #expect(with.archive == first)
            let firstDigest = await SHA256Oracle.hex(first)
            #expect(with.record.sha256 == firstDigest)
            // A newer version: record and archive move together.
            let second = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
            _ = try await store.intake().save(signedArchive: second)
            let after = try #require(try await store.accessRecord(for: Self.order, archiveIf: { _ in true }))
            #expect(after.archive == second)
            let secondDigest = await SHA256Oracle.hex(second)
            #expect(after.record.sha256 == secondDigest)
            #expect(after.record.updatedAt.text == "2025-11-22T00:00:00Z")
        }
    }

    @Test("A store made before the web service (schema v3) is migrated: tokens are read from the stored archives")
    func migrationFromV3() async throws {
        try await Self.withStore { _, folder in
            // A v3 store: the current one with v4 undone by Python's sqlite3.
            let url = folder.file("old.sqlite")
            do {
                let store = try SQLiteOrderStore(url: url)
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                try store.close()
            }
            let downgrade = try await ExternalProgram.python(
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                for table in ('registrations', 'pushOutbox', 'deliveryEvents', 'passes', 'passVersions', 'passRegistrations'):
                    db.execute(f'DROP TABLE {table}')
                db.execute('ALTER TABLE changes DROP COLUMN archiveKind')
                db.execute('ALTER TABLE orders DROP COLUMN authenticationToken')
                db.execute('ALTER TABLE orders DROP COLUMN changeSequence')
                db.execute('ALTER TABLE orders DROP COLUMN previousAuthenticationToken')
                db.execute("DELETE FROM grdb_migrations WHERE identifier NOT IN ('v1-orders', 'v2-history-and-indexes', 'v3-covering-version-index', 'v5-content-digest')")
                db.execute("DELETE FROM storeInfo WHERE key = 'customerLinkSecret'")
                db.commit()
                """, [url.path])
            #expect(downgrade.status == 0, "\(downgrade)")
            let store = try SQLiteOrderStore(url: url)
            #expect(try await store.accessRecord(for: Self.order)?.authenticationToken == Self.token)
            _ = try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: Self.order)
            #expect(
                try await store.changedOrders(deviceIdentifier: "d1", orderTypeIdentifier: Self.order.orderTypeIdentifier, since: nil)?
                    .orderIdentifiers == [Self.order.orderIdentifier])
        }
    }
}
