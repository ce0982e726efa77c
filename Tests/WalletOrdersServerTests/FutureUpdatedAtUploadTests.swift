import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("The merchant API refuses an order dated far ahead of the service's clock (SQLite store)")
struct FutureUpdatedAtUploadTests {
    @Test(
        "Uploading an archive dated 9999-12-31 is a 422 naming order.updated-at-in-future; nothing is stored, and the next genuine version is added")
    func pinnedUploadIsRefused() async throws {
        let service = try ServiceUnderTest()
        let pinned = try SampleVersions.archive(updatedAt: "9999-12-31T23:59:59Z")
        let genuine = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        try await service.run { client in
            func post(_ bytes: [UInt8]) async throws -> TestResponse {
                try await client.execute(
                    uri: MerchantAPITests.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: bytes))
            }
            let refused = try await post(pinned)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "updated-at-in-future")
            let error = try #require(refused.json["error"] as? [String: Any])
            let message = error["message"] as? String ?? ""
            #expect(message.contains(ValidationRule.orderUpdatedAtInFuture.id), "\(message)")
            #expect(message.contains("9999-12-31T23:59:59Z") && message.contains("1 day"), "\(message)")
            #expect((error["hint"] as? String)?.isEmpty == false)
            let added = try await post(genuine)
            #expect(added.status == .ok)
            #expect(added.json["result"] as? String == "added")
        }
        #expect(try await service.store.archive(for: ServiceUnderTest.order) == genuine)
    }

    @Test("The service checks with its own margin (the store's is a day here): just inside is added, just outside refused")
    func serviceMargin() async throws {
        let service = try ServiceUnderTest(updatedAtLimit: try UpdatedAtLimit(margin: 3_600))
        let formatter = ISO8601DateFormatter()
        let now = Date()
        let outside = try SampleVersions.archive(updatedAt: formatter.string(from: now.addingTimeInterval(3_900)))
        let inside = try SampleVersions.archive(updatedAt: formatter.string(from: now.addingTimeInterval(3_300)))
        try await service.run { client in
            let refused = try await client.execute(
                uri: MerchantAPITests.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: outside))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "updated-at-in-future")
            let added = try await client.execute(
                uri: MerchantAPITests.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: inside))
            #expect(added.json["result"] as? String == "added")
        }
    }
}
