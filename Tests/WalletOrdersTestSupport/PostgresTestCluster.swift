public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL cluster for the tests: made with `initdb` in a temporary folder the
/// first time a test asks for it, listening on a free loopback port (TLS on, passwords with
/// SCRAM) and on a Unix socket in that folder (no password), and stopped and removed when the
/// test process exits. One per test process, shared by every test; each store gets a database of
/// its own (``makeDatabase()``).
///
/// As root (CI, this machine) the server runs as the unprivileged `postgres` user through
/// `runuser`, since PostgreSQL refuses to run as root. The server binaries are looked for in
/// `WALLET_ORDERS_PG_BINDIR`, then `/usr/lib/postgresql/*/bin` (newest first), then `PATH`;
/// when none is found ``shared`` is `nil` and ``unavailableReason`` says why.
/// `WALLET_ORDERS_TEST_POSTGRES=off` (`make test-fast`) leaves the cluster out the same way.
public final class PostgresTestCluster: Sendable {
    /// The loopback address the server listens on.
    public let host = "127.0.0.1"
    /// The server's TCP port (also names its Unix socket).
    public let port: Int
    /// The superuser `postgres`'s password (TCP logins need it; socket logins don't).
    public let password: String
    /// The folder holding the cluster, its socket, its certificate and its log.
    public let folder: URL
    /// The server's self-signed certificate (PEM, for `localhost` and 127.0.0.1): the
    /// `sslrootcert` of `verify-full` URLs.
    public let certificate: URL
    /// Where the server binaries are.
    public let binaries: URL
    private let runsAsPostgres: Bool

    /// The cluster, started on first use. Throws, saying why, when PostgreSQL's server binaries
    /// can't be found or the cluster did not start.
    public static func shared() async throws -> PostgresTestCluster {
        try await startup.get()
    }

    /// The folder of PostgreSQL's server binaries, or `nil` when they are not installed (then,
    /// and only then, the PostgreSQL tests are skipped, with a warning on stderr).
    public static let serverBinaries: URL? = {
        // `make test-fast` leaves PostgreSQL out on purpose: no cluster, one line, no warning.
        if ProcessInfo.processInfo.environment["WALLET_ORDERS_TEST_POSTGRES"] == "off" {
            FileHandle.standardError.write(Data("note: WALLET_ORDERS_TEST_POSTGRES=off: the PostgreSQL store cases are left out\n".utf8))
            return nil
        }
        let found = findBinaries()
        if found == nil {
            FileHandle.standardError.write(
                Data(
                    "\n*** WARNING: PostgreSQL's server binaries (initdb, pg_ctl, postgres) were not found in WALLET_ORDERS_PG_BINDIR, /usr/lib/postgresql/*/bin or PATH: every PostgreSQL store test is SKIPPED. Install the 'postgresql' package (.ci/setup does). ***\n\n"
                        .utf8))
        }
        return found
    }()

    private static let startup = SharedFixture<PostgresTestCluster> {
        guard let binaries = serverBinaries else {
            throw StartFailed(description: "PostgreSQL's server binaries were not found")
        }
        do {
            let cluster = try await PostgresTestCluster(binaries: binaries)
            atexit { PostgresTestCluster.stopAtExit() }
            PostgresTestCluster.started.withLock { $0 = cluster }
            return cluster
        } catch {
            // Binaries exist but the cluster didn't start: that is a failure, not a skip.
            throw StartFailed(description: "the throwaway PostgreSQL cluster did not start: \(error)")
        }
    }

    /// The shared cluster once it runs, for the process's exit to stop.
    private static let started = Mutex<PostgresTestCluster?>(nil)

    private static func stopAtExit() {
        started.withLock { $0?.stop() }
    }

