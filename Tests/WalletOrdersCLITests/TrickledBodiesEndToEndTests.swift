import Foundation
import Testing
import WalletOrdersTestSupport

/// The trickled-body attack against the real service: many addresses open registration requests
/// with a customer's order token and send their bodies a byte every 2 s, each byte within the 30 s
/// between-bytes deadline, and open a new one whenever the service closes one. It once filled the
/// connection cap and kept `/health` out for the whole hold. `wallet-orders serve` and the attacker
/// (Python, `Support/trickled_bodies.py`) each run in a process of their own, and the attacker
/// stops by itself.
@Suite("wallet-orders serve holds up under trickled request bodies from many addresses", .serialized)
struct TrickledBodiesEndToEndTests {
    struct Report: Decodable {
        var opened: Int
        var closedByService: Int
        var longestLived: Double
        var oldestOpenAtEnd: Double
        var probes: Int
        var answered: Int
        var failures: [String]
        var failureCount: Int
        var slowestAnswer: Double
        var elapsed: Double
    }

    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"

    /// 400 connections (under the cap of 600: only the body's rate can close them) and 800 (over
    /// it: the cap's making room for new connections closes them too).
    @Test(
        "Trickled registrations from 20 addresses, under and over a cap of 600: each is closed within seconds, and /health from a fresh address answers throughout",
        arguments: [20, 40])
    func trickledRegistrations(perAddress: Int) async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        // The flood is over the global cap (600) but not over the per-address one (64): only the
        // body's own deadline and the cap's making room can keep the service answering.
        let server = try await RunningServer(
            [
                "--store", store.url.path, "--log-level", "error", "--header-timeout", "3", "--body-timeout", "30",
                "--max-connections", "600", "--max-connections-per-address", "64",
            ] + (try StoreFixtures.trustArguments()), folder: store.folder)
        defer { server.child.kill() }
        let port = try #require(server.baseURL.split(separator: ":").last.flatMap { Int($0) })
        let path = "/v1/devices/trickler/registrations/\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let script = Repository.tests.appendingPathComponent("WalletOrdersCLITests/Support/trickled_bodies.py")
        let result = try await ExternalProgram.run(
            tool: "python3", [script.path, String(port), "20", String(perAddress), "20", path, "AppleOrder \(Self.token)"],
            timeout: 300 * TestTiming.scale)
        try #require(result.status == 0, "\(result)")
        let report = try JSONDecoder().decode(Report.self, from: result.standardOutput)
        print("trickled bodies: \(result.output)")
        #expect(report.probes > 0 && report.failureCount == 0, "/health failed while the flood was held: \(report)")
        #expect(report.answered == report.probes, "\(report)")
        #expect(report.closedByService >= 20 * perAddress, "the service closed trickled connections: \(report)")
        // Under the cap, the body rate closes a trickled body about 3 s (the header timeout) after
        // its head; the 30 s between-bytes deadline alone would have kept every one for the whole
        // 20 s run. Over the cap, a socket the flooder opened may sit in the kernel's listen
        // backlog, not yet accepted, for as long as the service is busy making room: its age says
        // nothing of the service's deadlines, so there only the count of closes and the probes
        // answered are the evidence (a fresh-clone CI run under load saw one live 18.65 s).
        if perAddress == 20 {
            #expect(report.longestLived < 15, "a trickled body lived \(report.longestLived) s: \(report)")
            #expect(report.oldestOpenAtEnd < 15, "a trickled body was still open after \(report.oldestOpenAtEnd) s: \(report)")
        }
        #expect(try await server.stop() == 0, "the service stopped cleanly after the flood")
    }
}
