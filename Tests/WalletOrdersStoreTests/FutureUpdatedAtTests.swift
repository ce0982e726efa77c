import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// An order's versions are ordered by `updatedAt`, so an archive dated far in the future, once
/// stored, would make every later genuine version `newerExisting` forever. Every store refuses an
/// `updatedAt` more than its margin ahead of its clock.
@Suite("No order can be pinned by its clock: an updatedAt far ahead of the store's clock is refused", .serialized)
struct FutureUpdatedAtTests {
    static let pinnedText = "9999-12-31T23:59:59Z"

    /// RFC 3339 text for `date`, to the second.
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    @Test(
        "An archive dated 9999-12-31 is refused with order.updated-at-in-future, alone and in a batch; the next genuine version is added",
        arguments: StoreKind.allCases)
    func pinnedVersionIsRefused(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier
            let pinned = try SampleVersions.archive(updatedAt: Self.pinnedText)

            let thrown = await #expect(throws: WalletOrdersError.self) { try await store.intake().save(signedArchive: pinned) }
            let error = try #require(thrown)
            #expect(error.code == .updatedAtInFuture)
            #expect(error.message.contains(ValidationRule.orderUpdatedAtInFuture.id), "\(error.message)")
            #expect(error.message.contains(Self.pinnedText), "names the value: \(error.message)")
            #expect(error.message.contains("1 day"), "names the margin: \(error.message)")
            #expect(error.message.contains(String(Self.text(Date()).prefix(10))), "names the clock: \(error.message)")
            #expect(error.hint?.contains("Set updatedAt to the time of the change") == true, "\(String(describing: error.hint))")
            #expect(try await store.contains(matching: id) == .notFound)

            // The batch path gives the same refusal in its place, and saves the rest.
            let genuine = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let results = try await store.intake().save(signedArchives: [pinned, genuine])
            #expect(results.count == 2)
            if case .failure(let refusal) = results[0] {
                #expect(refusal.code == .updatedAtInFuture)
            } else {
                Issue.record("the pinned archive was saved in a batch: \(results[0])")
            }
            #expect((try? results[1].get())?.result == .added)

            // The attack fails on a stored order too, and genuine versions keep coming in.
            await #expect(throws: WalletOrdersError.self) { try await store.intake().save(signedArchive: pinned) }
            let later = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
            #expect(try await store.intake().save(signedArchive: later) == .added)
            #expect(try await store.archive(for: id) == later)
        }
    }

    @Test("The margin is the store's option: an updatedAt just inside it is added, just outside it refused", arguments: StoreKind.allCases)
    func marginIsConfigurable(kind: StoreKind) async throws {
        let limit = try UpdatedAtLimit(margin: 3_600)
        let now = Date()
        let outside = try SampleVersions.archive(updatedAt: Self.text(now.addingTimeInterval(3_600 + 300)))
        let inside = try SampleVersions.archive(updatedAt: Self.text(now.addingTimeInterval(3_600 - 300)))
        try await kind.withStore(updatedAtLimit: limit) { (store: any OrderStoring) async throws -> Void in
            let thrown = await #expect(throws: WalletOrdersError.self) { try await store.intake().save(signedArchive: outside) }
            let error = try #require(thrown)
            #expect(error.code == .updatedAtInFuture)
            #expect(error.message.contains("1 hour"), "names the margin: \(error.message)")
            #expect(try await store.intake().save(signedArchive: inside) == .added)
        }
        // The default margin, a day, takes both.
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            #expect(try await store.intake().save(signedArchive: outside) == .added)
        }
    }
}
