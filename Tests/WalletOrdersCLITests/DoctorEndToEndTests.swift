import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders doctor` on a healthy set-up and a broken one.
@Suite("wallet-orders doctor: each part checked, errors with hints, exit 1 when one fails", .temporaryFolder)
struct DoctorEndToEndTests {
    /// The checks of a `doctor --json` run, by name (a name may repeat: one signing line per identity).
    static func checks(_ output: String) throws -> [(name: String, status: String, detail: String)] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
        return array.map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "", $0["detail"] as? String ?? "") }
    }

    @Test(
        "Healthy: the libraries, a store to be created, a valid signing identity with its expiry, APNs (a stand-in) reached over TLS and the clock agreeing; exit 0"
    )
    func healthy() async throws {
        let folder = try TemporaryFolder.ofTest
        try await PushCrashEndToEndTests.credentials(in: folder)
        let (standIn, port) = try await PushCrashEndToEndTests.standIn(folder, port: 0, name: "apns")
        defer { standIn.kill() }
        let type = "order.com.example.doctor"
        let made = try await CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", folder.file("signing/\(type)").path])
        #expect(made.status == 0, "\(made)")
        let result = try await CLI.run([
            "doctor", "--json", "--listen", "127.0.0.1:0", "--store", folder.file("orders.sqlite").path, "--signing-dir",
            folder.file("signing").path,
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
    func broken() async throws {
        let folder = try TemporaryFolder.ofTest
        try await PushCrashEndToEndTests.credentials(in: folder)
        let notAFolder = try folder.write(Array("x".utf8), to: "file")
        let type = "order.com.example.doctor"
        #expect(
            try await CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", folder.file("signing/\(type)").path]).status
                == 0)
        for name in ["order-type.key.pem", "order-type.p12"] { try? FileManager.default.removeItem(at: folder.file("signing/\(type)/\(name)")) }
        // A port nothing listens on: the stand-in's, once it has stopped.
        let (probe, port) = try await PushCrashEndToEndTests.standIn(folder, port: 0, name: "probe")
        probe.kill()
        let result = try await CLI.run([
            "doctor", "--listen", "127.0.0.1:0", "--store", notAFolder.appendingPathComponent("orders.sqlite").path, "--signing-dir",
            folder.file("signing").path,
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

    /// A self-signed TLS certificate for 127.0.0.1 and its key, `NAME.pem` and `NAME.key.pem`.
    static func tlsCertificate(_ folder: TemporaryFolder, _ name: String) async throws -> (certificate: String, key: String) {
        let (certificate, key) = (folder.file("\(name).pem").path, folder.file("\(name).key.pem").path)
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "400", "-subj", "/CN=\(name)",
                "-keyout", key, "-out", certificate,
            ])
        try #require(made.status == 0, "\(made)")
        return (certificate, key)
    }

    @Test(
        "What serve trips over: a store folder that doesn't exist, a port in use, a TLS key of another certificate, a flat signing folder, no merchant key"
    )
    func whatServeTripsOver() async throws {
        let folder = try TemporaryFolder.ofTest
        try await PushCrashEndToEndTests.credentials(in: folder)
        // A port something listens on: the stand-in's.
        let (standIn, port) = try await PushCrashEndToEndTests.standIn(folder, port: 0, name: "apns")
        defer { standIn.kill() }
        let type = "order.com.example.doctor"
        // The likeliest mistake: --signing-dir given the folder dev-certs wrote for one type.
        let flat = folder.file("flat")
        try #require(try await CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", flat.path]).status == 0)
        let (certificate, _) = try await Self.tlsCertificate(folder, "server")
        let (_, otherKey) = try await Self.tlsCertificate(folder, "other")
        let store = folder.file("missing/orders.sqlite").path
        let arguments = [
            "--store", store, "--listen", "127.0.0.1:\(port)", "--tls-certificate", certificate, "--tls-key", otherKey, "--signing-dir", flat.path,
        ]
        let result = try await CLI.run(["doctor"] + arguments)
        #expect(result.status == 1, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for (name, text) in [
            ("store", "its folder \(folder.file("missing").path) does not exist, and serve doesn't make it"),
            ("listen", "Can't listen on 127.0.0.1:\(port): another process is listening there."),
            ("tls", "The TLS key (--tls-key) is not the private key of the TLS certificate (--tls-certificate) ('CN=server')"),
            ("signing", "holds order-type.p12 itself; it takes one subfolder per order type"),
        ] {
            let index = try #require(
                lines.firstIndex { $0.hasPrefix("error") && $0.contains(" \(name) ") && $0.contains(text) }, "\(name): \(result.output)")
            #expect(lines.indices.contains(index + 1) && lines[index + 1].contains("hint: "), "\(name) has a hint: \(result.output)")
        }
        #expect(lines.contains { $0.hasPrefix("warning") && $0.contains(" keys ") && $0.contains("no merchant API key") }, "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing").path), "doctor creates nothing")

        // serve meets the same: each of these alone stops it before it listens.
        for (extra, message) in [
            (["--store", store], "doesn't exist (an explicit store location is never created)"),
            (["--tls-certificate", certificate, "--tls-key", otherKey], "is not the private key of the TLS certificate (--tls-certificate)"),
            (["--signing-dir", flat.path], "holds order-type.p12 itself"),
        ] {
            var serveArguments = ["serve", "--listen", "127.0.0.1:0"]
            if extra.first != "--store" { serveArguments += ["--store", folder.file("orders.sqlite").path] }
            let served = try await CLI.run(serveArguments + extra, timeout: 120)
            #expect(served.status == 1, "\(extra): \(served)")
            #expect(served.errorOutput.contains(message), "\(extra): \(served.errorOutput)")
        }
        let served = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path, "--listen", "127.0.0.1:\(port)"], timeout: 120)
        #expect(served.status == 1 && served.errorOutput.contains("another process is listening there"), "\(served)")
    }

    @Test(
        "A .p12 with a passphrase in the variable signing.passphraseEnvironment names is loaded as serve loads it; a misspelt key type and an identity no key covers are warnings"
    )
    func passphraseFromTheEnvironmentAndKeys() async throws {
        let folder = try TemporaryFolder.ofTest
        let type = "order.com.example.doctor"
        let identity = folder.file("signing/\(type)")
        try #require(try await CLI.run(["dev-certs", "--order-type-id", type, "--team-id", "ABCDE12345", "--out", identity.path]).status == 0)
        // The .p12 of the systemd set-up the docs show: encrypted, its passphrase in an environment file.
        let exported = try await ExternalProgram.run(
            tool: "openssl",
            [
                "pkcs12", "-export", "-in", identity.appendingPathComponent("order-type.pem").path, "-inkey",
                identity.appendingPathComponent("order-type.key.pem").path, "-passout", "pass:correct horse", "-out",
                identity.appendingPathComponent("order-type.p12").path,
            ])
        try #require(exported.status == 0, "\(exported)")
        for name in ["order-type.pem", "order-type.key.pem"] { try FileManager.default.removeItem(at: identity.appendingPathComponent(name)) }
        let keys = try folder.write(Array("k0000000000000000000000000000001 order.com.exmple.doctor\n".utf8), to: "keys.txt")
        let settings = try folder.write(
            Array(#"{"signing": {"directory": "\#(folder.file("signing").path)", "passphraseEnvironment": "ORDER_P12_PASS"}}"#.utf8),
            to: "service.json")
        let arguments = [
            "doctor", "--json", "--config", settings.path, "--store", folder.file("orders.sqlite").path, "--api-key-file", keys.path,
            "--listen", "127.0.0.1:0",
        ]
        let result = try await CLI.run(arguments, environment: ["ORDER_P12_PASS": "correct horse"])
        #expect(result.status == 0, "\(result)")
        let checks = try Self.checks(result.output)
        #expect(
            checks.contains { $0.name == "signing" && $0.status == "ok" && $0.detail.hasPrefix("\(type): the certificate is valid until ") },
            "\(checks)")
        #expect(checks.contains { $0.name == "listen" && $0.status == "ok" }, "\(checks)")
        #expect(
            checks.contains {
                $0.name == "keys" && $0.status == "warning" && $0.detail.contains("order.com.exmple.doctor")
                    && $0.detail.contains("did you mean \(type)?")
            }, "\(checks)")
        #expect(
            checks.contains {
                $0.name == "keys" && $0.status == "warning"
                    && $0.detail == "no key may act on \(type), whose identity \(folder.file("signing").path) holds"
            }, "\(checks)")
        // A wrong passphrase is what it says.
        let wrong = try await CLI.run(arguments, environment: ["ORDER_P12_PASS": "wrong"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(try Self.checks(wrong.output).contains { $0.name == "signing" && $0.status == "error" }, "\(wrong)")
    }

    @Test("doctor --help names the command as it is typed")
    func helpUsage() async throws {
        let help = try await CLI.run(["doctor", "--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.output.contains("USAGE: wallet-orders doctor "), "\(help.output)")
        #expect(!help.output.contains("serve doctor"), "\(help.output)")
    }
}
