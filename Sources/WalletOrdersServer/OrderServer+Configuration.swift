public import Configuration
package import Foundation
package import NIOSSL
public import WalletOrders
import WalletOrdersPreview
import WalletOrdersStore

extension OrderServer.Configuration {
    /// Reads the configuration from `config` (swift-configuration), the same keys whatever the
    /// source: a JSON file nests them (`{"push": {"pollSeconds": 1}}`), the environment spells
    /// them `WALLET_ORDERS_PUSH_POLL_SECONDS` when the reader prefixes `wallet.orders`.
    ///
    /// | key | meaning | default |
    /// |---|---|---|
    /// | `listen` | `host:port` (`[::1]:8080` for IPv6; port 0 picks one) | `127.0.0.1:8080` |
    /// | `apiKeys` | merchant API keys, each `KEY TYPE1,TYPE2` or `KEY *` (``MerchantAPIKey``): an array in a file, entries separated by `;` or newlines in the environment | none |
    /// | `apiKeyFile` | a file of merchant API keys in the same format, one a line | none |
    /// | `publicURL` | the public base URL, for customer links | none (paths) |
    /// | `links.walletBadges` | a folder of Apple's Add to Apple Wallet badges, one SVG a language (`en.svg`, `fr.svg`; ``WalletBadges``), for the customer links' page | none (a text link) |
    /// | `updatedAtMarginSeconds` | how far ahead of the clock an uploaded `updatedAt` may be (``UpdatedAtLimit``) | 86400 (a day) |
    /// | `push.batchSize`, `push.concurrentBatches`, `push.leaseSeconds`, `push.pollSeconds` | the push worker | 32, 2, 120, 1 |
    /// | `push.initialBackoffSeconds`, `push.maximumBackoffSeconds` | retries (never given up) | 1, 900 |
    /// | `push.parkedProbeSeconds` | how often parked pushes (credentials refused) are tried | 60 |
    /// | `registrations.maximumPerOrder`, `registrations.maximumPerDevice` | device registrations (``RegistrationLimits``) | 1000, 100 |
    /// | `registrations.perClientPerMinute` | registrations with an order's token a client address may make a minute, and as many refused ones (a wrong token or an unknown order), counted apart; past either, 429 (0: no limit) | 60 |
    /// | `log.rate`, `log.burst` | `POST /v1/log` per client | 5/s, 20 |
    /// | `log.requestBytes`, `log.budgetBytes`, `log.budgetSeconds` | what `POST /v1/log` may write: per request, and for every client together per window (``DeviceLogLimits``) | 4096, 1048576, 60 |
    /// | `connections.headerTimeoutSeconds`, `connections.idleTimeoutSeconds`, `connections.bodyTimeoutSeconds` | connection deadlines (``ConnectionLimits``) | 10, 60, 30 |
    /// | `connections.bodyMinimumBytesPerSecond` | the rate a request body must keep up after the header timeout's head start | 4096 |
    /// | `connections.maximum`, `connections.maximumPerAddress` | open connections, in all and per client address | 10000, 64 |
    /// | `cache.archiveBytes` | bytes of archives kept in memory for repeated fetches (``OrderServer/Configuration/archiveCacheBytes``; 0: none) | 67108864 (64 MiB) |
    /// | `trustedProxies` | addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` names the client | none |
    /// | `tls.certificate`, `tls.key` | PEM files: serve HTTPS yourself | none (plain HTTP behind a proxy) |
    /// | `signing.directory` | identities to build and sign with (``SigningIdentities``) | none |
    /// | `signing.passphraseEnvironment` | the variable holding their passphrase | none |
    /// | `executor` | where the service's `async` code runs: `event-loops` (on SwiftNIO's event loops, no thread switch per request) or `pool` (Swift's default executor; ``OrderServer/TaskThreads``) | `event-loops` |
    /// | `metrics.key` | the key `GET /metrics` asks for (`Authorization: Bearer`); the environment: `WALLET_ORDERS_METRICS_KEY` | none (open) |
    ///
    /// A key's scope holds commas, so `apiKeys` given as one string (the environment:
    /// `WALLET_ORDERS_API_KEYS='KEY1 order.com.example.shop;KEY2 *'`) separates its entries by
    /// `;` or newlines, whatever the provider's array separator.
    ///
    /// A value of the wrong type (`{"push": {"batchSize": "lots"}}`) is refused, not passed over
    /// (``checkSettingTypes(_:)``).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming the key and the value, or
    ///   the key file and line of a malformed merchant API key (never the key itself).
    public init(config: ConfigReader, validator: OrderValidator) throws {
        try self.init(config: config, validator: validator, loadingSigningIdentities: true)
    }

