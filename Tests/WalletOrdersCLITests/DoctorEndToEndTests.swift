import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders doctor` on a healthy set-up and a broken one.
@Suite("wallet-orders doctor: each part checked, errors with hints, exit 1 when one fails", .dedicatedThreads)
struct DoctorEndToEndTests {
    /// The checks of a `doctor --json` run, by name (a name may repeat: one signing line per identity).
    static func checks(_ output: String) throws -> [(name: String, status: String, detail: String)] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
        return array.map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "", $0["detail"] as? String ?? "") }
    }

    @Test(
        "Healthy: the libraries, a store to be created, a valid signing identity with its expiry, APNs (a stand-in) reached over TLS and the clock agreeing; exit 0"
    )
    func healthy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try PushCrashEndToEndTests.credentials(in: folder)
        let (standIn, port) = try PushCrashEndToEndTests.standIn(folder, port: 0, name: "apns")
        defer { standIn.kill() }
        let type = "order.com.example.doctor"
        let made = try CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", folder.file("signing/\(type)").path])
        #expect(made.status == 0, "\(made)")
        let result = try CLI.run([
            "doctor", "--json", "--store", folder.file("orders.sqlite").path, "--signing-dir", folder.file("signing").path,
            "--apns", "127.0.0.1:\(port)", "--apns-ca", folder.file("apns-cert.pem").path, "--apns-token-key", folder.file("token.p8").path,
            "--apns-key-id", "KEY0000001", "--apns-team-id", "TEAM000001",
        ])
        #expect(result.status == 0, "\(result)")
        let checks = try Self.checks(result.output)
        let byName = Dictionary(checks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["libraries"]?.status == "ok")
        #expect(byName["libraries"]?.detail.contains("libzint") == true)
        #expect(byName["settings"]?.status == "ok")
        #expect(byName["store"]?.status == "ok", "\(checks)")
        #expect(byName["store"]?.detail.contains("does not exist yet") == true)
        #expect(byName["signing"]?.status == "ok", "\(checks)")
        #expect(byName["signing"]?.detail.hasPrefix("\(type): the certificate is valid until ") == true, "\(checks)")
        #expect(byName["apns"]?.status == "ok", "\(checks)")
        #expect(byName["apns"]?.detail.hasPrefix("127.0.0.1:\(port) answered over TLS") == true, "\(checks)")
        #expect(checks.allSatisfy { $0.status != "error" }, "\(checks)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("orders.sqlite").path), "doctor creates no store")
        #expect(PushCrashEndToEndTests.pushes(standIn).isEmpty, "doctor sends no push")
    }

    @Test("Broken: a store that can't be created, a signing folder with a missing key, APNs unreachable; each an error with a hint, exit 1")
    func broken() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try PushCrashEndToEndTests.credentials(in: folder)
        let notAFolder = try folder.write(Array("x".utf8), to: "file")
        let type = "order.com.example.doctor"
        #expect(
            try CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", folder.file("signing/\(type)").path]).status == 0)
        for name in ["order-type.key.pem", "order-type.p12"] { try? FileManager.default.removeItem(at: folder.file("signing/\(type)/\(name)")) }
        // A port nothing listens on: the stand-in's, once it has stopped.
        let (probe, port) = try PushCrashEndToEndTests.standIn(folder, port: 0, name: "probe")
        probe.kill()
        let result = try CLI.run([
            "doctor", "--store", notAFolder.appendingPathComponent("orders.sqlite").path, "--signing-dir", folder.file("signing").path,
            "--apns", "127.0.0.1:\(port)", "--apns-ca", folder.file("apns-cert.pem").path, "--apns-token-key", folder.file("token.p8").path,
            "--apns-key-id", "KEY0000001", "--apns-team-id", "TEAM000001",
        ])
        #expect(result.status == 1, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for (name, text) in [("store", "can't be created"), ("signing", type), ("apns", "127.0.0.1:\(port) can't be reached")] {
            let index = try #require(
                lines.firstIndex { $0.hasPrefix("error") && $0.contains(" \(name) ") && $0.contains(text) }, "\(name): \(result.output)")
            #expect(lines.indices.contains(index + 1) && lines[index + 1].contains("hint: "), "\(name) has a hint: \(result.output)")
        }
    }
}
