import Foundation
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

/// `apns-stand-in`, the command `make demo` starts: it says where it listens, prints each push as
/// a JSON line, and follows its scripted failures.
@Suite("apns-stand-in tool")
struct APNsStandInToolTests {
    /// The built executable, next to the test bundle or in `.build-release/release`.
    static func executable() throws -> URL {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Repository.root.appendingPathComponent(".build-release/release", isDirectory: true))
        let candidates = folders.map { $0.appendingPathComponent("apns-stand-in") }
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "apns-stand-in not built; looked at \(candidates.map(\.path))")
    }

    /// The JSON lines of `file` so far, once `count` are there (waits up to 30 s).
    /// The first `count` JSON lines the stand-in prints, as soon as it has printed them.
    static func lines(_ standIn: BackgroundProgram, count: Int) async throws -> [[String: Any]] {
        let text = try await standIn.waitUntil("\(count) JSON lines", timeout: 30 * TestTiming.scale) { printed in
            let lines = BackgroundProgram.Printed.lines(printed.output).filter { $0.hasPrefix("{") && $0.hasSuffix("}") }
            return lines.count >= count ? printed.output : nil
        }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test("prints where it listens, one JSON line per push, and follows --fail-token")
    func printsPushes() async throws {
        let pki = try await APNsTest.pki
        let folder = try TemporaryFolder("apns-stand-in")
        defer { folder.remove() }
        let certificate = try folder.write(Array(pki.serverCertificatePEM.utf8), to: "server.pem")
        let key = try folder.write(Array(pki.serverKeyPEM.utf8), to: "server.key")
        let clientCA = try folder.write(Array(pki.clientCAPEM.utf8), to: "client-ca.pem")
        let gone = APNsTest.deviceToken()
        let standIn = try await BackgroundProgram(
            try Self.executable(),
            ["--cert", certificate.path, "--key", key.path, "--client-ca", clientCA.path, "--fail-token", "\(gone):410:Unregistered"])
        defer { standIn.kill() }

        let listening = try await Self.lines(standIn, count: 1)[0]
        #expect(listening["event"] as? String == "listening")
        let port = try #require(listening["port"] as? Int)
        #expect(port > 0)

        let client = try await APNsTest.client(port: port, credentials: .certificate(try APNsTest.clientCertificate()))
        let token = APNsTest.deviceToken()
        let delivered = await client.send(PushNotification(deviceToken: token, topic: APNsTestPKI.topic))
        let unregistered = await client.send(PushNotification(deviceToken: gone, topic: APNsTestPKI.topic))
        try await client.shutdown()
        #expect(delivered == .delivered)
        #expect(unregistered == .deviceGone(reason: "Unregistered"))

        let lines = try await Self.lines(standIn, count: 3)
        #expect(lines[1]["event"] as? String == "push")
        #expect(lines[1]["deviceToken"] as? String == token)
        #expect(lines[1]["topic"] as? String == APNsTestPKI.topic)
        #expect(lines[1]["status"] as? Int == 200)
        #expect(lines[1]["auth"] as? String == "certificate")
        #expect(lines[1]["body"] as? String == "{}")
        #expect((lines[1]["headers"] as? [String: String])?["apns-push-type"] == "background")
        #expect(lines[2]["deviceToken"] as? String == gone)
        #expect(lines[2]["status"] as? Int == 410)
        #expect(lines[2]["reason"] as? String == "Unregistered")
    }
}
