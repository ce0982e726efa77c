public import Foundation
import NIOCore
import NIOSSL
import PostgresNIO
import WalletOrders

/// Where a ``PostgresOrderStore`` connects and how: read from a `postgres://` (or `postgresql://`)
/// URL in libpq's form.
///
/// ```
/// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE?sslmode=verify-full&sslrootcert=ca.pem
/// postgresql://wallet@/orders?host=/run/postgresql          (a Unix socket folder, as libpq)
/// ```
///
/// Query parameters (any other is refused, so a typo doesn't go unnoticed):
/// - `sslmode`: `disable`, `prefer` (default: TLS when the server offers it, unverified),
///   `require` (TLS, unverified), `verify-ca` (TLS, certificate checked against the roots),
///   `verify-full` (also the host name). `allow` is taken as `prefer`.
/// - `sslrootcert`: a PEM file of trusted roots for `verify-ca`/`verify-full` (default: the system's).
/// - `connect_timeout`: seconds to wait for a connection (default 10).
/// - `statement_timeout`: milliseconds one statement may run before the server cancels it (default 30000).
/// - `pool_max_conns`: the largest number of pooled connections (default 10).
/// - `pool_timeout`: seconds a call waits for a pooled connection before failing (default 10).
/// - `host`: a Unix socket folder (the socket is `HOST/.s.PGSQL.PORT`), instead of TCP; `port`
///   gives the port when the URL has no host part.
/// - `application_name`: shown in `pg_stat_activity` (default `wallet-orders`).
///
/// Missing parts come from libpq's variables (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
/// `PGDATABASE`), then libpq's defaults (`localhost`, 5432, `postgres`, the user name). Keep the
/// password out of command lines: put the URL in `WALLET_ORDERS_STORE` or the password in
/// `PGPASSWORD`. The password is never shown: ``redactedURL`` leaves it out.
public struct PostgresStoreConfiguration: Sendable, Hashable {
    /// How TLS is used, libpq's `sslmode`.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it, without checking its certificate (libpq's default).
        case prefer
        /// TLS or no connection; the certificate is not checked.
        case require
        /// TLS, with the certificate checked against the trusted roots.
        case verifyCA = "verify-ca"
        /// TLS, with the certificate checked against the trusted roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address (TCP), or `nil` for a Unix socket.
    public var host: String?
    /// The server's port (also names the Unix socket).
    public var port: Int
    /// The Unix socket's path, or `nil` for TCP.
    public var unixSocketPath: String?
    /// The role to log in as.
    public var username: String
    /// The password, if any.
    public var password: String?
    /// The database.
    public var database: String
    /// How TLS is used.
    public var tlsMode: TLSMode
    /// A PEM file of trusted roots for ``TLSMode/verifyCA`` and ``TLSMode/verifyFull``.
    public var trustRootsFile: String?
    /// How long to wait for a connection.
    public var connectTimeout: Duration
    /// How long one statement may run (the server's `statement_timeout`).
    public var statementTimeout: Duration
    /// The largest number of pooled connections.
    public var maximumConnections: Int
    /// How long a call waits for a pooled connection before it fails.
    public var poolTimeout: Duration
    /// The `application_name` the server shows.
    public var applicationName: String

    /// The query parameters a store URL may have.
    public static let knownParameters = [
        "sslmode", "sslrootcert", "connect_timeout", "statement_timeout", "pool_max_conns", "pool_timeout", "host", "port",
        "application_name",
    ]

    /// Reads a `postgres://` or `postgresql://` URL.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - environment: Where `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD` and `PGDATABASE` are read
    ///     for the parts the URL leaves out (default: this process's environment).
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming what is wrong, with a hint.
    public init(url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let text = url.absoluteString
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw Self.invalid("'\(Self.redact(text))' is not a postgres:// URL.")
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard Self.knownParameters.contains(item.name) else {
                throw Self.invalid(
                    "The store URL has an unknown parameter '\(item.name)'.",
                    hint: "Known parameters: \(Self.knownParameters.joined(separator: ", ")).")
            }
            guard parameters[item.name] == nil else { throw Self.invalid("The store URL gives '\(item.name)' twice.") }
            parameters[item.name] = item.value ?? ""
        }
        if let text = parameters["port"] {
            guard let number = Int(text) else { throw Self.invalid("The store URL's port '\(text)' is not a number.") }
            port = number
        } else {
            port = components.port ?? environment["PGPORT"].flatMap(Int.init) ?? 5432
        }
        guard (1...65535).contains(port) else { throw Self.invalid("The store URL's port \(port) is out of range.") }
        let socketFolder = nonEmpty(parameters["host"])
        if let socketFolder {
            guard socketFolder.hasPrefix("/") else {
                throw Self.invalid(
                    "The store URL's host parameter '\(socketFolder)' is not a folder path.",
                    hint: "host= names the folder of a Unix socket (e.g. host=/run/postgresql); put a TCP host before the path.")
            }
            host = nil
            unixSocketPath = socketFolder + "/.s.PGSQL.\(port)"
        } else {
            var name = nonEmpty(components.host) ?? nonEmpty(environment["PGHOST"]) ?? "localhost"
            if name.hasPrefix("/") {  // PGHOST may name a socket folder, as for libpq
                unixSocketPath = name + "/.s.PGSQL.\(port)"
                host = nil
            } else {
                if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
                host = name
                unixSocketPath = nil
            }
        }
        username = nonEmpty(components.user) ?? nonEmpty(environment["PGUSER"]) ?? "postgres"
        password = components.password ?? nonEmpty(environment["PGPASSWORD"])
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.contains("/") else {
            throw Self.invalid(
                "The store URL's path '\(path)' is not a database name.", hint: "Write postgres://USER@HOST:PORT/DATABASE.")
        }
        database = nonEmpty(path) ?? nonEmpty(environment["PGDATABASE"]) ?? username

