import Foundation
import Testing
import WalletOrdersTestSupport

@Suite("make demo's web service act")
struct WebServiceDemoTests {
    @Test("Tests/Demo/web-service.sh plays a device and a merchant against serve and the APNs stand-in, end to end")
    func webServiceAct() async throws {
        let binaries = try WalletOrdersBinary.url().deletingLastPathComponent()
        var environment = CLI.environment(["BIN": binaries.path])
        environment["TMPDIR"] = NSTemporaryDirectory()
        let result = try await ExternalProgram.run(
            tool: "bash", [Repository.root.appendingPathComponent("Tests/Demo/web-service.sh").path], environment: environment, timeout: 180)
        #expect(result.status == 0, "\(result)")
        for step in [
            "→ 201 (registered)", #""result":"added""#, "topic order.com.northwindoutfitters.shop, apns-push-type background, payload {}",
            "status now: completed", "→ 304 Not Modified",
        ] {
            #expect(result.output.contains(step), "\(step)\n\(result.output)")
        }
    }
}
