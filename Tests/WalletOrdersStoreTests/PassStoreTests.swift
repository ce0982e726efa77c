import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport
import WalletPasses

/// Passes beside orders, on SQLite and PostgreSQL: what a save answers, the versions kept, the
/// listing, deletion, the history, and the copy to another store.
@Suite("Passes in the store")
struct PassStoreTests {
    static let serial = "NW-PASS-1"
    static var identifier: PassIdentifier { SamplePasses.identifier(serial) }

    @Test(
        "A new pass is added; the same bytes or the same files signed again are unchanged; another pass replaces it; a voiding one voids it",
        arguments: StoreKind.webServiceCases)
    func saveAnswers(kind: StoreKind) async throws {
        let first = try SamplePasses.verified(serialNumber: Self.serial)
        let resigned = try SamplePasses.verified(serialNumber: Self.serial, signingTime: TestPKI.signingTime.addingTimeInterval(60))
        #expect(first.sha256 != resigned.sha256, "another signing time is other bytes")
        let second = try SamplePasses.verified(serialNumber: Self.serial, event: "Trail Run 2027, moved")
        let voided = try SamplePasses.verified(serialNumber: Self.serial, event: "Trail Run 2027, moved", voided: true)
        try await kind.withWebServiceStore { store in
            let added = try await store.save(verifiedPass: first)
            #expect(added == PassSaveReceipt(identifier: Self.identifier, result: .added, version: 1, sha256: first.sha256))
            #expect(try await store.save(verifiedPass: first).result == .unchanged)
            let again = try await store.save(verifiedPass: resigned)
            #expect(again.result == .unchanged)
            #expect(again.version == 1)
            #expect(again.sha256 == first.sha256, "the stored version is kept")
            #expect(try await store.passArchive(for: Self.identifier) == first.bytes)

            #expect(try await store.save(verifiedPass: second).result == .replaced)
            let receipt = try await store.save(verifiedPass: voided)
            #expect(receipt.result == .voided)
            #expect(receipt.version == 3)
            // Saving the voided pass again changes nothing; an unvoided one after it is a replacement.
            #expect(try await store.save(verifiedPass: voided).result == .unchanged)
            #expect(try await store.save(verifiedPass: second).result == .replaced)

            let versions = try await store.passVersions(for: Self.identifier)
            #expect(versions.map(\.version) == [1, 2, 3, 4])
            #expect(versions.map(\.sha256) == [first.sha256, second.sha256, voided.sha256, second.sha256])
            #expect(versions.map(\.voided) == [false, false, true, false])
            #expect(versions.map(\.archiveSize) == [first.bytes.count, second.bytes.count, voided.bytes.count, second.bytes.count])
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0.modifiedAt < $1.modifiedAt }, "\(versions.map(\.modifiedAt))")
            #expect(try await store.passArchive(for: Self.identifier, version: 1) == first.bytes)
            #expect(try await store.passArchive(for: Self.identifier, version: 3) == voided.bytes)
            #expect(try await store.passArchive(for: Self.identifier, version: 4) == second.bytes)
            #expect(try await store.passArchive(for: Self.identifier, version: 5) == nil)
            #expect(try await store.passArchive(for: SamplePasses.identifier("unknown")) == nil)

