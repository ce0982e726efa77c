import ArgumentParser
import Configuration
import Foundation
import Logging
import SystemPackage
import WalletOrders
import WalletOrdersPostgres
import WalletOrdersServer
import WalletOrdersStore

/// `wallet-orders serve`: the order web service on the order store.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve orders to Wallet: Apple's order web service, the merchant API and pushes.",
        discussion: """
            Devices use Apple's protocol under /v1/ (register, changed orders, fetch the newest \
            archive, log). Merchants upload signed archives and ask the store through \
            /merchant/v1/ with an API key (Authorization: Bearer KEY). Every save that changes an \
            order queues a push to each registered device in the same transaction; the push \
            worker sends them to APNs. GET /health answers while the service runs; GET /metrics \
            gives Prometheus metrics (behind the key in WALLET_ORDERS_METRICS_KEY, or the config \
            file's metrics.key, when set).

            The store is a SQLite file (a path or sqlite:PATH) or a PostgreSQL database \
            (postgres://USER@HOST:5432/DATABASE?sslmode=require), which several serve instances \
            can share: they answer alike and drain one push outbox. Give the database password in \
            PGPASSWORD, or the whole URL in WALLET_ORDERS_STORE or the config file, not in --store.

            Settings come from flags, then WALLET_ORDERS_* environment variables, then the JSON \
            file of --config (keys: listen, store, apiKeys, apiKeyFile, publicURL, \
            push.pollSeconds, push.leaseSeconds, updatedAtMarginSeconds, connections.*, \
            trustedProxies, …; see the README). SIGTERM or Ctrl-C stops the \
            service gracefully: requests in flight finish, pushes being sent are completed.

            Examples:
              wallet-orders serve --store orders.sqlite --listen 127.0.0.1:8080 \\
                  --api-key-file keys.txt
              WALLET_ORDERS_API_KEYS='KEY1 order.com.example.shop;KEY2 *' \\
                  wallet-orders serve --config service.json

            Merchant API keys: one a line in --api-key-file, the key, whitespace, then the \
            order types it may act on, comma-separated, or * for every type (# starts a \
            comment). WALLET_ORDERS_API_KEYS takes the same entries separated by ';' or \
            newlines. A key acts only on its own order types.
            """
    )

    @OptionGroup var options: ServeOptions

    func run() async throws {
        OrderServer.TaskThreads.sizeEventLoopsToAllowedCPUs()  // as many event loops as CPUs the process may use, before any is made
        let config = try await reportingFailuresAsync { try await options.readConfiguration() }
        ConnectionLimits.raiseOpenFileLimit()  // a descriptor per connection: the soft limit (often 1024) is far too low
        let anchors = try reportingFailures { try TrustRoots.read(options.trustRoots + config.stringArray(forKey: "trustRoots", default: [])) }
        let validator = try reportingFailures { try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors)) }
        let settings = try reportingFailures { try options.withFlagTerms { try OrderServer.Configuration(config: config, validator: validator) } }
        // Before the service starts any task, and on the main thread, which SwiftNIO requires on Darwin.
        let taskThreads = settings.taskThreads
        await MainActor.run { _ = taskThreads.install() }
        let location = try reportingFailures { () throws -> OrderStoreLocation in
            // Only a URL given as --store is refused with a password; one from the environment or the config file is private.
            let location = try OrderStoreLocation.resolve(explicitPath: config.string(forKey: "store"))
            if options.storePath != nil { try StoreOptions.refusePassword(in: location) }
            return location
        }
        let store = try await reportingFailuresAsync {
            // A PostgreSQL store's pool runs in the service's group, which stops it last.
            try await location.openStore(updatedAtLimit: settings.updatedAtLimit, poolRunner: .serviceGroup)
        }

        let format = try reportingFailures { try LogFormat.read(config) }
        LoggingSystem.bootstrap { label in format.handler(label: label) }
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = config.string(forKey: "log.level").flatMap(Logger.Level.init(rawValue:)) ?? .info
        if let warning = (store as? SQLiteOrderStore)?.exposureWarning { logger.warning("\(warning)") }
        if let folder = config.string(forKey: "signing.directory"), settings.signing.entries.isEmpty {
            logger.warning(
                "the signing folder holds no order type's identity: POST /merchant/v1/orders/build answers 422 for every type (give a folder with one subfolder per order type)",
                metadata: ["folder": .string(folder)])
        }
        if settings.apiKeys.isEmpty {
            logger.warning("no merchant API key: every /merchant/v1/ call answers 401 (give --api-key-file or WALLET_ORDERS_API_KEYS)")
        }
        let apns = try reportingFailures {
            try APNsSenders.make(
                config: config, signingDirectory: config.string(forKey: "signing.directory").map { URL(fileURLWithPath: $0) }, logger: logger)
        }
        if apns == nil {
            logger.warning("no APNs endpoint (--apns): changes are queued in the store's outbox and not sent")
        }
        let server = OrderServer(store: store, configuration: settings, pushSender: apns, logger: logger, metrics: .bootstrapped)
        let path = location.displayName
        let scheme = settings.tls == nil ? "http" : "https"
        let started = ContinuousClock.now
        let serviceLogger = logger
        do {
            try await reportingFailuresAsync {
                try await options.inFlagTerms {
                    try await server.run { host, port in
                        let address = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
                        // The line scripts wait for; with --log-format json a JSON record like every other line.
                        let listening = "listening on \(address) (store \(path))"
                        if format == .json {
                            // Written whatever --log-level says, as the plain line is.
                            var announcer = serviceLogger
                            announcer.logLevel = min(announcer.logLevel, .info)
                            announcer.info("\(listening)")
                        } else {
                            Terminal.write("wallet-orders serve: \(listening)", to: .standardError)
                        }
                        serviceLogger.info(
                            "started",
                            metadata: Self.summary(listening: address, store: path, settings: settings, apns: apns, extraTrustRoots: anchors.count))
                    }
                }
            }
        } catch {
            // The service group closes the APNs connections when it ran; not when the service
            // failed before it started (a TLS key that doesn't fit).
            await apns?.shutdown()
            throw error
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        logger.info("stopped", metadata: ["uptimeSeconds": .stringConvertible(seconds)])
    }

    /// What the service runs with, for its first log line: where it listens, its store, where
    /// pushes go, each signing identity with its certificate's expiry, the trust roots and the
    /// number of merchant keys. Never a secret.
    static func summary(
        listening address: String, store: String, settings: OrderServer.Configuration, apns: APNsSenders?, extraTrustRoots: Int
    ) -> Logger.Metadata {
        let day = Date.ISO8601FormatStyle().year().month().day()
        let identities = settings.signing.entries.keys.sorted().map { type -> Logger.MetadataValue in
            let notAfter = settings.signing.entries[type]?.identity.certificateSummary.notAfter
            return .string("\(type) (expires \(notAfter.map { $0.formatted(day) } ?? "?"))")
        }
        return [
            "listen": .string(address),
            "store": .string(store),
            "executor": .string(settings.taskThreads.rawValue),
            "apns": .string(apns.map { $0.endpoints.joined(separator: ", ") } ?? "none: pushes wait in the outbox"),
            "signingIdentities": .array(identities),
            "trustRoots": .string(extraTrustRoots == 0 ? "Apple Root CA" : "Apple Root CA and \(extraTrustRoots) more"),
            "merchantKeys": .stringConvertible(settings.apiKeys.count),
        ]
    }
}

