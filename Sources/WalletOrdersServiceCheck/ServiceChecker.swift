import Foundation
public import WalletOrders

/// Plays Wallet against an order web service and reports every deviation from Apple's protocol.
///
/// The checker knows only the service's base URL (the order's `webServiceURL`), one order and its
/// authentication token: it works against any implementation, not only this package's. It asks
/// what Wallet asks, in Wallet's order: the order (with and without the token), conditional GETs,
/// a device registration, the changed-orders list and its tag, a device log, and unregistering.
/// With a merchant API key for this package's merchant API it also changes the order (a later
/// `updatedAt`) and checks that the change reaches the device's list and the order endpoint.
///
/// ```swift
/// let checker = try ServiceChecker(.init(
///     serviceURL: "https://orders.example.com/wallet",
///     order: FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.com.example.shop", orderIdentifier: "1234"),
///     authenticationToken: token))
/// let report = try await checker.check()
/// print(report.rendered(as: .text))
/// ```
///
/// Every request has a deadline that covers its body, bodies are read up to a limit, TLS
/// certificates are verified, and redirects are reported rather than followed. The test device
/// registered on the way is unregistered at the end, also after failures.
public struct ServiceChecker: Sendable {
    /// What to check, and with which limits.
    public struct Configuration: Sendable {
        /// The service's base URL: the order's `webServiceURL` (Wallet appends `/v1/…`).
        public var serviceURL: String
        /// The order to fetch and register for.
        public var order: FullyQualifiedOrderIdentifier
        /// The order's `authenticationToken`. Never written into a report.
        public var authenticationToken: String
        /// A key for this package's merchant API (`Authorization: Bearer`), to change the order and
        /// check that the change reaches the device; `nil` skips those checks. Never written into a report.
        public var merchantAPIKey: String?
        /// The most one request may take, its body included.
        public var timeout: Duration
        /// The most bytes of one response body the checker reads.
        public var maximumBodyBytes: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - serviceURL: The service's base URL (`https://…`, or `http://` for a local service).
        ///   - order: The order to check with.
        ///   - authenticationToken: The order's token.
        ///   - merchantAPIKey: A merchant API key for the change checks, if any.
        ///   - timeout: The most one request may take (10 seconds by default).
        ///   - maximumBodyBytes: The most bytes of a response body read (8 MiB by default).
        public init(
            serviceURL: String, order: FullyQualifiedOrderIdentifier, authenticationToken: String, merchantAPIKey: String? = nil,
            timeout: Duration = .seconds(10), maximumBodyBytes: Int = 8 * 1024 * 1024
        ) {
            self.serviceURL = serviceURL
            self.order = order
            self.authenticationToken = authenticationToken
            self.merchantAPIKey = merchantAPIKey
            self.timeout = timeout
            self.maximumBodyBytes = maximumBodyBytes
        }
    }

    /// What the checker was given.
    public let configuration: Configuration
    /// The base URL without a trailing slash.
    let baseURL: String

    /// Creates a checker.
    ///
    /// - Throws: ``WalletOrdersError`` with code ``WalletOrdersError/Code/invalidConfiguration``
    ///   when the URL is not an absolute `http` or `https` URL without query or fragment, an
    ///   identifier or the token is empty, or the timeout or body limit is not positive.
    public init(_ configuration: Configuration) throws {
        let text = configuration.serviceURL
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw WalletOrdersError(
                .invalidConfiguration, "'\(text)' is not a web service URL.",
                hint: "Give the order's webServiceURL, such as https://orders.example.com/wallet (no query, no fragment).")
        }
        guard !configuration.order.orderTypeIdentifier.isEmpty, !configuration.order.orderIdentifier.isEmpty else {
            throw WalletOrdersError(.invalidConfiguration, "The order type identifier and the order identifier must not be empty.")
        }
        guard !configuration.authenticationToken.isEmpty else {
            throw WalletOrdersError(.invalidConfiguration, "The authentication token must not be empty.")
        }
        guard configuration.timeout > .zero, configuration.maximumBodyBytes > 0 else {
            throw WalletOrdersError(.invalidConfiguration, "The timeout and the body limit must be positive.")
        }
        self.configuration = configuration
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        baseURL = base
    }

    /// Runs every check against the service.
    ///
    /// - Returns: Every check with its findings; ``ServiceCheckReport/passed`` when no error was found.
    /// - Throws: ``WalletOrdersError`` with code ``WalletOrdersError/Code/serviceUnreachable`` when
    ///   the first request gets no answer at all; once the service has answered, failures are findings.
    public func check() async throws -> ServiceCheckReport {
        let http = ServiceHTTP(baseURL: baseURL, timeout: configuration.timeout, maximumBodyBytes: configuration.maximumBodyBytes)
        let run = ServiceCheckRun(configuration: configuration, http: http)
        let outcome: Result<Void, any Error>
        do {
            try await run.runAll()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await run.cleanUp()
        await http.shutdown()
        try outcome.get()
        return run.report
    }
}
