import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestSupport

/// `wallet-orders store devices`: the delivery report of a store's order, from the trail a
/// service wrote, as text and JSON.
@Suite(.serialized) struct StoreDevicesTests {
    @Test("Text and JSON name each device by its hash with its verdict and trail; an unknown order exits 10")
    func report() async throws {
        let folder = try TemporaryFolder("devices")
        defer { folder.remove() }
        let path = folder.file("orders.sqlite").path
        let order = FullyQualifiedOrderIdentifier(orderTypeIdentifier: Repository.shippedOrderTypeIdentifier, orderIdentifier: "ORDER-1")
        // The order is stored (a registration is only for an order the store holds).
        let saved = try await CLI.run(
            ["store", "save", try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "ORDER-1").path, "--store", path]
                + (try StoreFixtures.trustArguments()))
        #expect(saved.status == 0, "\(saved)")
        do {
            let store = try SQLiteOrderStore(url: URL(fileURLWithPath: path))
            defer { try? store.close() }
            #expect(try await store.register(deviceIdentifier: "kitchen-ipad", pushToken: "ab12cd34ef56", for: order, limits: .unlimited) == .created)
            let token = DeliveryEvent.hash("ab12cd34ef56", orderType: order.orderTypeIdentifier)
            let device = DeliveryEvent.hash("kitchen-ipad", orderType: order.orderTypeIdentifier)
            try await store.recordDeliveryEvents([
                DeliveryEvent(
                    .registered, at: Date(timeIntervalSince1970: 1_764_000_000), orderTypeIdentifier: order.orderTypeIdentifier,
                    orderIdentifier: order.orderIdentifier, deviceHash: device, tokenHash: token, detail: .init(status: 201, tokenPrefix: "ab12cd34")),
                DeliveryEvent(
                    .pushed, at: Date(timeIntervalSince1970: 1_764_000_060), orderTypeIdentifier: order.orderTypeIdentifier, tokenHash: token,
                    detail: .init(status: 200, apnsID: "5E2B1C7A-0000-4000-8000-000000000001")),
            ])
        }
        let text = try await CLI.run(["store", "devices", "--store", path, "\(Repository.shippedOrderTypeIdentifier)/ORDER-1"])
        #expect(text.status == 0, "\(text)")
        #expect(
            text.output.contains(
                "device \(DeliveryEvent.hash("kitchen-ipad", orderType: order.orderTypeIdentifier)) (token ab12cd34…, registered): pushed but never asked"
            ))
        #expect(text.output.contains("apns-id 5E2B1C7A-0000-4000-8000-000000000001"))
        #expect(!text.output.contains("kitchen-ipad"))

        let json = try await CLI.run(["store", "devices", "--store", path, Repository.shippedOrderTypeIdentifier, "ORDER-1", "--json"])
        #expect(json.status == 0, "\(json)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(devices.map { $0["verdict"] as? String } == ["pushed-never-asked"])

        let unknown = try await CLI.run(["store", "devices", "--store", path, "\(Repository.shippedOrderTypeIdentifier)/ORDER-2"])
        #expect(unknown.status == 10, "\(unknown)")
    }
}