    /// Reads the configuration, leaving ``signing`` empty unless `loadingSigningIdentities`: a
    /// check of the settings (`wallet-orders doctor`) loads the identities on their own, with
    /// ``signingIdentities(config:validAt:)``, to report them apart.
    package init(config: ConfigReader, validator: OrderValidator, loadingSigningIdentities: Bool) throws {
        try Self.checkSettingTypes(config)
        let listen = config.string(forKey: "listen", default: "127.0.0.1:8080")
        guard let (host, port) = Self.hostAndPort(listen) else {
            throw Self.invalid("listen", listen, "host:port, e.g. 127.0.0.1:8080 or [::1]:8080")
        }
        var keys: [MerchantAPIKey] = []
        let entries =
            config.string(forKey: "apiKeys", isSecret: true).map { $0.split(separator: ";").map(String.init) }
            ?? config.stringArray(forKey: "apiKeys", isSecret: true, default: [])
        for (index, entry) in entries.enumerated() {
            keys += try MerchantAPIKey.parse(entry, source: "The setting apiKeys (WALLET_ORDERS_API_KEYS or the config file), entry \(index + 1)")
        }
        if let file = config.string(forKey: "apiKeyFile") {
            let text = String(decoding: try BoundedFile.readRegularFile(file, as: .apiKeys), as: UTF8.self)
            keys += try MerchantAPIKey.parse(text, source: "The API key file \(file)")
        }
        if Set(keys.map(\.key)).count != keys.count {
            throw WalletOrdersError(
                .invalidConfiguration, "A merchant API key is given twice (in apiKeys and the API key file, or twice in apiKeys).",
                hint: "Give each key once, with every order type it may act on.")
        }
        func seconds(_ key: String, _ fallback: Double, _ range: ClosedRange<Double>) throws -> Duration {
            let value = config.double(forKey: ConfigKey(key), default: fallback)
            guard range.contains(value) else { throw Self.invalid(key, "\(value)", "seconds from \(range.lowerBound) to \(range.upperBound)") }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        func count(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
            let value = config.int(forKey: ConfigKey(key), default: fallback)
            guard range.contains(value) else { throw Self.invalid(key, "\(value)", "a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return value
        }
        let push = PushWorkerConfiguration(
            batchSize: try count("push.batchSize", 32, 1...1_000), concurrentBatches: try count("push.concurrentBatches", 2, 1...64),
            lease: try seconds("push.leaseSeconds", PushWorkerConfiguration.defaultLease.seconds, 1...86_400),
            pollInterval: try seconds("push.pollSeconds", 1, 0.01...3_600),
            initialBackoff: try seconds("push.initialBackoffSeconds", 1, 0.01...3_600),
            maximumBackoff: try seconds("push.maximumBackoffSeconds", 900, 0.01...86_400),
            parkedProbeInterval: try seconds("push.parkedProbeSeconds", 60, 0.01...86_400))
        let rate = config.double(forKey: "log.rate", default: 5)
        let burst = config.double(forKey: "log.burst", default: 20)
        guard rate > 0, burst >= 1 else { throw Self.invalid("log.rate/log.burst", "\(rate)/\(burst)", "a positive rate and a burst of at least 1") }
        let publicURL = config.string(forKey: "publicURL")
        if let publicURL {
            guard let url = URL(string: publicURL), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw Self.invalid("publicURL", publicURL, "an http(s) URL such as https://orders.example.com")
            }
        }
        let margin = config.double(forKey: "updatedAtMarginSeconds", default: UpdatedAtLimit.defaultMargin)
        guard margin.isFinite, margin >= 0 else { throw Self.invalid("updatedAtMarginSeconds", "\(margin)", "seconds, 0 or more") }
        try self.init(
            host: host, port: port, apiKeys: keys, validator: validator, push: push, logRate: (rate, burst), publicURL: publicURL)
        updatedAtLimit = try UpdatedAtLimit(margin: margin)
        if let folder = config.string(forKey: "links.walletBadges") {
            walletBadges = try WalletBadges(directory: URL(fileURLWithPath: folder))
        }
        if let key = config.string(forKey: "metrics.key", isSecret: true) {
            guard key.count >= 16 else {
                throw WalletOrdersError(
                    .invalidConfiguration, "The setting metrics.key is shorter than 16 characters; short keys can be guessed.",
                    hint: "Use a long random key, such as the output of `openssl rand -hex 24`.")
            }
            metricsKey = key
        }
        try readLimits(config)
        let executor = config.string(forKey: "executor", default: OrderServer.TaskThreads.eventLoops.rawValue)
        guard let taskThreads = OrderServer.TaskThreads(rawValue: executor) else { throw Self.invalid("executor", executor, "event-loops or pool") }
        self.taskThreads = taskThreads
        registrationLimits = RegistrationLimits(
            maximumPerOrder: try count("registrations.maximumPerOrder", 1_000, 1...1_000_000),
            maximumPerDevice: try count("registrations.maximumPerDevice", 100, 1...1_000_000))
        registrationsPerClientPerMinute = try count("registrations.perClientPerMinute", 60, 0...1_000_000)
        archiveCacheBytes = try count("cache.archiveBytes", archiveCacheBytes, 0...(1 << 40))
        if loadingSigningIdentities, let identities = try Self.signingIdentities(config: config) { signing = identities }
        let certificate = config.string(forKey: "tls.certificate")
        let key = config.string(forKey: "tls.key")
        switch (certificate, key) {
        case (nil, nil): break
        case (let certificate?, let key?):
            tls = (
                try BoundedFile.readRegularFile(certificate, as: .certificate),
                try BoundedFile.readRegularFile(key, as: .certificate)
            )
        default:
            throw WalletOrdersError(
                .invalidConfiguration, "TLS needs both the certificate (tls.certificate) and its key (tls.key); one was given.")
        }
    }

    /// The identities of `signing.directory`, with the passphrase of the variable
    /// `signing.passphraseEnvironment` names: `nil` when no folder is set.
    ///
    /// - Throws: ``SigningIdentities/load(directory:passphrase:validAt:)``'s errors.
    package static func signingIdentities(config: ConfigReader, validAt date: Date = Date()) throws -> SigningIdentities? {
        guard let folder = config.string(forKey: "signing.directory") else { return nil }
        let passphrase = config.string(forKey: "signing.passphraseEnvironment").map(PassphraseSource.environment)
        return try SigningIdentities.load(directory: URL(fileURLWithPath: folder), passphrase: passphrase, validAt: date)
    }

    /// The service's TLS, from ``tls``: `nil` for plain HTTP. The chain and key are checked
    /// first (``TLSServerCertificate``), so a key that isn't the certificate's is said in words,
    /// then handed to the TLS library, which must accept them too.
    ///
    /// - Throws: ``WalletOrdersError`` naming `tls.certificate` or `tls.key` and what is wrong.
    package func serverTLSConfiguration() throws -> TLSConfiguration? {
        guard let tls else { return nil }
        _ = try TLSServerCertificate(
            certificateChainPEM: tls.certificateChainPEM, privateKeyPEM: tls.privateKeyPEM, certificateName: "(tls.certificate)",
            keyName: "(tls.key)")
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(tls.certificateChainPEM).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: tls.privateKeyPEM, format: .pem)
            var server = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            // TLS 1.0 and 1.1 are deprecated (RFC 8996); Wallet and the APNs client speak 1.2 and later.
            server.minimumTLSVersion = .tlsv12
            _ = try NIOSSLContext(configuration: server)  // what the library refuses, it refuses here, not at the first connection
            return server
        } catch {
            // The library's own words name its source files; the type of error is enough.
            throw WalletOrdersError(
                .invalidConfiguration,
                "The TLS certificate chain (tls.certificate) or key (tls.key) can't be used by the TLS library (\(Self.libraryErrorName(error))).",
                hint: "Give the server certificate chain and its unencrypted private key as PEM files, an RSA or EC key of 2048 bits or more.")
        }
    }

    /// An error of the TLS library by its case (`failedToLoadPrivateKey`), without the source
    /// paths its messages carry.
    static func libraryErrorName(_ error: any Error) -> String {
        let text = String(describing: error)
        let name = text.prefix { $0.isLetter || $0.isNumber || $0 == "." }
        return name.isEmpty ? String(describing: type(of: error)) : String(name)
    }

    /// `host:port` or `[v6]:port`.
    public static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    private static func invalid(_ key: String, _ value: String, _ expected: String) -> WalletOrdersError {
        WalletOrdersError(.invalidConfiguration, "The setting \(key) is \(value); it takes \(expected).")
    }
}
