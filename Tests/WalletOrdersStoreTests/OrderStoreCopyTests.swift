import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestFixtures

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
                _ = try await source.save(signedArchives: archives)
                #expect(try await destination.save(signedArchive: newer) == .added)

                let cursors = CursorLog()
                let report = try await OrderStoreCopy.copy(from: source, to: destination, batchSize: 2) { await cursors.add($0) }
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
                let resumed = try await OrderStoreCopy.copy(from: source, to: destination, batchSize: 2, after: progress[0].cursor)
                #expect(resumed.read == 3)
                #expect(resumed.written == 0)
                #expect(resumed.unchanged == 3)
            }
        }
    }

    @Test("Verification names the orders missing from the destination", arguments: [StoreKind.inMemory])
    func missing(kind: StoreKind) async throws {
        try await kind.withStore { (source: any OrderStoring) async throws -> Void in
            try await kind.withStore { (destination: any OrderStoring) async throws -> Void in
                _ = try await source.save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "M-1"))
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