    private static func findBinaries() -> URL? {
        let files = FileManager.default
        func hasServer(_ folder: String) -> Bool {
            ["initdb", "pg_ctl", "postgres"].allSatisfy { files.isExecutableFile(atPath: folder + "/" + $0) }
        }
        if let folder = ProcessInfo.processInfo.environment["WALLET_ORDERS_PG_BINDIR"], hasServer(folder) {
            return URL(fileURLWithPath: folder)
        }
        let versions = ((try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        for version in versions where hasServer("/usr/lib/postgresql/\(version)/bin") {
            return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        where hasServer(folder) {
            return URL(fileURLWithPath: folder).resolvingSymlinksInPath()
        }
        return nil
    }

    /// A cluster failed to come up.
    public struct StartFailed: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private init(binaries: URL) async throws {
        self.binaries = binaries
        runsAsPostgres = getuid() == 0
        Self.removeAbandonedClusters(binaries: binaries, asPostgres: getuid() == 0)
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wallet-orders-pg-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data("\(getpid())\n".utf8).write(to: folder.appendingPathComponent("owner.pid"))
        password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        try Data((password + "\n").utf8).write(to: folder.appendingPathComponent("pwfile"))
        certificate = folder.appendingPathComponent("server.crt")
        let key = folder.appendingPathComponent("server.key")
        let openssl = try await ExternalProgram.run(
            tool: "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "3",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        guard openssl.status == 0 else { throw StartFailed(description: "openssl req failed: \(openssl)") }
        if runsAsPostgres {
            let chown = try await ExternalProgram.run(tool: "chown", ["-R", "postgres:postgres", folder.path])
            guard chown.status == 0 else { throw StartFailed(description: "chown failed (is there a 'postgres' user?): \(chown)") }
        }
        try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)

        let data = folder.appendingPathComponent("data").path
        let initdb = try await Self.run(
            binaries.appendingPathComponent("initdb"),
            [
                "-D", data, "-U", "postgres", "--pwfile=\(folder.path)/pwfile", "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
            ], asPostgres: runsAsPostgres, timeout: 120)
        guard initdb.status == 0 else { throw StartFailed(description: "initdb failed: \(initdb)") }

        var lastError = ""
        var started: Int?
        for _ in 0..<5 where started == nil {
            let port = try Self.freePort()
            // Settings for a throwaway cluster: speed over durability (it is thrown away).
            let settings = """

                port = \(port)
                listen_addresses = '127.0.0.1'
                unix_socket_directories = '\(folder.path)'
                max_connections = 300
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                ssl = on
                ssl_cert_file = '\(certificate.path)'
                ssl_key_file = '\(key.path)'
                log_min_messages = warning
                """
            let conf = URL(fileURLWithPath: data).appendingPathComponent("postgresql.auto.conf")
            let handle = try FileHandle(forWritingTo: conf)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(settings.utf8))
            try handle.close()
            let start = try await Self.run(
                binaries.appendingPathComponent("pg_ctl"),
                ["-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"],
                asPostgres: runsAsPostgres, timeout: 90)
            if start.status == 0 {
                started = port
            } else {
                lastError = "\(start)\n" + ((try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? "")
            }
        }
        guard let started else { throw StartFailed(description: "pg_ctl start failed 5 times: \(lastError)") }
        port = started
    }

    /// Runs a server binary, as the `postgres` user when this process is root.
    private static func run(_ executable: URL, _ arguments: [String], asPostgres: Bool, timeout: TimeInterval) async throws
        -> ProgramResult
    {
        let command = (asPostgres ? ["-u", "postgres", "--"] : []) + [executable.path] + arguments
        if asPostgres {
            return try await ExternalProgram.run(
                URL(fileURLWithPath: "/usr/sbin/runuser"), command, in: URL(fileURLWithPath: "/"), timeout: timeout)
        }
        return try await ExternalProgram.run(executable, arguments, in: URL(fileURLWithPath: "/"), timeout: timeout)
    }

    /// A loopback port nobody listens on now: the kernel's choice for a socket bound to port 0.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw StartFailed(description: "no socket for a free port: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw StartFailed(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Ends the server of a cluster folder at once, as `pg_ctl -m immediate stop` does: SIGQUIT to
    /// the postmaster named in `postmaster.pid` (which ends its backends), without a child process,
    /// so it can run as the test process exits.
    private static func stopServer(in folder: URL) {
        let pidFile = folder.appendingPathComponent("data/postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first, let postmaster = pid_t(line.trimmingCharacters(in: .whitespaces)),
            postmaster > 0
        else { return }
        kill(postmaster, SIGQUIT)
    }

    /// Clusters left by test processes that died without stopping theirs.
    private static func removeAbandonedClusters(binaries: URL, asPostgres: Bool) {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("wallet-orders-pg-") {
            let folder = temporary.appendingPathComponent(name)
            guard let text = try? String(contentsOf: folder.appendingPathComponent("owner.pid"), encoding: .utf8),
                let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            stopServer(in: folder)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A cluster of its own, for a test that stops or restarts the server (which would disturb
    /// the tests sharing ``shared``). The caller stops it with ``stop()``.
    public static func startPrivate() async throws -> PostgresTestCluster {
        guard let binaries = serverBinaries else { throw StartFailed(description: "PostgreSQL's server binaries were not found") }
        return try await PostgresTestCluster(binaries: binaries)
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every connection is cut, and new ones are
    /// refused until it is back.
    public func restart() async throws {
        let result = try await Self.run(
            binaries.appendingPathComponent("pg_ctl"),
            [
                "-D", folder.appendingPathComponent("data").path, "-l", folder.appendingPathComponent("server.log").path, "-m", "fast", "-w",
                "restart",
            ],
            asPostgres: runsAsPostgres, timeout: 90)
        guard result.status == 0 else { throw StartFailed(description: "pg_ctl restart failed: \(result)") }
    }

    /// Stops the server now and removes its folder (the process's exit does this too).
    public func stop() {
        Self.stopServer(in: folder)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `psql` as the superuser over the Unix socket with `sql`; throws when it fails.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        let result = try await ExternalProgram.run(
            psqlBinary,
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", folder.path, "-p", String(port), "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw StartFailed(description: "psql failed: \(result)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private var psqlBinary: URL {
        let beside = binaries.appendingPathComponent("psql")
        return FileManager.default.isExecutableFile(atPath: beside.path) ? beside : URL(fileURLWithPath: "/usr/bin/psql")
    }

    /// Creates an empty database of its own for one test; returns its name.
    public func makeDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        try await psql("CREATE DATABASE \(name) TEMPLATE template0")
        return String(name)
    }

    /// Drops a database made by ``makeDatabase()``, ending its connections. In a task of its own,
    /// so that a test's `defer` can say it; nothing waits for it (the cluster goes at exit anyway).
    public func dropDatabase(_ name: String) {
        Task { _ = try? await psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }

    /// The URL of `database` over TCP with the password: `postgres://postgres:PASSWORD@127.0.0.1:PORT/DATABASE`,
    /// plus `parameters` (e.g. `sslmode=verify-full`).
    ///
    /// Unless `parameters` sets them, `pool_timeout` and `connect_timeout` are 60 s, not the
    /// default 10: with every suite running at once on two cores, a new connection (a forked
    /// backend, a TLS handshake, SCRAM) has been seen to take longer than 10 s, waiting for a
    /// pooled connection and connecting alike. The tests of the timeouts set their own.
    public func url(database: String, password: String? = nil, parameters: String? = nil) -> URL {
        let secret = password ?? self.password
        var parameters = parameters.map { [$0] } ?? []
        if !parameters.contains(where: { $0.contains("pool_timeout=") }) { parameters.append("pool_timeout=60") }
        if !parameters.contains(where: { $0.contains("connect_timeout=") }) { parameters.append("connect_timeout=60") }
        let query = "?" + parameters.joined(separator: "&")
        return URL(string: "postgres://postgres:\(secret)@\(host):\(port)/\(database)\(query)")!
    }

    /// The URL of `database` over the Unix socket (no password needed).
    public func socketURL(database: String) -> URL {
        URL(string: "postgres://postgres@/\(database)?host=\(folder.path)&port=\(port)")!
    }
}