        let mode = parameters["sslmode"] ?? "prefer"
        switch mode {
        case "allow": tlsMode = .prefer
        default:
            guard let tlsMode = TLSMode(rawValue: mode) else {
                throw Self.invalid(
                    "The store URL's sslmode '\(mode)' is not one of disable, allow, prefer, require, verify-ca, verify-full.")
            }
            self.tlsMode = tlsMode
        }
        trustRootsFile = nonEmpty(parameters["sslrootcert"])
        if let trustRootsFile, !FileManager.default.isReadableFile(atPath: trustRootsFile) {
            throw Self.invalid(
                "The store URL's sslrootcert '\(trustRootsFile)' can't be read.",
                hint: "Give the path of a PEM file with the certificate of the CA that issued the server's certificate.")
        }
        connectTimeout = .seconds(try Self.number(parameters["connect_timeout"], "connect_timeout", default: 10, range: 1...3600))
        statementTimeout = .milliseconds(
            try Self.number(parameters["statement_timeout"], "statement_timeout", default: 30_000, range: 0...86_400_000))
        maximumConnections = try Self.number(parameters["pool_max_conns"], "pool_max_conns", default: 10, range: 1...1000)
        poolTimeout = .seconds(try Self.number(parameters["pool_timeout"], "pool_timeout", default: 10, range: 1...3600))
        applicationName = nonEmpty(parameters["application_name"]) ?? "wallet-orders"
    }

    private static func number(_ text: String?, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw invalid(
                "The store URL's \(name) '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    private static func invalid(_ message: String, hint: String? = nil) -> WalletOrdersError {
        WalletOrdersError(
            .invalidConfiguration, message,
            hint: hint ?? "A PostgreSQL store URL looks like postgres://USER@HOST:5432/DATABASE?sslmode=require.")
    }

    /// The URL without its password, for messages and logs.
    public var redactedURL: String {
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        let name = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        if let unixSocketPath {
            let folder = String(unixSocketPath.dropLast(".s.PGSQL.\(port)".count + 1))
            return "postgres://\(user)@/\(name)?host=\(folder)&port=\(port)"
        }
        let shownHost = (host ?? "localhost").contains(":") ? "[\(host ?? "")]" : (host ?? "localhost")
        return "postgres://\(user)@\(shownHost):\(port)/\(name)"
    }

    /// `text` with any password in a URL's user information replaced by `***`.
    public static func redact(_ text: String) -> String {
        guard let components = URLComponents(string: text), components.password != nil else { return text }
        var redacted = components
        redacted.password = "***"
        return redacted.string ?? text
    }

    /// Where the server is, for messages: `host:port` or the socket's path.
    var endpointDescription: String {
        unixSocketPath ?? "\((host ?? "localhost").contains(":") ? "[\(host ?? "")]" : (host ?? "localhost")):\(port)"
    }

    // MARK: - postgres-nio

    /// The TLS configuration of ``tlsMode``, or `nil` for ``TLSMode/disable``.
    func tlsConfiguration() throws -> TLSConfiguration? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable: return nil
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let trustRootsFile, tlsMode == .verifyCA || tlsMode == .verifyFull {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustRootsFile))
            } catch {
                throw Self.invalid(
                    "The store URL's sslrootcert '\(trustRootsFile)' is not a PEM certificate file: \(error)",
                    hint: "Give the PEM certificate of the CA that issued the server's certificate.")
            }
        }
        return tls
    }

    private var startupParameters: [(String, String)] {
        [
            ("application_name", applicationName),
            (
                "statement_timeout",
                String(statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000)
            ),
            ("TimeZone", "UTC"),
        ]
    }

    /// One connection, for opening and migrating.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let unixSocketPath {
            configuration = .init(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch (tlsMode, try tlsConfiguration()) {
            case (.disable, _), (_, nil): tls = .disable
            case (.prefer, let config?): tls = .prefer(try NIOSSLContext(configuration: config))
            case (_, let config?): tls = .require(try NIOSSLContext(configuration: config))
            }
            configuration = .init(
                host: host ?? "localhost", port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(Int64(connectTimeout.components.seconds))
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// The pool's configuration.
    func clientConfiguration() throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let unixSocketPath {
            configuration = .init(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch (tlsMode, try tlsConfiguration()) {
            case (.disable, _), (_, nil): tls = .disable
            case (.prefer, let config?): tls = .prefer(config)
            case (_, let config?): tls = .require(config)
            }
            configuration = .init(
                host: host ?? "localhost", port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }
}
