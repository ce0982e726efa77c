import ArgumentParser
import Foundation
import Logging
import WalletOrders
import WalletOrdersServer
import WalletOrdersStore

/// `wallet-orders serve`: the order web service on the order store.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve orders to Wallet: Apple's order web service, the merchant API and pushes.",
        discussion: """
            Devices use Apple's protocol under /v1/ (register, changed orders, fetch the newest
            archive, log). Merchants upload signed archives and ask the store through
            /merchant/v1/ with an API key (Authorization: Bearer KEY). Every save that changes an
            order queues a push to each registered device in the same transaction; the push
            worker sends them to APNs. GET /health answers while the service runs.

            API keys come from --api-key-file (one a line) or WALLET_ORDERS_API_KEYS (comma-
            separated); each must be at least 16 characters. SIGTERM or Ctrl-C stops the
            service gracefully: requests in flight finish, pushes being sent are completed.

            Examples:
              wallet-orders serve --store orders.sqlite --listen 127.0.0.1:8080 --api-key-file keys.txt
              curl -H "Authorization: AppleOrder TOKEN" http://127.0.0.1:8080/v1/orders/TYPE/ID -o order.order
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Address and port to listen on (port 0 picks a free one).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("Merchant API keys, one a line.", valueName: "file"))
    var apiKeyFile: String?

    @Option(name: .customLong("push-poll"), help: ArgumentHelp("Seconds between looks at the push outbox (saves by other processes, retries).", valueName: "seconds"))
    var pushPoll: Double = 1

    @Option(name: .customLong("push-lease"), help: ArgumentHelp("Seconds a claimed push stays claimed before another worker may send it.", valueName: "seconds"))
    var pushLease: Double = 30

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    func validate() throws {
        guard Self.hostAndPort(listen) != nil else {
            throw ValidationError("--listen takes host:port, e.g. 127.0.0.1:8080 or [::1]:8080.")
        }
        guard pushPoll > 0, pushPoll <= 3_600 else { throw ValidationError("--push-poll must be between 0 and 3600 seconds.") }
        guard pushLease >= 1, pushLease <= 86_400 else { throw ValidationError("--push-lease must be between 1 and 86400 seconds.") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning, error or critical.")
        }
    }

    func run() async throws {
        let (host, port) = Self.hostAndPort(listen)!
        let keys = try reportingFailures { try readAPIKeys() }
        let opened = try reportingFailures { try store.open() }
        let anchors = try reportingFailures { try TrustRoots.read(store.trustRoots) }
        let validator = try reportingFailures { try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors)) }
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        if keys.isEmpty {
            logger.warning("no merchant API key: every /merchant/v1/ call answers 401 (give --api-key-file or WALLET_ORDERS_API_KEYS)")
        }
        logger.warning("no APNs credentials: changes are queued in the store's outbox and not sent")
        let server = OrderServer(
            store: opened,
            configuration: try .init(
                host: host, port: port, apiKeys: keys, validator: validator,
                push: PushWorkerConfiguration(lease: .milliseconds(Int64(pushLease * 1000)), pollInterval: .milliseconds(Int64(pushPoll * 1000)))),
            pushSender: nil, logger: logger)
        let path = opened.url.path
        try await server.run { host, port in
            Terminal.write("wallet-orders serve: listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port) (store \(path))", to: .standardError)
        }
    }

    /// API keys from --api-key-file, else WALLET_ORDERS_API_KEYS.
    private func readAPIKeys() throws -> [String] {
        let text: String
        if let apiKeyFile {
            text = String(decoding: try BoundedFile.read(apiKeyFile, as: .passphrase), as: UTF8.self)
        } else {
            text = ProcessInfo.processInfo.environment["WALLET_ORDERS_API_KEYS"]?.replacingOccurrences(of: ",", with: "\n") ?? ""
        }
        let keys = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let short = keys.first(where: { $0.count < 16 }) {
            throw WalletOrdersError(
                .invalidConfiguration, "An API key is shorter than 16 characters (\(short.count)); short keys can be guessed.",
                hint: "Use long random keys, e.g. `openssl rand -hex 24`.")
        }
        return keys
    }

    /// `host:port`, `[v6]:port`.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
