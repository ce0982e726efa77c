import APNsStandIn
import Foundation
import Testing
import WalletOrdersServer

/// A rough throughput figure for the APNs client against the local stand-in (both in this
/// process, certificate auth, one HTTP/2 connection). Not a benchmark: it prints the figure and
/// checks only that every push arrived. Runs only when `APNS_THROUGHPUT` is set (it would slow
/// the tests beside it, and they it):
///
///     APNS_THROUGHPUT=1 swift test --skip-build --filter APNsThroughputTests
@Suite("APNs throughput", .enabled(if: ProcessInfo.processInfo.environment["APNS_THROUGHPUT"] != nil))
struct APNsThroughputTests {
    @Test("2,000 pushes with 50 in flight all arrive; prints pushes per second")
    func throughput() async throws {
        let total = Int(ProcessInfo.processInfo.environment["APNS_THROUGHPUT_PUSHES"] ?? "") ?? 2000
        let inFlight = 50
        let standIn = try await APNsTest.startStandIn()
        let client = try APNsTest.client(port: standIn.port, credentials: .certificate(try APNsTest.clientCertificate()))
        let topic = APNsTestPKI.topic
        // Warm up: the TLS handshake and HTTP/2 settings aren't part of the figure.
        #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
        let tokens = (0..<total).map { _ in APNsTest.deviceToken() }
        let started = ContinuousClock.now
        let delivered = await withTaskGroup(of: Bool.self) { group in
            var next = 0
            var delivered = 0
            func add() {
                let token = tokens[next]
                next += 1
                group.addTask { await client.send(PushNotification(deviceToken: token, topic: topic)) == .delivered }
            }
            while next < min(inFlight, total) { add() }
            for await ok in group {
                if ok { delivered += 1 }
                if next < total { add() }
            }
            return delivered
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "APNs throughput: \(total) pushes, \(inFlight) in flight, \(String(format: "%.2f", seconds)) s, "
                + "\(Int(Double(total) / seconds)) pushes/s")
        try await client.shutdown()
        try await standIn.shutdown()
        #expect(delivered == total)
        #expect(standIn.pushes.count == total + 1)
    }
}
