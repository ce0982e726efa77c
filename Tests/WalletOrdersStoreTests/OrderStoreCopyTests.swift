import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("OrderStoreCopy: every order into another store, resumable, verified")
struct OrderStoreCopyTests {
    /// (from, to) pairs: SQLite to PostgreSQL and back, and in memory to each.
    static var pairs: [(StoreKind, StoreKind)] {
        let kinds = StoreKind.allCases
        let wanted: [(StoreKind, StoreKind)] = [(.sqlite, .postgres), (.postgres, .sqlite), (.inMemory, .sqlite)]
        return wanted.filter { kinds.contains($0.0) && kinds.contains($0.1) }
    }

    @Test("A copy in pages writes what is missing, keeps a newer version, resumes after a cursor, and verifies", arguments: pairs)
    func copy(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        let archives = try (0..<5).map {
            try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "C-\($0)")
        }
        let newer = try SampleVersions.archive(updatedAt: "2025-11-25T00:00:00Z", orderIdentifier: "C-4")
        try await sourceKind.withStore { (source: any OrderStoring) async throws -> Void in
            try await destinationKind.withStore { (destination: any OrderStoring) async throws -> Void in
                _ = try await source.intake().save(signedArchives: archives)
                #expect(try await destination.intake().save(signedArchive: newer) == .added)

                let cursors = CursorLog()
                let report = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator, batchSize: 2) {
                    await cursors.add($0)
                }
                #expect(report.read == 5)
                #expect(report.written == 4)
                #expect(report.unchanged == 1, "C-4 is newer in the destination")
                #expect(report.failures.isEmpty)
                let progress = await cursors.all
                #expect(progress.count == 3, "pages of 2, 2 and 1")
                #expect(progress.map(\.report.read) == [2, 4, 5])

                let verification = try await OrderStoreCopy.verify(source: source, destination: destination)
                #expect(verification.isComplete)
                #expect(verification.sourceCount == 5)
                #expect(verification.destinationCount == 5)
                #expect(verification.identical == 4)
                #expect(verification.newerInDestination == 1)
                #expect(verification.sourceDigest != verification.destinationDigest, "C-4 differs")
                #expect(try await destination.archive(for: SampleVersions.identifier("C-4")) == newer)
                #expect(try await destination.archive(for: SampleVersions.identifier("C-0")) == archives[0])

                // Resuming after the first page reads only the rest; nothing is written twice.
                let resumed = try await OrderStoreCopy.copy(
                    from: source, to: destination, validator: TestPKI.validator, batchSize: 2, after: progress[0].cursor)
                #expect(resumed.read == 3)
                #expect(resumed.written == 0)
                #expect(resumed.unchanged == 3)
            }
        }
    }

    @Test(
        "Registrations go with their orders and the destination takes the source's customer link secret (SQLite to PostgreSQL and back)",
        arguments: pairs.filter { $0.0 != .inMemory })
    func registrationsAndLinks(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        let archives = try (0..<3).map {
            try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "R-\($0)")
        }
        try await sourceKind.withWebServiceStore { source in
            try await destinationKind.withWebServiceStore { destination in
                _ = try await source.intake().save(signedArchives: archives)
                let first = SampleVersions.identifier("R-0")
                let second = SampleVersions.identifier("R-2")
                _ = try await source.register(deviceIdentifier: "device-a", pushToken: "token-a", for: first)
                _ = try await source.register(deviceIdentifier: "device-b", pushToken: "token-b", for: first)
                _ = try await source.register(deviceIdentifier: "device-a", pushToken: "token-a", for: second)
                // R-2's last version has a new token: its devices hold the previous one, which goes with it.
                _ = try await source.intake().save(
                    signedArchive: try SampleVersions.archive(
                        updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: "R-2", authenticationToken: "rotated-token-0123456789"))
                let secret = try await source.customerLinkSecret()
                #expect(try await destination.customerLinkSecret() != secret, "each store makes its own")

                let report = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator, batchSize: 2)
                #expect(report.written == 3)
                #expect(report.registrations == 3)
                #expect(
                    try await destination.registrations(for: first) == [
                        DeviceRegistration(deviceIdentifier: "device-a", pushToken: "token-a"),
                        DeviceRegistration(deviceIdentifier: "device-b", pushToken: "token-b"),
                    ])
                #expect(try await destination.registrations(for: second) == [DeviceRegistration(deviceIdentifier: "device-a", pushToken: "token-a")])
                #expect(try await destination.registrations(for: SampleVersions.identifier("R-1")).isEmpty)
                #expect(try await destination.accessRecord(for: second)?.previousAuthenticationToken == SampleVersions.authenticationToken)
                #expect(try await destination.accessRecord(for: first)?.previousAuthenticationToken == nil)
                // The links customers already have are HMACs under the source's secret: they keep working.
                #expect(try await destination.customerLinkSecret() == secret)
                // The device asks the new store what changed: every order it registered for.
                let changed = try #require(
                    try await destination.changedOrders(
                        deviceIdentifier: "device-a", orderTypeIdentifier: first.orderTypeIdentifier, since: nil))
                #expect(changed.orderIdentifiers.sorted() == ["R-0", "R-2"])

                // Copying again changes nothing and registers nothing twice.
                let again = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator)
                #expect(again.written == 0)
                #expect(try await destination.registrationCount(for: first) == 2)
                // A secret of the wrong size is refused.
                let error = try await #require(throws: WalletOrdersError.self) { try await destination.setCustomerLinkSecret([1, 2, 3]) }
                #expect(error.code == .invalidConfiguration)
            }
        }
    }

    @Test(
        "A destination that holds orders keeps its own link secret and accepts the source's: the links both gave out keep working",
        arguments: pairs.filter { $0.0 != .inMemory })
    func destinationWithLinksOfItsOwn(from sourceKind: StoreKind, to destinationKind: StoreKind) async throws {
        // Seen: a copy into a store that had given out links replaced its secret; its links then answered 404.
        try await sourceKind.withWebServiceStore { source in
            try await destinationKind.withWebServiceStore { destination in
                _ = try await source.intake().save(
                    signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "S-0"))
                _ = try await destination.intake().save(
                    signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "D-0"))
                let own = try await destination.customerLinkSecret()
                let sources = try await source.customerLinkSecret()
                let report = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator)
                #expect(report.written == 1)
                #expect(try await destination.customerLinkSecret() == own, "new links are still the destination's own")
                #expect(try await destination.customerLinkSecrets() == [own, sources])
                // Copied onwards, both secrets go along; copying again adds nothing twice.
                _ = try await OrderStoreCopy.copy(from: source, to: destination, validator: TestPKI.validator)
                #expect(try await destination.customerLinkSecrets() == [own, sources])
                let error = try await #require(throws: WalletOrdersError.self) { try await destination.acceptCustomerLinkSecret([1, 2, 3]) }
                #expect(error.code == .invalidConfiguration)
            }
        }
    }

    @Test("Verification names the orders missing from the destination", arguments: [StoreKind.inMemory])
    func missing(kind: StoreKind) async throws {
        try await kind.withStore { (source: any OrderStoring) async throws -> Void in
            try await kind.withStore { (destination: any OrderStoring) async throws -> Void in
                _ = try await source.intake().save(
                    signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "M-1"))
                let verification = try await OrderStoreCopy.verify(source: source, destination: destination)
                #expect(!verification.isComplete)
                #expect(verification.mismatched == [SampleVersions.identifier("M-1")])
                #expect(verification.destinationCount == 0)
            }
        }
    }
}

actor CursorLog {
    private(set) var all: [OrderStoreCopy.Progress] = []
    func add(_ progress: OrderStoreCopy.Progress) { all.append(progress) }
}
