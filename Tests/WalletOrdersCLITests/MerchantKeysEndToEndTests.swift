import Foundation
import Testing
import WalletOrdersTestSupport

@Suite(
    "wallet-orders serve: merchant API keys scoped to order types (key file, WALLET_ORDERS_API_KEYS)", .serialized,
    .temporaryFolder)
struct MerchantKeysEndToEndTests {
    static let keyA = "merchant-a-key-0123456789abcdef"
    static let keyB = "merchant-b-key-0123456789abcdef"
    static let keyAll = "operator-key-0123456789abcdef"

    @Test("A key file line without order types stops serve at start-up: error and hint name the file and line, never the key")
    func keyFileLineWithoutScope() async throws {
        let folder = try TemporaryFolder.ofTest
        let keys = try folder.write(
            Array("# merchant A\n\(Self.keyA) \(Repository.shippedOrderTypeIdentifier)\n\(Self.keyB)\n".utf8), to: "keys.txt")
        let result = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path, "--api-key-file", keys.path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorOutput.contains("error: The API key file \(keys.path), line 3: the key has no list of the order types"),
            "\(result.errorOutput)")
        #expect(result.errorOutput.contains("hint: Write the key, whitespace, then the order types"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains(Self.keyB) && !result.errorOutput.contains(Self.keyA))
        #expect(!result.errorOutput.contains("listening on"))
    }

    @Test("WALLET_ORDERS_API_KEYS in the old KEY1,KEY2 form is refused with a hint showing the new form")
    func oldEnvironmentForm() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(
            ["serve", "--store", folder.file("orders.sqlite").path], environment: ["WALLET_ORDERS_API_KEYS": "\(Self.keyA),\(Self.keyB)"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("no longer separated by commas"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("WALLET_ORDERS_API_KEYS='KEY1 order.com.example.shop;KEY2 *'"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains(Self.keyA))
    }

    @Test("WALLET_ORDERS_API_KEYS entries separated by ';' and newlines: each key acts on its own order types, * on all")
    func environmentForm() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let keys = "\(Self.keyA) \(Repository.shippedOrderTypeIdentifier);\(Self.keyB) order.com.contoso.tickets\n\(Self.keyAll) *"
        let server = try await RunningServer(
            ["--store", store.url.path] + (try StoreFixtures.trustArguments()), environment: ["WALLET_ORDERS_API_KEYS": keys],
            folder: store.folder)
        let order = "\(server.baseURL)/merchant/v1/orders/\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        func get(_ url: String, _ key: String) async throws -> HTTPClient.Answer {
            try await HTTPClient.request("GET", url, headers: ["Authorization": "Bearer \(key)"])
        }
        #expect(try await get(order, Self.keyA).status == 200)
        #expect(try await get(order, Self.keyAll).status == 200)
        let refused = try await get(order, Self.keyB)
        #expect(refused.status == 403)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "order-type-not-permitted")
        #expect(
            try await get(order.replacingOccurrences(of: Repository.shippedOrderIdentifier, with: "never-stored"), Self.keyB).body == refused.body)
        await #expect((try get("\(server.baseURL)/merchant/v1/orders", Self.keyB).json["orders"] as? [Any])?.isEmpty == true)
        await #expect((try get("\(server.baseURL)/merchant/v1/orders", Self.keyAll).json["orders"] as? [Any])?.count == 1)
        #expect(try await server.stop() == 0)
    }
}
