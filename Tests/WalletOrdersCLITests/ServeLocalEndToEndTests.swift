import Foundation
import Testing
import WalletOrdersTestSupport

@Suite("make serve-local: the service for development with a local APNs stand-in, in one command")
struct ServeLocalEndToEndTests {
    static let type = "order.com.northwindoutfitters.shop"
    static let order = "nw-2025-118734"
    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"  // the sample's authenticationToken

    /// Runs Tests/Demo/serve-local.sh on a free port with its state in `local`; returns the script
    /// and the URL its guide names.
    static func start(local: URL, folder: TemporaryFolder, name: String) async throws -> (BackgroundProgram, String) {
        let script = Repository.root.appendingPathComponent("Tests/Demo/serve-local.sh").path
        let environment = [
            "BIN": try WalletOrdersBinary.url().deletingLastPathComponent().path, "LOCAL_DIR": local.path, "LISTEN": "127.0.0.1:0",
        ]
        // env restores SIGTERM and SIGINT: this test process ignores them (the in-process services'
        // signal handling), children inherit that, and bash can't trap a signal ignored at its start.
        let child = try await BackgroundProgram.tool(
            ["--default-signal=TERM,INT", "bash", script], executable: URL(fileURLWithPath: "/usr/bin/env"), environment: environment,
            outputIn: folder, name: name)
        do {
            let url = try await child.waitUntil("the URL of the guide", timeout: 120 * TestTiming.scale) { printed in
                printed.output.range(of: #"on http://[0-9.:]+ for development"#, options: .regularExpression).map {
                    String(printed.output[$0].dropFirst(3).dropLast(" for development".count))
                }
            }
            return (child, url)
        } catch {
            await stop(child)
            throw FixtureError(description: "serve-local did not start: \(error)")
        }
    }

    /// Stops the script as Ctrl-C would, so that its trap stops the service and the stand-in too
    /// (the `defer`s' SIGKILL to the script's process group is for a test that failed).
    static func stop(_ child: BackgroundProgram) async {
        guard child.isRunning else { return }
        child.send(SIGTERM)
        _ = try? await child.wait(timeout: 30)
    }

    @Test("It signs with a development identity and pushes to the stand-in; SIGTERM stops both; a second run carries on with the same store and key")
    func serveLocal() async throws {
        let folder = try TemporaryFolder("serve-local")
        defer { folder.remove() }
        let local = folder.url.appendingPathComponent("local")
        let (first, url) = try await Self.start(local: local, folder: folder, name: "first")
        defer { first.kill() }
        let key = try #require(try String(contentsOf: local.appendingPathComponent("keys.txt"), encoding: .utf8).split(separator: " ").first)
        #expect(first.output.contains("Authorization: Bearer \(key)"), "the guide shows the merchant's key: \(first.output)")
        let merchant = ["Authorization": "Bearer \(key)", "Content-Type": "application/json"]

        // The first order, as the guide says to post it; a device registers; a new version is pushed.
        let orderFile = local.appendingPathComponent("first-order/\(Self.type)/order.json")
        #expect(first.output.contains("--data-binary @\(orderFile.path)"), "\(first.output)")
        let built = try await HTTPClient.request("POST", "\(url)/merchant/v1/orders/build", headers: merchant, body: try Data(contentsOf: orderFile))
        #expect(built.json["result"] as? String == "added", "\(built.status) \(String(decoding: built.body, as: UTF8.self))")
        let registered = try await HTTPClient.request(
            "POST", "\(url)/v1/devices/iphone-1/registrations/\(Self.type)/\(Self.order)",
            headers: ["Authorization": "AppleOrder \(Self.token)", "Content-Type": "application/json"],
            body: Data(#"{"pushToken": "\#(String(repeating: "a1", count: 32))"}"#.utf8))
        #expect(registered.status == 201)
        var newer = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: orderFile)) as? [String: Any])
        newer["updatedAt"] = "2025-11-23T09:15:00Z"
        let rebuilt = try await HTTPClient.request(
            "POST", "\(url)/merchant/v1/orders/build", headers: merchant, body: try JSONSerialization.data(withJSONObject: newer))
        #expect(rebuilt.json["result"] as? String == "added", "\(String(decoding: rebuilt.body, as: UTF8.self))")
        let apnsLog = local.appendingPathComponent("apns.log")
        var pushed = false
        for _ in 0..<600 where !pushed {
            pushed = ((try? String(contentsOf: apnsLog, encoding: .utf8)) ?? "").contains(#""event":"push""#)
            if !pushed { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(pushed, "no push in apns.log: \((try? String(contentsOf: apnsLog, encoding: .utf8)) ?? "")")

        // SIGTERM stops the script, the service and the stand-in.
        first.send(SIGTERM)
        #expect(try await first.wait(timeout: 60) == 0, "\(first.errorOutput)")
        await #expect((try? HTTPClient.request("GET", "\(url)/health")) == nil, "the service still answers after the script stopped")

        // Run again: the same key, and the store still has the order.
        let (second, secondURL) = try await Self.start(local: local, folder: folder, name: "second")
        defer { second.kill() }
        #expect(second.output.contains("Authorization: Bearer \(key)"))
        let fetched = try await HTTPClient.request(
            "GET", "\(secondURL)/v1/orders/\(Self.type)/\(Self.order)", headers: ["Authorization": "AppleOrder \(Self.token)"])
        #expect(fetched.status == 200)
        second.send(SIGTERM)
        #expect(try await second.wait(timeout: 60) == 0, "\(second.errorOutput)")
    }
}
