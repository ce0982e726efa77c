import Foundation
import Testing
import WalletOrdersTestSupport

/// Issue 11: pushes are queued durably in the save's transaction; a server killed with SIGKILL
/// while they are pending, claimed or not, delivers every one after a restart.
@Suite("wallet-orders serve killed with SIGKILL while pushes are pending: all are delivered after a restart", .serialized)
struct PushCrashEndToEndTests {
    static let key = "merchant-key-0123456789abcdef"

    /// TLS for the stand-in and a P-256 token key, made by the openssl CLI.
    static func credentials(in folder: TemporaryFolder) async throws {
        for arguments in [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.file("apns-key.pem").path, "-out", folder.file("apns-cert.pem").path,
            ],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.file("token.p8").path],
            ["pkey", "-in", folder.file("token.p8").path, "-pubout", "-out", folder.file("token.pub").path],
        ] {
            let result = try await ExternalProgram.run(tool: "openssl", arguments)
            #expect(result.status == 0, "\(result)")
        }
    }

    /// The stand-in on `port` (0: any), printing each push as a JSON line.
    static func standIn(_ folder: TemporaryFolder, port: Int, name: String) async throws -> (BackgroundProgram, Int) {
        let binary = try WalletOrdersBinary.url().deletingLastPathComponent().appendingPathComponent("apns-stand-in")
        let child = try await BackgroundProgram.tool(
            [
                "--cert", folder.file("apns-cert.pem").path, "--key", folder.file("apns-key.pem").path, "--listen", "127.0.0.1:\(port)",
                "--jwt-key", folder.file("token.pub").path, "--key-id", "KEY0000001", "--team-id", "TEAM000001",
            ],
            executable: binary, outputIn: folder, name: name)
        do {
            let port = try await child.waitUntil("the port it listens on", timeout: 60 * TestTiming.scale) { printed in
                printed.output.split(separator: "\n").first.flatMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["port"] as? Int
                }.map(String.init)
            }
            return (child, Int(port) ?? 0)
        } catch {
            child.kill()
            throw FixtureError(description: "apns-stand-in did not start: \(error)")
        }
    }

    static func pushes(_ standIn: BackgroundProgram) -> [[String: Any]] { pushes(standIn.output) }

    /// The pushes APNs accepted, from what the stand-in printed.
    static func pushes(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "push" && $0["status"] as? Int == 200 }
    }

    @Test("Pushes pending for 2 devices (APNs down), the server killed -9, restarted with APNs up: every device is pushed, none lost")
    func killedWithPendingPushes() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let folder = store.folder
        try await Self.credentials(in: folder)
        let orders = ["KILL-1", "KILL-2", "KILL-3"]
        let first = try await orders.asyncMap { try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: $0) }
        await #expect(try store.save(first).result.status == 0)
        // A port that nothing listens on yet: the stand-in comes up there after the kill.
        let (probe, port) = try await Self.standIn(folder, port: 0, name: "probe")
        probe.kill()

        let apns = [
            "--apns", "127.0.0.1:\(port)", "--apns-ca", folder.file("apns-cert.pem").path, "--apns-token-key", folder.file("token.p8").path,
            "--apns-key-id", "KEY0000001", "--apns-team-id", "TEAM000001", "--push-poll", "0.1", "--push-lease", "2",
        ]
        let serve = await ["--store", store.url.path] + (try StoreFixtures.trustArguments()) + apns
        let environment = ["WALLET_ORDERS_API_KEYS": "\(Self.key) *"]
        let server = try await RunningServer(serve, environment: environment, folder: folder)
        let tokens = ["aa", "bb"].map { String(repeating: $0, count: 32) }
        for order in orders {
            for (index, token) in tokens.enumerated() {
                let answer = try await HTTPClient.request(
                    "POST", "\(server.baseURL)/v1/devices/device-\(index)/registrations/\(Repository.shippedOrderTypeIdentifier)/\(order)",
                    headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"],
                    body: Data(#"{"pushToken": "\#(token)"}"#.utf8))
                #expect(answer.status == 201)
            }
            let newer = try await StoreFixtures.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: order)
            let saved = try await HTTPClient.request(
                "POST", "\(server.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"], body: try Data(contentsOf: newer))
            #expect(saved.json["result"] as? String == "added")
        }
        // The worker is trying (and failing) to reach APNs: the pushes are claimed or waiting.
        try await Task.sleep(for: .microseconds(500_000))
        server.child.kill()
        let pending = try await ExternalProgram.python(
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM pushOutbox').fetchone()[0])",
            [store.url.path])
        // Pushes coalesce per (device token, topic) while they wait: a push names no order, and the
        // device asks for every order that changed. So 2 to 4 rows (waiting, and claimed ones).
        let rows = Int(pending.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect((2...4).contains(rows), "\(pending.output)")

        let (standIn, _) = try await Self.standIn(folder, port: port, name: "apns")
        defer { standIn.kill() }
        let restarted = try await RunningServer(serve, environment: environment, folder: folder, name: "serve-again")
        _ = try? await standIn.waitUntil("two pushes", timeout: 60 * TestTiming.scale) { printed in
            Self.pushes(printed.output).count >= 2 ? "" : nil
        }
        #expect(try await restarted.stop() == 0)
        let delivered = Self.pushes(standIn)
        #expect(Set(delivered.compactMap { $0["deviceToken"] as? String }) == Set(tokens), "\(standIn.output)")
        let left = try await ExternalProgram.python(
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM pushOutbox').fetchone()[0])",
            [store.url.path])
        #expect(left.output == "0\n")
    }
}
