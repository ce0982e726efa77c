import Foundation
import Testing
import WalletOrdersTestSupport

/// Requests anyone may send (changed-orders lists for made-up devices, fetches with a wrong
/// token) against the real service: they once grew the store by 1.77 GB, pushed other orders'
/// trails out and flipped an order's verdict. `wallet-orders serve` and the flooder (Python,
/// `Support/trail_flood.py`) each run in a process of their own, and the flooder stops by itself.
@Suite("wallet-orders serve keeps no trail of requests that speak for no one", .serialized)
struct TrailFloodEndToEndTests {
    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"

    struct Report: Decodable {
        var sent: Int
        var statuses: [String: Int]
    }

    /// The rows of the store's trail, counted by Python's sqlite3 (not the store's own code).
    static func trailRows(_ store: StoreUnderTest) async throws -> Int {
        let result = try await ExternalProgram.python(
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM deliveryEvents').fetchone()[0])",
            [store.url.path])
        return Int(String(decoding: result.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("3,000 lists for made-up devices and 60 wrong-token fetches leave the trail as it was and the device's verdict up to date")
    func floodLeavesNoTrail() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let type = Repository.shippedOrderTypeIdentifier
        let orderPath = "\(type)/\(Repository.shippedOrderIdentifier)"
        var server = try await RunningServer(
            ["--store", store.url.path, "--log-level", "error"] + (try StoreFixtures.trustArguments()), folder: store.folder)
        // A real device: registers, asks, fetches.
        let registered = try await HTTPClient.request(
            "POST", "\(server.baseURL)/v1/devices/phone-1/registrations/\(orderPath)",
            headers: ["Authorization": "AppleOrder \(Self.token)", "Content-Type": "application/json"],
            body: Data(#"{"pushToken": "a1a1a1a1a1a1a1a1"}"#.utf8))
        #expect(registered.status == 201)
        #expect(try await HTTPClient.request("GET", "\(server.baseURL)/v1/devices/phone-1/registrations/\(type)").status == 200)
        let fetched = try await HTTPClient.request(
            "GET", "\(server.baseURL)/v1/orders/\(orderPath)", headers: ["Authorization": "AppleOrder \(Self.token)"])
        #expect(fetched.status == 200)
        #expect(try await server.stop() == 0)  // the trail is written when the service stops
        let before = try await Self.trailRows(store)
        #expect(before == 3, "registered, listed, fetched")

        server = try await RunningServer(
            ["--store", store.url.path, "--log-level", "error"] + (try StoreFixtures.trustArguments()), folder: store.folder)
        defer { server.child.kill() }
        let port = try #require(server.baseURL.split(separator: ":").last.flatMap { Int($0) })
        let script = Repository.tests.appendingPathComponent("WalletOrdersCLITests/Support/trail_flood.py")
        let result = try await ExternalProgram.run(
            tool: "python3", [script.path, String(port), type, orderPath, "3000", "60"], timeout: 300 * TestTiming.scale)
        try #require(result.status == 0, "\(result)")
        let report = try JSONDecoder().decode(Report.self, from: result.standardOutput)
        print("trail flood: \(result.output)")
        #expect(report.sent == 3_060)
        #expect((report.statuses["204"] ?? 0) + (report.statuses["401"] ?? 0) + (report.statuses["429"] ?? 0) == 3_060, "\(report)")
        let metrics = try await HTTPClient.request("GET", "\(server.baseURL)/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        let counted = text.split(separator: "\n").first { $0.hasPrefix("wallet_orders_unregistered_device_lists_total ") }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        #expect(counted == Double(report.statuses["204"] ?? 0), "each list answered is counted, not stored: \(text.prefix(2_000))")
        #expect(try await server.stop() == 0)
        #expect(try await Self.trailRows(store) == before, "the flood left no event")
        let devices = try await CLI.run(["store", "devices", "--store", store.url.path, orderPath, "--json"])
        #expect(devices.status == 0, "\(devices)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(devices.output.utf8)) as? [String: Any])
        let verdicts = (answer["devices"] as? [[String: Any]])?.compactMap { $0["verdict"] as? String }
        #expect(verdicts == ["up-to-date"], "\(devices.output)")
    }
}
