import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders.service`, the systemd unit at the repository's top level, as systemd reads it
/// (`systemd-analyze`, offline: no running systemd is needed) and as the service reads its settings.
@Suite(.temporaryFolder) struct SystemdUnitTests {
    static let unit = Repository.root.appendingPathComponent("wallet-orders.service")
    /// Where `make install` (PREFIX=/usr/local) puts the binary, and so where ExecStart looks.
    static let installedBinary = "/usr/local/bin/wallet-orders"

    /// The unit's `Key=value` lines (comments and section headers left out), in order.
    static func settings(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: "\n").compactMap { line in
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else {
                return nil
            }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    /// The unit copied into `folder` with ExecStart's binary replaced by the built one
    /// (`systemd-analyze verify` checks that the executable exists), `extra` lines appended to
    /// [Service].
    static func copy(into folder: TemporaryFolder, name: String = "wallet-orders.service", extra: [String] = []) throws -> URL {
        let binary = try WalletOrdersBinary.url()
        var text = try String(contentsOf: unit, encoding: .utf8)
        let execStart = "ExecStart=\(installedBinary) "
        try #require(text.contains("\n" + execStart), "the unit has no '\(execStart)…' line")
        text = text.replacingOccurrences(of: "\n" + execStart, with: "\nExecStart=\(binary.path) ")
        if !extra.isEmpty {
            text = text.replacingOccurrences(of: "\n[Service]\n", with: "\n[Service]\n" + extra.joined(separator: "\n") + "\n")
        }
        return try folder.write(Array(text.utf8), to: name)
    }

    /// `systemd-analyze verify` on `file`: its exit status and every line it printed about the unit.
    /// `--man=no`: Documentation= names the man page that `make install` installs, not installed here.
    static func verify(_ file: URL, in folder: TemporaryFolder) async throws -> (status: Int32, complaints: [String], result: ProgramResult) {
        let result = try await ExternalProgram.run(
            tool: "systemd-analyze", ["verify", "--man=no", file.path], environment: CLI.environment([:]), in: folder.url)
        let complaints = (result.output + result.errorOutput).split(separator: "\n").map(String.init)
            .filter { $0.contains(file.lastPathComponent) }
        return (result.status, complaints, result)
    }

    @Test("systemd-analyze verify prints no warning about wallet-orders.service (ExecStart pointed at the built binary)")
    func verifies() async throws {
        let folder = try TemporaryFolder.ofTest
        let copy = try Self.copy(into: folder)
        let verified = try await Self.verify(copy, in: folder)
        #expect(verified.status == 0, "\(verified.result)")
        #expect(verified.complaints.isEmpty, "systemd-analyze verify warns:\n\(verified.complaints.joined(separator: "\n"))")
    }

    @Test("The same check catches a unit with a mistake: an unknown key and a bad value are both reported")
    func verifyCatchesMistakes() async throws {
        let folder = try TemporaryFolder.ofTest
        let copy = try Self.copy(into: folder, name: "wallet-orders-broken.service", extra: ["ProtectSytem=strict", "Restart=sometimes"])
        let verified = try await Self.verify(copy, in: folder)
        #expect(verified.complaints.contains { $0.contains("ProtectSytem") }, "\(verified.result)")
        #expect(verified.complaints.contains { $0.contains("sometimes") }, "\(verified.result)")
    }

    @Test("systemd-analyze security rates the unit's exposure at most 2.0 (of 10) and lists no capability")
    func hardening() async throws {
        let folder = try TemporaryFolder.ofTest
        let copy = try Self.copy(into: folder)
        let result = try await ExternalProgram.run(
            tool: "systemd-analyze", ["security", "--offline=yes", "--threshold=20", "--no-pager", copy.path],
            environment: CLI.environment([:]), in: folder.url)
        #expect(result.status == 0, "exposure above 2.0 or systemd-analyze failed: \(result)")
        #expect(result.output.contains("Overall exposure level for \(copy.lastPathComponent)"), "\(result)")
        #expect(!result.output.contains("✗ CapabilityBoundingSet"), "\(result.output)")
    }

    @Test("The unit runs `wallet-orders serve` from make install's PREFIX as its own user, its store in StateDirectory, secrets from EnvironmentFile")
    func layout() throws {
        let settings = Self.settings(try String(contentsOf: Self.unit, encoding: .utf8))
        func values(_ key: String) -> [String] { settings.filter { $0.key == key }.map(\.value) }
        #expect(values("ExecStart") == ["\(Self.installedBinary) serve"])
        #expect(values("Type") == ["exec"])
        #expect(values("User") == ["wallet-orders"])
        #expect(values("StateDirectory") == ["wallet-orders"])
        #expect(values("Environment").contains("WALLET_ORDERS_STORE=/var/lib/wallet-orders/orders.sqlite"))
        #expect(values("EnvironmentFile") == ["/etc/wallet-orders/wallet-orders.env"])
        #expect(values("Restart") == ["on-failure"])
        #expect(values("CapabilityBoundingSet") == [""])
        #expect(values("SystemCallFilter").first == "@system-service")
        for key in ["NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices"] {
            #expect(values(key) == ["yes"], "\(key)")
        }
        #expect(values("ProtectSystem") == ["strict"])
        // serve takes up to 10000 connections by default, capped at the open-file limit less 128.
        let files = values("LimitNOFILE").first.flatMap { Int($0) } ?? 0
        #expect(files >= 10_000 + 128, "LimitNOFILE=\(files)")
    }

    @Test("serve reads the unit's Environment= settings: the store it names is the store it opens")
    func environmentIsRead() async throws {
        let folder = try TemporaryFolder.ofTest
        let settings = Self.settings(try String(contentsOf: Self.unit, encoding: .utf8))
        var environment: [String: String] = [:]
        for assignment in settings.filter({ $0.key == "Environment" }).map(\.value) {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            try #require(parts.count == 2 && parts[0].hasPrefix("WALLET_ORDERS_"), "Environment=\(assignment)")
            environment[parts[0]] = parts[1].replacingOccurrences(of: "/var/lib/wallet-orders", with: folder.url.path)
        }
        #expect(environment["WALLET_ORDERS_LISTEN"] == "127.0.0.1:8080")
        let store = folder.file("orders.sqlite")
        #expect(environment["WALLET_ORDERS_STORE"] == store.path)
        // The test's own port instead of 8080: RunningServer passes --listen 127.0.0.1:0, which wins.
        let server = try await RunningServer([], environment: environment, folder: folder)
        #expect(server.child.errorOutput.contains("(store \(store.path))"), "\(server.child.errorOutput)")
        let health = try await HTTPClient.request("GET", server.baseURL + "/health")
        #expect(health.status == 200, "\(health.status)")
        #expect(try await server.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: store.path))
    }
}
