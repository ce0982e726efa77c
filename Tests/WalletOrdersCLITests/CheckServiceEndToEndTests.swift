import Foundation
import Testing
import WalletOrdersTestSupport

@Suite("wallet-orders check-service: exit codes and reports, against wallet-orders serve")
struct CheckServiceEndToEndTests {
    static let key = "merchant-key-0123456789abcdef"
    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"
    static let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"

    @Test("Against wallet-orders serve: exit 0, JSON says passed; without signing the change checks are skipped and say why")
    func againstTheService() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let server = try await RunningServer(
            ["--store", store.url.path] + (try StoreFixtures.trustArguments()), environment: ["WALLET_ORDERS_API_KEYS": "\(Self.key) *"],
            folder: store.folder)
        defer { server.child.kill() }
        let result = try await CLI.run(
            ["check-service", server.baseURL, "--order", Self.order, "--token-env", "ORDER_TOKEN", "--merchant-key-env", "KEY", "--format", "json"],
            environment: ["ORDER_TOKEN": Self.token, "KEY": Self.key])
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains(Self.token) && !result.output.contains(Self.key))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["passed"] as? Bool == true)
        let checks = try #require(json["checks"] as? [[String: Any]])
        let skipped = checks.filter { $0["outcome"] as? String == "skipped" }
        #expect(Set(skipped.compactMap { $0["ruleID"] as? String }) == ["service.change-moves-tag", "service.change-served"])
        #expect(skipped.allSatisfy { ($0["skipReason"] as? String)?.contains("no-signing-identity") == true }, "\(skipped)")

        let junit = store.folder.file("service.xml")
        let written = try await CLI.run(
            ["check-service", server.baseURL, "--order", Self.order, "--token", Self.token, "--format", "junit", "--out", junit.path])
        #expect(written.status == 0, "\(written)")
        #expect(written.output.contains("OK (0 errors, 0 warnings); report written to"))
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="wallet-orders check-service" tests="22" failures="0""#), "\(xml)")
    }

    @Test("A wrong token: exit 1 and the findings in text")
    func wrongToken() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let server = try await RunningServer(["--store", store.url.path] + (try StoreFixtures.trustArguments()), folder: store.folder)
        defer { server.child.kill() }
        let result = try await CLI.run(["check-service", server.baseURL, "--order", Self.order, "--token", "not-the-token-at-all"])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.contains("error[service.order]: The order was not served with its token."), "\(result.output)")
        #expect(result.output.contains("FAILED"))
    }

    @Test("No service at the URL: exit 2 with what failed")
    func unreachable() async throws {
        let result = try await CLI.run(["check-service", "http://127.0.0.1:1", "--order", Self.order, "--token", Self.token, "--timeout", "3"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errorOutput.contains("can't be reached"), "\(result.errorOutput)")
    }

    /// A service of `Support/misbehaving_service.py` in `mode`, for `seconds`; its base URL.
    static func misbehaving(_ mode: String, seconds: Int, _ extra: [String] = []) async throws -> (BackgroundProgram, String) {
        let script = Repository.tests.appendingPathComponent("WalletOrdersCLITests/Support/misbehaving_service.py")
        let service = try await BackgroundProgram(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, mode, String(seconds)] + extra)
        let line = try await service.waitForStandardError(containing: "listening on", timeout: 60)
        return (service, "http://127.0.0.1:\(line.split(separator: " ").last ?? "")")
    }

    @Test("A service that sends its head, then a byte a second: --timeout bounds each whole exchange, the body included")
    func dribblingBody() async throws {
        // Seen: 10 minutes with --timeout 5. The service stops by itself after 600 s; the run
        // must end long before, each exchange after 2 s. The bound below is what the mechanism
        // sets (a handful of requests × 2 s), with room for a busy machine.
        let (service, url) = try await Self.misbehaving("dribble", seconds: 600)
        defer { service.kill() }
        let started = Date()
        let result = try await CLI.run(["check-service", url, "--order", Self.order, "--token", Self.token, "--timeout", "2"], timeout: 300)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status != 0, "\(result)")
        #expect(result.output.contains("not all of it within 2 s") || result.errorOutput.contains("not all of it within 2 s"), "\(result)")
        #expect(elapsed < 200, "check-service took \(elapsed) s against a service that never finishes a body")
    }

    @Test("A header value with a right-to-left override reaches the text report escaped, never raw")
    func hostileHeaderEscaped() async throws {
        let (service, url) = try await Self.misbehaving("bidi", seconds: 600)
        defer { service.kill() }
        let result = try await CLI.run(["check-service", url, "--order", Self.order, "--token", Self.token, "--timeout", "5"], timeout: 300)
        #expect(result.status == 1, "\(result)")
        let everything = result.output + result.errorOutput
        #expect(!everything.unicodeScalars.contains { $0.value == 0x202E }, "\(everything)")
        #expect(everything.contains(#"text/html\u{202e}lmth"#), "\(everything)")
    }

    @Test("An order whose updatedAt is ahead of the service's clock is a warning about the order, not a service.not-modified error")
    func updatedAtAheadOfTheClock() async throws {
        // Seen: check-service failed wallet-orders serve itself for an order two hours ahead,
        // inside the day's margin the service accepts.
        let store = try StoreUnderTest()
        defer { store.remove() }
        let ahead = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7_200))
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: ahead)]).result.status == 0)
        let server = try await RunningServer(["--store", store.url.path] + (try StoreFixtures.trustArguments()), folder: store.folder)
        defer { server.child.kill() }
        let result = try await CLI.run(["check-service", server.baseURL, "--order", Self.order, "--token", Self.token])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("warning[service.updated-at-ahead]: The order's updatedAt (\(ahead)) is "), "\(result.output)")
        #expect(!result.output.contains("error["), "\(result.output)")
        #expect(
            !result.output.contains("error[service.not-modified]") && !result.output.contains("warning[service.not-modified]"), "\(result.output)")
        #expect(result.output.contains("skipped [service.not-modified]"), "\(result.output)")
    }

    @Test("A service that reads If-Modified-Since as a number and asks for Authorization on the changed-orders list: each named for what it is")
    func numbersAndAListBehindAuthorization() async throws {
        let updatedAt = "2025-11-21T00:00:00Z"
        let archive = try await StoreFixtures.archive(updatedAt: updatedAt)
        let epoch = "1763683200"  // updatedAt in epoch seconds
        let (service, url) = try await Self.misbehaving("numbers", seconds: 600, [archive.path, Self.token, epoch])
        defer { service.kill() }
        let result = try await CLI.run(["check-service", url, "--order", Self.order, "--token", Self.token, "--timeout", "10"], timeout: 300)
        #expect(result.status == 1, "\(result)")
        // Its own Last-Modified is a number, so the If-Modified-Since sent is the order's updatedAt as an HTTP-date, as Wallet's is.
        #expect(
            result.output.contains("error[service.last-modified]: Last-Modified is not an RFC 9110 HTTP-date (epoch seconds)."), "\(result.output)")
        #expect(
            result.output.contains("error[service.not-modified]: If-Modified-Since with the order's updatedAt as an HTTP-date"),
            "\(result.output)")
        #expect(result.output.contains("If-Modified-Since: Fri, 21 Nov 2025 00:00:00 GMT"), "\(result.output)")
        #expect(
            result.output.contains("error[service.changed-orders]: The changed-orders list demands Authorization, which Wallet doesn't send for it."),
            "\(result.output)")
        #expect(!result.output.contains("The registered order is not listed"), "\(result.output)")
    }

    @Test(
        "Usage errors: exit 64",
        arguments: [
            ["check-service", "http://127.0.0.1:1", "--order", "no-slash", "--token", "t"],
            ["check-service", "http://127.0.0.1:1", "--order", "a/b"],
            ["check-service", "ftp://example.com", "--order", "a/b", "--token", "t"],
            ["check-service", "http://127.0.0.1:1", "--order", "a/b", "--token", "t", "--timeout", "0"],
        ])
    func usageErrors(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(result)")
    }
}