/// The options of `serve`, which `doctor` takes too: one set of flags, read the same way.
struct ServeOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store: a SQLite file (a path or sqlite:PATH) or postgres://USER@HOST/DATABASE (default: $WALLET_ORDERS_STORE, else $XDG_DATA_HOME/wallet-orders/orders.sqlite).",
            valueName: "path-or-url"))
    var storePath: String?

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp(
            "Another trusted root certificate (PEM or DER) for uploaded archives; repeatable. Apple Root CA is always trusted.", valueName: "file"))
    var trustRoots: [String] = []

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp("A JSON file of settings (flags and WALLET_ORDERS_* variables win over it).", valueName: "file"))
    var configFile: String?

    @Option(help: ArgumentHelp("Address and port to listen on (port 0 picks a free one; default 127.0.0.1:8080).", valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("api-key-file"),
        help: ArgumentHelp(
            "Merchant API keys, one a line: KEY then its order types, comma-separated, or * (or WALLET_ORDERS_API_KEYS, entries separated by ';').",
            valueName: "file"))
    var apiKeyFile: String?

    @Option(name: .customLong("public-url"), help: ArgumentHelp("The service's public base URL, for customer links.", valueName: "url"))
    var publicURL: String?

    @Option(
        name: .customLong("wallet-badges"),
        help: ArgumentHelp(
            "A folder of Apple's Add to Apple Wallet badges, one SVG a language (en.svg, fr.svg), for the customer links' page.",
            valueName: "folder"))
    var walletBadges: String?

    @Option(
        name: .customLong("tls-certificate"), help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM); needs --tls-key.", valueName: "file")
    )
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key (PEM) of --tls-certificate.", valueName: "file"))
    var tlsKey: String?

    @Option(
        name: .customLong("signing-dir"),
        help: ArgumentHelp(
            "Identities to sign posted order.json files with: one subfolder per order type, as `dev-certs --out` writes them.", valueName: "folder"))
    var signingDirectory: String?

    @Option(
        name: .customLong("apns"),
        help: ArgumentHelp(
            "Send pushes to APNs: production, development (the sandbox) or host:port (a stand-in). Credentials: --apns-token-key, --apns-cert/--apns-key, --apns-p12, or each identity of --signing-dir.",
            valueName: "environment"))
    var apnsEnvironment: String?

    @Option(
        name: .customLong("apns-token-key"),
        help: ArgumentHelp("APNs token authentication: the .p8 key (with --apns-key-id and --apns-team-id).", valueName: "file"))
    var apnsTokenKey: String?

    @Option(name: .customLong("apns-key-id"), help: ArgumentHelp("The ID of --apns-token-key.", valueName: "id"))
    var apnsKeyID: String?

    @Option(name: .customLong("apns-team-id"), help: ArgumentHelp("Your Team ID, for --apns-token-key.", valueName: "id"))
    var apnsTeamID: String?

    @Option(
        name: .customLong("apns-cert"),
        help: ArgumentHelp("An Order Type ID certificate chain (PEM) to log in to APNs with; needs --apns-key.", valueName: "file"))
    var apnsCertificate: String?

    @Option(name: .customLong("apns-key"), help: ArgumentHelp("The private key (PEM) of --apns-cert.", valueName: "file"))
    var apnsKey: String?

    @Option(
        name: .customLong("apns-p12"), help: ArgumentHelp("An Order Type ID certificate and key as .p12, to log in to APNs with.", valueName: "file"))
    var apnsPKCS12: String?

    @Option(
        name: .customLong("apns-ca"),
        help: ArgumentHelp("Another root to trust the APNs endpoint with (a stand-in's CA); repeatable.", valueName: "file"))
    var apnsTrustRoots: [String] = []

    @Option(
        help: ArgumentHelp(
            "Where async code runs: event-loops (default: no thread switch per request) or pool (Swift's default).",
            valueName: "executor"))
    var executor: String?

    @Option(name: .customLong("push-poll"), help: ArgumentHelp("Seconds between looks at the push outbox (default 1).", valueName: "seconds"))
    var pushPoll: Double?

    @Option(
        name: .customLong("push-lease"),
        help: ArgumentHelp(
            "Seconds a claimed push stays claimed before another worker may send it (default 120, past the slowest send to APNs).",
            valueName: "seconds"))
    var pushLease: Double?

    @Option(
        name: .customLong("max-registrations-per-order"),
        help: ArgumentHelp("Device registrations one order may have; a new one past it is refused with 409 (default 1000).", valueName: "count"))
    var maximumRegistrationsPerOrder: Int?

    @Option(
        name: .customLong("max-registrations-per-device"),
        help: ArgumentHelp("Registrations one device identifier may have over all orders (default 100).", valueName: "count"))
    var maximumRegistrationsPerDevice: Int?

    @Option(
        name: .customLong("registrations-per-minute"),
        help: ArgumentHelp(
            "Registrations a client address may make a minute with an order's token, and as many refused ones, counted apart; then 429 with Retry-After (default 60; 0: no limit).",
            valueName: "count"))
    var registrationsPerMinute: Int?

    @Option(
        name: .customLong("updated-at-margin"),
        help: ArgumentHelp(
            "Refuse an order whose updatedAt is more than this many seconds ahead of the clock (default 86400, a day).", valueName: "seconds"))
    var updatedAtMargin: Double?

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp("Close a connection whose request head takes longer than this (default 10).", valueName: "seconds"))
    var headerTimeout: Double?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a keep-alive connection idle this long (default 60).", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(
        name: .customLong("body-timeout"),
        help: ArgumentHelp("Close a connection whose request body sends nothing for this long (default 30).", valueName: "seconds"))
    var bodyTimeout: Double?

    @Option(
        name: .customLong("body-minimum-rate"),
        help: ArgumentHelp(
            "Close a connection whose request body, after the header timeout's head start, arrives slower than this on average (default 4096).",
            valueName: "bytes/s"))
    var bodyMinimumRate: Int?

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Open connections in all; more are closed at once (default 10000, less if the open-file limit is lower).", valueName: "count"))
    var maximumConnections: Int?

    @Option(
        name: .customLong("max-connections-per-address"),
        help: ArgumentHelp(
            "Open connections from one client address; more are closed at once (default 64; trusted proxies are exempt).", valueName: "count"))
    var maximumConnectionsPerAddress: Int?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp("A reverse proxy's address or CIDR range whose X-Forwarded-For names the client; repeatable.", valueName: "cidr"))
    var trustedProxies: [String] = []

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default info).", valueName: "level"))
    var logLevel: String?

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp("text (default) or json: one JSON object a line on standard error, for a log collector.", valueName: "format"))
    var logFormat: String?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning, error or critical.")
        }
        if let logFormat, LogFormat(rawValue: logFormat) == nil {
            throw ValidationError("--log-format takes text or json.")
        }
    }

    /// The settings given as flags: each setting's key, the flag that gave it, and the value.
    func flagSettings() -> [(key: String, flag: String, value: ConfigContent)] {
        var given: [(key: String, flag: String, value: ConfigContent)] = []
        func set(_ key: String, _ flag: String, _ value: ConfigContent?) {
            if let value { given.append((key, flag, value)) }
        }
        set("store", "--store", storePath.map(ConfigContent.string))
        set("listen", "--listen", listen.map(ConfigContent.string))
        set("apiKeyFile", "--api-key-file", apiKeyFile.map(ConfigContent.string))
        set("publicURL", "--public-url", publicURL.map(ConfigContent.string))
        set("links.walletBadges", "--wallet-badges", walletBadges.map(ConfigContent.string))
        set("executor", "--executor", executor.map(ConfigContent.string))
        set("push.pollSeconds", "--push-poll", pushPoll.map(ConfigContent.double))
        set("push.leaseSeconds", "--push-lease", pushLease.map(ConfigContent.double))
        set("updatedAtMarginSeconds", "--updated-at-margin", updatedAtMargin.map(ConfigContent.double))
        set("registrations.maximumPerOrder", "--max-registrations-per-order", maximumRegistrationsPerOrder.map(ConfigContent.int))
        set("registrations.maximumPerDevice", "--max-registrations-per-device", maximumRegistrationsPerDevice.map(ConfigContent.int))
        set("registrations.perClientPerMinute", "--registrations-per-minute", registrationsPerMinute.map(ConfigContent.int))
        set("connections.headerTimeoutSeconds", "--header-timeout", headerTimeout.map(ConfigContent.double))
        set("connections.idleTimeoutSeconds", "--idle-timeout", idleTimeout.map(ConfigContent.double))
        set("connections.bodyTimeoutSeconds", "--body-timeout", bodyTimeout.map(ConfigContent.double))
        set("connections.bodyMinimumBytesPerSecond", "--body-minimum-rate", bodyMinimumRate.map(ConfigContent.int))
        set("connections.maximum", "--max-connections", maximumConnections.map(ConfigContent.int))
        set("connections.maximumPerAddress", "--max-connections-per-address", maximumConnectionsPerAddress.map(ConfigContent.int))
        if !trustedProxies.isEmpty { set("trustedProxies", "--trusted-proxy", .stringArray(trustedProxies)) }
        set("log.level", "--log-level", logLevel.map(ConfigContent.string))
        set("log.format", "--log-format", logFormat.map(ConfigContent.string))
        set("tls.certificate", "--tls-certificate", tlsCertificate.map(ConfigContent.string))
        set("tls.key", "--tls-key", tlsKey.map(ConfigContent.string))
        set("signing.directory", "--signing-dir", signingDirectory.map(ConfigContent.string))
        set("apns.environment", "--apns", apnsEnvironment.map(ConfigContent.string))
        set("apns.tokenKey", "--apns-token-key", apnsTokenKey.map(ConfigContent.string))
        set("apns.keyID", "--apns-key-id", apnsKeyID.map(ConfigContent.string))
        set("apns.teamID", "--apns-team-id", apnsTeamID.map(ConfigContent.string))
        set("apns.certificate", "--apns-cert", apnsCertificate.map(ConfigContent.string))
        set("apns.key", "--apns-key", apnsKey.map(ConfigContent.string))
        set("apns.p12", "--apns-p12", apnsPKCS12.map(ConfigContent.string))
        if !apnsTrustRoots.isEmpty { set("apns.trustRoots", "--apns-ca", .stringArray(apnsTrustRoots)) }
        return given
    }

    /// `error` in the words the user chose: "The setting listen is nowhere" becomes "--listen is
    /// nowhere", and "(tls.key)" "(--tls-key)", for each setting given as a flag.
    func inFlagTerms(_ error: WalletOrdersError) -> WalletOrdersError {
        var error = error
        for (key, flag, _) in flagSettings() {
            error.message = error.message.replacingOccurrences(of: "The setting \(key) ", with: "\(flag) ")
                .replacingOccurrences(of: "(\(key))", with: "(\(flag))")
        }
        return error
    }

    /// `body`, its error in the words the user chose (``inFlagTerms(_:)``).
    func withFlagTerms<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as WalletOrdersError { throw inFlagTerms(error) }
    }

    /// `body`, its error in the words the user chose (``inFlagTerms(_:)``).
    func inFlagTerms<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as WalletOrdersError { throw inFlagTerms(error) }
    }

    /// Flags, then WALLET_ORDERS_* variables, then the --config file.
    func readConfiguration() async throws -> ConfigReader {
        var flags: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, _, value) in flagSettings() {
            flags[AbsoluteConfigKey(ConfigKey(key).components, context: [:])] = ConfigValue(value, isSecret: false)
        }
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(secretsSpecifier: .specific(["WALLET_ORDERS_API_KEYS"])).prefixKeys(with: ["wallet", "orders"]),
        ]
        if let configFile {
            // Checked with positions first: a syntax error at its line and column, a misspelt
            // key (which would be ignored, and its default used) with the nearest real one.
            try OrderServer.Configuration.checkSettingsFile(try BoundedFile.readRegularFile(configFile, as: .settings), path: configFile)
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(configFile)))
            } catch {
                throw WalletOrdersError(
                    .invalidConfiguration, "The settings file \(configFile) can't be read as JSON: \(error)",
                    hint: "Give a JSON object such as {\"listen\": \"127.0.0.1:8080\", \"push\": {\"pollSeconds\": 1}}.")
            }
        }
        let reader = ConfigReader(providers: providers)
        // Before anything is read: a value of the wrong type would be passed over, its default used.
        try OrderServer.Configuration.checkSettingTypes(reader)
        return reader
    }
}
