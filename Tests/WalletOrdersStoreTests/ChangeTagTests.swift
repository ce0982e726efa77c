import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The `lastModified` tags of the changed-orders list (Apple's `ordersModifiedSince`): a tag the
/// store can't have issued (another store's, another server's, one ahead of the store) gets the
/// device's full list, never a 204, and a copy to another store never leaves a device stranded.
@Suite("Change tags: foreign, ahead and copied tags get the full list, never 204", .serialized)
struct ChangeTagTests {
    static let type = SampleVersions.identifier.orderTypeIdentifier
    static let device = "device-tags"

    /// (from, to): SQLite to PostgreSQL and back.
    static var copyPairs: [(StoreKind, StoreKind)] {
        let kinds = StoreKind.webServiceCases
        return [(StoreKind.sqlite, StoreKind.postgres), (.postgres, .sqlite)].filter { kinds.contains($0.0) && kinds.contains($0.1) }
    }

    static func save(_ store: any OrderStoring, _ id: String, _ updatedAt: String) async throws {
        #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: updatedAt, orderIdentifier: id)) == .added)
    }

    /// T-1, T-2 (the device's) and T-3 (not the device's), the device registered for the first two.
    static func prepare(_ store: any OrderStoring & DeviceRegistrationStoring) async throws {
        for id in ["T-1", "T-2", "T-3"] { try await save(store, id, "2025-11-21T00:00:00Z") }
        for id in ["T-1", "T-2"] {
            _ = try await store.register(deviceIdentifier: device, pushToken: "token-tags", for: SampleVersions.identifier(id))
        }
    }

    static func newest(_ store: any OrderStoring) async throws -> Int64 {
        try await #require(store as? any OrderChangeSequencing).newestChangeSequence()
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

                let report = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator, batchSize: 2)
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

    @Test(
        "A copy into a store that already served devices keeps their tags exact; its sequence never goes back",
        arguments: copyPairs)
    func copyIntoServingStore(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        try await sourceKind.withWebServiceStore { source in
            try await destinationKind.withWebServiceStore { destination in
                // The destination runs well ahead of the source and has a device of its own, whose
                // tag is past anything the source numbered.
                try await Self.prepare(destination)
                for day in 1...9 { try await Self.save(destination, "T-3", "2025-12-0\(day)T00:00:00Z") }
                try await Self.save(destination, "T-1", "2025-11-22T00:00:00Z")
                let tag = try #require(try await Self.changed(destination, since: nil)).lastModified
                try await Self.save(source, "T-1", "2025-11-21T00:00:00Z")  // older than the destination's
                try await Self.save(source, "T-2", "2025-11-25T00:00:00Z")  // newer than the destination's
                try await Self.save(source, "S-1", "2025-11-21T00:00:00Z")
                let before = try await Self.newest(destination)
                #expect(try await Self.newest(source) < before)
                #expect(OrderChangeTag(encoded: tag)?.sequence == before)

                let report = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator)
                #expect(report.written == 2, "T-2 (newer) and S-1; the destination's T-1 is newer")
                #expect(try await Self.newest(destination) == before + 2, "continued, not moved back")
                // The destination's device learns of the copied T-2 exactly, not the full list.
                let copied = try #require(try await Self.changed(destination, since: tag))
                #expect(copied.orderIdentifiers == ["T-2"])
                try await Self.save(destination, "T-1", "2025-11-26T00:00:00Z")
                #expect(try await Self.changed(destination, since: copied.lastModified)?.orderIdentifiers == ["T-1"])
            }
        }
    }

    @Test("The copy carries the change sequence: the destination continues past the source's newest change", arguments: OrderStoreCopyTests.pairs)
    func copyCarriesSequence(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        try await sourceKind.withStore { (source: any OrderStoring) async throws -> Void in
            try await destinationKind.withStore { (destination: any OrderStoring) async throws -> Void in
                let from = try #require(source as? any OrderChangeSequencing)
                let to = try #require(destination as? any OrderChangeSequencing)
                for day in 1...6 { try await Self.save(source, "T-1", "2025-12-0\(day)T00:00:00Z") }
                _ = try await source.delete(SampleVersions.identifier("T-1"))
                try await Self.save(source, "T-2", "2025-11-21T00:00:00Z")
                let newest = try await from.newestChangeSequence()
                #expect(newest == 8)
                #expect(try await to.newestChangeSequence() == 0)
                _ = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator)
                #expect(try await to.newestChangeSequence() == newest + 1, "T-2, numbered after the source's newest change")
                try await to.continueChangeSequence(after: 3)
                #expect(try await to.newestChangeSequence() == newest + 1, "never back")
                // History still works across the gap.
                let history = try await destination.history(since: nil)
                #expect(history.inserted == [SampleVersions.identifier("T-2")])
                try await Self.save(destination, "T-3", "2025-11-21T00:00:00Z")
                let next = try await destination.history(since: history.newToken)
                #expect(next.inserted == [SampleVersions.identifier("T-3")])
                #expect(try await to.newestChangeSequence() == newest + 2)
            }
        }
    }

    @Test("A tag of this store ahead of its sequence gets the full list", arguments: StoreKind.webServiceCases)
    func aheadOfSequence(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await Self.prepare(store)
            let own = try #require(try await Self.changed(store, since: nil))
            let parsed = try #require(OrderChangeTag(encoded: own.lastModified))
            #expect(parsed.sequence == 2)
            for sequence: Int64 in [4, 1000, .max] {
                let ahead = OrderChangeTag(storeKey: parsed.storeKey, sequence: sequence).encoded
                #expect(try await Self.changed(store, since: ahead)?.orderIdentifiers == ["T-1", "T-2"], "\(sequence)")
            }
            // Exactly at the newest change: nothing changed since.
            let newest = OrderChangeTag(storeKey: parsed.storeKey, sequence: try await Self.newest(store)).encoded
            #expect(try await Self.changed(store, since: newest) == nil)
        }
    }

    @Test("Tags: a short opaque text naming the store; only what encoded writes reads back")
    func format() throws {
        let tag = OrderChangeTag(storeID: "0f4c1c52-6c1f-4c55-9a0e-3f1c7e2b9d10", sequence: 1042)
        #expect(tag.encoded.hasPrefix("t1."))
        #expect(tag.encoded.hasSuffix(".1042"))
        #expect(tag.encoded.utf8.count == 3 + 16 + 1 + 4)
        #expect(!tag.encoded.contains("0f4c1c52"), "the store's identifier isn't shown")
        #expect(OrderChangeTag(encoded: tag.encoded) == tag)
        #expect(OrderChangeTag(storeID: "another", sequence: 1042).storeKey != tag.storeKey)
        for text in [
            "1042", "1732612345.123", "t1.\(tag.storeKey).01042", "t1.\(tag.storeKey).-1", "t1.\(tag.storeKey).",
            "t2.\(tag.storeKey).1042", "t1.\(tag.storeKey.dropLast()).1042", "t1.\(tag.storeKey).1042.", "t1.\(tag.storeKey).99999999999999999999",
            "t1.\(tag.storeKey.dropLast())+.1042", "",
        ] {
            #expect(OrderChangeTag(encoded: text) == nil, "\(text)")
        }
        #expect(try ChangedOrders.tag(nil) == nil)
        #expect(try ChangedOrders.tag(String(repeating: "1", count: OrderChangeTag.maximumLength)) == nil)
        #expect(throws: WalletOrdersError.self) { try ChangedOrders.tag(String(repeating: "1", count: OrderChangeTag.maximumLength + 1)) }
    }

    @Test("A tag ahead of the store's sequence (the store was restored from a backup) gets the full list")
    func aheadAfterRestore() async throws {
        let folder = try TemporaryFolder("tags")
        defer { folder.remove() }
        let backup = folder.file("backup.sqlite")
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        try await Self.prepare(store)
        try await store.backup(to: backup)
        for day in 1...5 { try await Self.save(store, "T-1", "2025-12-0\(day)T00:00:00Z") }
        let tag = try #require(try await Self.changed(store, since: nil)).lastModified
        try store.close()

        let restored = try SQLiteOrderStore(url: backup)
        let answer = try await Self.changed(restored, since: tag)
        #expect(answer?.orderIdentifiers == ["T-1", "T-2"], "the restored store never reached the tag")
        try await Self.save(restored, "T-2", "2025-11-22T00:00:00Z")
        let fresh = try #require(answer).lastModified
        let next = try #require(try await Self.changed(restored, since: fresh))
        #expect(next.orderIdentifiers == ["T-2"])
        try restored.close()
    }
}
