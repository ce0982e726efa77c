import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The `lastModified` tags of the changed-orders list (Apple's `ordersModifiedSince`): a tag the
/// store can't have issued (another store's, another server's, one ahead of the store) gets the
/// device's full list, never a 204, and a copy to another store never leaves a device stranded.
@Suite("Change tags: foreign, ahead and copied tags get the full list, never 204")
struct ChangeTagTests {
    static let type = SampleVersions.identifier.orderTypeIdentifier
    static let device = "device-tags"

    /// (from, to): SQLite to PostgreSQL and back.
    static var copyPairs: [(StoreKind, StoreKind)] {
        let kinds = StoreKind.webServiceCases
        return [(StoreKind.sqlite, StoreKind.postgres), (.postgres, .sqlite)].filter { kinds.contains($0.0) && kinds.contains($0.1) }
    }

    static func save(_ store: any OrderStoring, _ id: String, _ updatedAt: String) async throws {
        #expect(try await store.save(signedArchive: try SampleVersions.archive(updatedAt: updatedAt, orderIdentifier: id)) == .added)
    }

    /// T-1, T-2 (the device's) and T-3 (not the device's), the device registered for the first two.
    static func prepare(_ store: any OrderStoring & DeviceRegistrationStoring) async throws {
        for id in ["T-1", "T-2", "T-3"] { try await save(store, id, "2025-11-21T00:00:00Z") }
        for id in ["T-1", "T-2"] {
            _ = try await store.register(deviceIdentifier: device, pushToken: "token-tags", for: SampleVersions.identifier(id))
        }
    }

    static func changed(_ store: any DeviceRegistrationStoring, since tag: String?) async throws -> ChangedOrders? {
        try await store.changedOrders(deviceIdentifier: device, orderTypeIdentifier: type, since: tag)
    }

    @Test(
        "After a copy, a tag the source gave out gets the full list at the next change (never 204), then tags work as usual",
        arguments: copyPairs)
    func tagAcrossCopy(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        try await sourceKind.withWebServiceStore { source in
            try await destinationKind.withWebServiceStore { destination in
                try await Self.prepare(source)
                let first = try #require(try await Self.changed(source, since: nil))
                #expect(first.orderIdentifiers == ["T-1", "T-2"])
                // The source moves on, mostly with an order the device doesn't follow, so its
                // sequence runs well ahead of what a fresh copy will have written.
                for day in 1...12 { try await Self.save(source, "T-3", "2025-12-\(String(format: "%02d", day))T00:00:00Z") }
                try await Self.save(source, "T-2", "2025-11-22T00:00:00Z")
                let midway = try #require(try await Self.changed(source, since: first.lastModified))
                #expect(midway.orderIdentifiers == ["T-2"])
                let tag = midway.lastModified
                #expect(try await Self.changed(source, since: tag) == nil)

                let report = try await OrderStoreCopy.copy(from: source, to: destination, batchSize: 2)
                #expect(report.written == 3)
                #expect(report.registrations == 2)
                // One of the device's orders changes in the new store.
                try await Self.save(destination, "T-1", "2025-11-23T00:00:00Z")
                let after = try await Self.changed(destination, since: tag)
                #expect(after != nil, "a tag from the old store must never be answered with 204")
                #expect(after?.orderIdentifiers.sorted() == ["T-1", "T-2"], "the full list, once")
                let next = try #require(after).lastModified
                #expect(next != tag)
                #expect(try await Self.changed(destination, since: next) == nil, "nothing changed since the new store's tag")
                try await Self.save(destination, "T-2", "2025-11-24T00:00:00Z")
                let later = try #require(try await Self.changed(destination, since: next))
                #expect(later.orderIdentifiers == ["T-2"])
                #expect(try await Self.changed(destination, since: later.lastModified) == nil)
            }
        }
    }

    @Test(
        "A tag from another server (an epoch, a decimal, a date), another store or an earlier version gets the full list",
        arguments: StoreKind.webServiceCases)
    func foreignTags(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await kind.withWebServiceStore { other in
                try await Self.prepare(store)
                try await Self.prepare(other)
                for day in 1...3 { try await Self.save(other, "T-2", "2025-12-0\(day)T00:00:00Z") }
                let otherTag = try #require(try await Self.changed(other, since: nil)).lastModified
                let own = try #require(try await Self.changed(store, since: nil))
                #expect(own.orderIdentifiers == ["T-1", "T-2"])
                #expect(try await Self.changed(store, since: own.lastModified) == nil)
                let foreign = [
                    "1732612345", "1732612345.123", "2025-11-22T10:00:00Z", "Tue, 26 Nov 2024 09:12:25 GMT", "-1", "",
                    "1", "2", "eyJ2IjoxfQ", otherTag, String(repeating: "9", count: 40), own.lastModified + "0", "x" + own.lastModified,
                ]
                for tag in foreign {
                    let answer = try await Self.changed(store, since: tag)
                    #expect(answer?.orderIdentifiers == ["T-1", "T-2"], "tag \(tag)")
                    #expect(answer?.lastModified == own.lastModified, "tag \(tag)")
                }
                // Absurdly long: not a tag any server makes; refused with the tag error.
                let error = try await #require(throws: WalletOrdersError.self) {
                    try await Self.changed(store, since: String(repeating: "7", count: 5000))
                }
                #expect(error.code == .malformedToken)
            }
        }
    }

    @Test("A tag ahead of the store's sequence (the store was restored from a backup) gets the full list")
    func aheadAfterRestore() async throws {
        let folder = try TemporaryFolder("tags")
        defer { folder.remove() }
        let backup = folder.file("backup.sqlite")
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"), validator: TestPKI.validator)
        try await Self.prepare(store)
        try await store.backup(to: backup)
        for day in 1...5 { try await Self.save(store, "T-1", "2025-12-0\(day)T00:00:00Z") }
        let tag = try #require(try await Self.changed(store, since: nil)).lastModified
        try store.close()

        let restored = try SQLiteOrderStore(url: backup, validator: TestPKI.validator)
        let answer = try await Self.changed(restored, since: tag)
        #expect(answer?.orderIdentifiers == ["T-1", "T-2"], "the restored store never reached the tag")
        try await Self.save(restored, "T-2", "2025-11-22T00:00:00Z")
        let fresh = try #require(answer).lastModified
        let next = try #require(try await Self.changed(restored, since: fresh))
        #expect(next.orderIdentifiers == ["T-2"])
        try restored.close()
    }
}