            let summary = try #require(try await store.passSummary(for: Self.identifier))
            #expect(summary.current == versions.last)
            #expect(summary.authenticationToken == SamplePasses.authenticationToken)
            #expect(summary.webServiceURL == "https://example.com/passes/")
            // The pass is no order: the order side doesn't see it.
            #expect(
                try await store.summary(
                    for: FullyQualifiedOrderIdentifier(
                        orderTypeIdentifier: Self.identifier.passTypeIdentifier, orderIdentifier: Self.serial)) == nil)
        }
    }

    @Test("A batch is saved as if one pass after another: the same pass twice is added, then unchanged", arguments: StoreKind.webServiceCases)
    func batch(kind: StoreKind) async throws {
        let passes = try (0..<3).map { try SamplePasses.verified(serialNumber: "B-\($0)") }
        let replacement = try SamplePasses.verified(serialNumber: "B-1", event: "Moved")
        try await kind.withWebServiceStore { store in
            let receipts = try await store.save(verifiedPasses: passes + [passes[0], replacement])
            #expect(receipts.map(\.result) == [.added, .added, .added, .unchanged, .replaced])
            #expect(receipts.map(\.version) == [1, 1, 1, 1, 2])
        }
    }

    @Test(
        "Listing goes by identifier a page at a time, filtered by type, types and voided state; a deleted pass is gone with its versions",
        arguments: StoreKind.webServiceCases)
    func listAndDelete(kind: StoreKind) async throws {
        let other = "pass.com.northwindoutfitters.coupon"
        var passes = try (0..<5).map { try SamplePasses.verified(serialNumber: "L-\($0)") }
        passes.append(try SamplePasses.verified(serialNumber: "L-9", voided: true))
        passes.append(try SamplePasses.verified(serialNumber: "L-0", passTypeIdentifier: other))
        try await kind.withWebServiceStore { store in
            _ = try await store.save(verifiedPasses: passes)
            var query = PassQuery(limit: 3)
            var seen: [PassIdentifier] = []
            var pages = 0
            while true {
                let page = try await store.listPasses(query)
                seen += page.passes.map(\.identifier)
                pages += 1
                guard let next = page.nextCursor else { break }
                query.after = next
            }
            #expect(pages == 3)
            #expect(seen == passes.map(\.identifier).sorted())
            #expect(seen.first?.passTypeIdentifier == other, "UTF-8 order: coupon before ticket")

            let ofType = try await store.listPasses(PassQuery(passTypeIdentifier: SamplePasses.passTypeIdentifier))
            #expect(ofType.passes.count == 6)
            #expect(try await store.listPasses(PassQuery(passTypeIdentifiers: [])).passes.isEmpty)
            #expect(try await store.listPasses(PassQuery(passTypeIdentifiers: [other])).passes.map(\.identifier.serialNumber) == ["L-0"])
            #expect(try await store.listPasses(PassQuery(voided: true)).passes.map(\.identifier.serialNumber) == ["L-9"])
            #expect(try await store.listPasses(PassQuery(voided: false)).passes.count == 6)

            let gone = SamplePasses.identifier("L-2")
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "L-2", event: "Moved"))
            #expect(try await store.deletePass(gone))
            #expect(try await store.deletePass(gone) == false)
            #expect(try await store.passSummary(for: gone) == nil)
            #expect(try await store.passVersions(for: gone).isEmpty)
            #expect(try await store.passArchive(for: gone, version: 1) == nil)
            // Saved again, it starts over at version 1.
            #expect(
                try await store.save(verifiedPass: passes[2])
                    == PassSaveReceipt(
                        identifier: gone, result: .added, version: 1, sha256: passes[2].sha256))
        }
    }

    @Test(
        "Pass history and order history share the store's one sequence and tokens, and each lists only its kind",
        arguments: StoreKind.webServiceCases)
    func history(kind: StoreKind) async throws {
        let order = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "H-1")
        let pass = try SamplePasses.verified(serialNumber: "H-1")
        let moved = try SamplePasses.verified(serialNumber: "H-1", event: "Moved")
        let other = try SamplePasses.verified(serialNumber: "H-2")
        try await kind.withWebServiceStore { store in
            #expect(try await store.intake().save(signedArchive: order) == .added)
            _ = try await store.save(verifiedPass: pass)
            let everything = try await store.passHistory(since: nil, limit: nil)
            #expect(everything.inserted == [pass.identifier])
            let orders = try await store.history(since: nil)
            #expect(orders.inserted == [SampleVersions.identifier("H-1")], "the order history doesn't list passes")

            // A token taken from the order history serves the pass history, and the other way round.
            _ = try await store.save(verifiedPass: moved)
            _ = try await store.save(verifiedPass: other)
            let sinceOrders = try await store.passHistory(since: orders.newToken, limit: nil)
            // The order's token is from before the pass was first saved.
            #expect(sinceOrders.inserted == [pass.identifier, other.identifier])
            #expect(sinceOrders.updated.isEmpty)
            #expect(try await store.history(since: sinceOrders.newToken).isEmpty)
            #expect(try await store.history(since: everything.newToken).isEmpty, "pass changes don't show in the order history")

            let paged = try await store.passHistory(since: everything.newToken, limit: 1)
            #expect(paged.hasMore)
            #expect(paged.updated == [pass.identifier])
            let rest = try await store.passHistory(since: paged.newToken, limit: nil)
            #expect(rest.inserted == [other.identifier])
            #expect(rest.hasMore == false)
            _ = try await store.deletePass(other.identifier)
            let deleted = try await store.passHistory(since: rest.newToken, limit: nil)
            #expect(deleted.deleted == [other.identifier])
            #expect(try await store.passHistory(since: deleted.newToken, limit: nil).isEmpty)
            let foreign = OrderHistoryToken(storeID: "another-store", sequence: 1)
            await #expect(throws: WalletOrdersError.self) { try await store.passHistory(since: foreign, limit: nil) }
        }
    }

    @Test(
        "A copy takes every version of every pass, oldest first, with its registrations, and carries the change sequence",
        arguments: OrderStoreCopyTests.pairs.filter { $0.0 != .inMemory })
    func copy(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        let versions = try [
            SamplePasses.verified(serialNumber: "C-1"), SamplePasses.verified(serialNumber: "C-1", event: "Moved"),
            SamplePasses.verified(serialNumber: "C-1", event: "Moved", voided: true),
        ]
        let others = try (2..<5).map { try SamplePasses.verified(serialNumber: "C-\($0)") }
        try await sourceKind.withWebServiceStore { source in
            try await destinationKind.withWebServiceStore { destination in
                for version in versions { _ = try await source.save(verifiedPass: version) }
                _ = try await source.save(verifiedPasses: others)
                #expect(try await source.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: versions[0].identifier) == .created)
                #expect(try await source.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: versions[0].identifier) == .created)
                let report = try await PassStoreCopy.copy(from: source, to: destination, validator: SamplePasses.validator, batchSize: 2)
                #expect(report.read == 4)
                #expect(report.written == 4)
                #expect(report.failures.isEmpty)
                #expect(report.registrations == 2)
                #expect(try await destination.registrations(for: versions[0].identifier) == source.registrations(for: versions[0].identifier))
                let verification = try await PassStoreCopy.verify(source: source, destination: destination)
                #expect(verification.isComplete)
                #expect(verification.identical == 4)
                #expect(try await destination.passVersions(for: versions[0].identifier).map(\.sha256) == versions.map(\.sha256))
                #expect(try await destination.passSummary(for: versions[0].identifier)?.current.voided == true)
                let from = try #require(source as? any OrderChangeSequencing)
                let to = try #require(destination as? any OrderChangeSequencing)
                #expect(
                    try await to.newestChangeSequence() >= from.newestChangeSequence(),
                    "a token of the source still names a point the destination has passed")

                // Again: nothing new is written.
                let again = try await PassStoreCopy.copy(from: source, to: destination, validator: SamplePasses.validator)
                #expect(again.written == 0)
                #expect(again.unchanged == 4)
                #expect(try await destination.passVersions(for: versions[0].identifier).count == 3)
            }
        }
    }
}
