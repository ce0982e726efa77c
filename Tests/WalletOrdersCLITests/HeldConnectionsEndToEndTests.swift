import Foundation
import Testing
import WalletOrdersTestSupport

/// The slow-header attack against the real service: 2,000 connections that send half a request
/// head and then nothing. `wallet-orders serve` and the attacker (Python, `Support/held_connections.py`)
/// each run in a process of their own, so the test process holds no extra descriptors.
@Suite("wallet-orders serve holds up under 2,000 half-open connections", .temporaryFolder)
struct HeldConnectionsEndToEndTests {
    struct Report: Decodable {
        var opened: Double
        var answeredIn: Double
        var statusLine: String
        var checkedEarlyAt: Double
        var closedEarly: Int
        var closed: Int
        var elapsed: Double
    }

    @Test("/health from another address answers at once while 2,000 connections hold half a request head; the header deadline (3 s) closes them all")
    func halfOpenFlood() async throws {
        let folder = try TemporaryFolder.ofTest
        // The per-address cap is raised above the flood, so every connection is really held until the deadline.
        let server = try await RunningServer(
            [
                "--store", folder.file("orders.sqlite").path, "--log-level", "warning", "--header-timeout", "3",
                "--max-connections", "5000", "--max-connections-per-address", "5000",
            ], folder: folder)
        defer { server.child.kill() }
        let port = try #require(server.baseURL.split(separator: ":").last.flatMap { Int($0) })
        let script = Repository.tests.appendingPathComponent("WalletOrdersCLITests/Support/held_connections.py")
        let result = try await ExternalProgram.run(tool: "python3", [script.path, String(port), "2000"], timeout: 120 * TestTiming.scale)
        try #require(result.status == 0, "\(result)")
        let report = try JSONDecoder().decode(Report.self, from: result.standardOutput)
        #expect(report.statusLine.hasPrefix("HTTP/1.1 200 "), "\(report)")
        #expect(report.answeredIn < 5, "/health took \(report.answeredIn) s with 2,000 half-open connections held")
        if report.checkedEarlyAt < 2.5 {
            #expect(report.closedEarly == 0, "closed before the header deadline: \(report)")
        }
        #expect(report.closed == 2_000, "closed by the header deadline: \(report)")
        #expect(report.elapsed >= 2.9, "\(report)")
        #expect(server.child.isRunning, "the service is still up")
    }
}
