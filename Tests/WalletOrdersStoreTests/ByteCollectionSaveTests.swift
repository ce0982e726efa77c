import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// A service hands an upload's body (`Data`, a `ByteBufferView`, …) to the intake as it is.
@Suite struct ByteCollectionSaveTests {
    @Test("The intake's save(signedArchive:) and save(signedArchives:) take Data; VerifiedOrderArchive.checking too")
    func savesData() async throws {
        let store = InMemoryOrderStore()
        let first = Data(try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        let second = Data(try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        #expect(try await store.intake().save(signedArchive: first) == .added)
        let receipts = try await store.intake().save(signedArchives: [second, first])
        #expect(try receipts.map { try $0.get().result } == [.added, .newerExisting])
        let (checked, report) = VerifiedOrderArchive.checking(bytes: second[...], validator: TestPKI.validator)
        #expect(report.isValid)
        #expect(try checked.get().updatedAt == Timestamp(rfc3339: "2025-11-22T00:00:00Z"))
        #expect(
            try await store.contains(matching: SampleVersions.identifier, updatedDate: Timestamp(rfc3339: "2025-11-22T00:00:00Z"))
                == .exists)
        #expect(throws: WalletOrdersError.self) { try VerifiedOrderArchive(bytes: Data("not an archive".utf8), validator: TestPKI.validator) }
    }
}
