import AsyncHTTPClient
public import Foundation
public import Logging
import Metrics
public import NIOCore
import NIOHTTP1
import NIOSSL
public import ServiceLifecycle
import Synchronization
import WalletOrders

/// Sends Wallet's order update pushes to Apple's push service (APNs) over HTTP/2.
///
/// Each push is `POST /3/device/<token>` with `apns-topic: <order type identifier>`,
/// `apns-push-type: background`, `apns-priority: 5` and the body `{}`. The client
/// authenticates with the Order Type ID certificate as its TLS client certificate, or with a
/// provider token (ES256 JWT) where the merchant has an APNs auth key; see
/// ``APNsConfiguration/Credentials``.
///
/// It holds one HTTP/2 connection (negotiated by ALPN) and sends concurrent pushes as streams on
/// it. Every answer becomes a ``PushOutcome`` by ``APNsOutcomeTable``; failures without an
/// answer become `retryLater` (a refused or lost connection, a timeout) or `credentialsRefused`
/// (TLS refused the client certificate, or the service's certificate isn't trusted). ``send(_:)`` never throws.
///
/// A push whose connection is lost before an answer is sent again at once, once (APNs closes
/// connections now and then; a push that arrives twice costs the device one extra fetch), and one
/// handed to a connection already closing is sent again after a few milliseconds, up to three
/// times. With certificate credentials the client speaks TLS 1.2 (APNs' minimum), so a
/// certificate the service refuses fails the handshake with an alert saying why; under TLS 1.3
/// that refusal would look like a dropped connection. A device token that isn't 1 to 200 hex
/// digits is never sent (`deviceGone`, `BadDeviceToken`).
///
/// With token credentials the token is signed once and reused for
/// ``APNsConfiguration/providerTokenLifetime``; when APNs answers 403 `ExpiredProviderToken` a new
/// one is signed at once and the push sent again, once.
///
/// Logs name a device by the first 8 characters of its token only. Metrics (swift-metrics):
/// the counter `wallet_orders_apns_pushes_total` by `outcome` (`delivered`, `retry_later`,
/// `device_gone`, `credentials_refused`, `rejected`) and the timer `wallet_orders_apns_push_duration_seconds`.
///
/// The client is a ServiceLifecycle `Service`: in a service group (``OrderServer`` puts the push
/// sender there, before the push worker, so the worker stops first) it closes its connections
/// when the group shuts down. Outside a group, call ``shutdown()`` before the client is released.
public final class APNsClient: PushSender, Service {
    /// What the client was made with.
    public let configuration: APNsConfiguration
    private let httpClient: HTTPClient
    private let isShutDown = Atomic(false)
    private let providerToken: APNsProviderToken?
    private let logger: Logger
    private let baseURL: String

    /// A client for `configuration`. It connects on the first push.
    ///
    /// - Parameters:
    ///   - eventLoopGroup: Where its connections run; by default AsyncHTTPClient's shared group.
    ///   - logger: Where it logs (debug: each push; warning: rejected pushes and lost devices).
    /// - Throws: ``APNsConfigurationError`` when a trust root or the provider token key can't be read.
    public init(
        configuration: APNsConfiguration, eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger = Logger(label: "wallet-orders.apns")
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.baseURL = "https://\(Self.urlHost(configuration.endpoint.host)):\(configuration.endpoint.port)/3/device/"

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        do {
            let roots = try configuration.additionalTrustRootsPEM.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) }
            if !roots.isEmpty { tls.additionalTrustRoots = [.certificates(roots)] }
        } catch {
            throw APNsConfigurationError("an additional trust root can't be read (\(error))")
        }
        switch configuration.credentials {
        case .certificate(let certificate):
            tls.certificateChain = certificate.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(certificate.privateKey)
            // TLS 1.2 (APNs' minimum): a service refusing the certificate then fails the
            // handshake itself, with an alert saying why. With TLS 1.3 the refusal comes after
            // the client's side of the handshake and looks like a dropped connection, which
            // would make a bad certificate `retryLater` for ever.
            tls.maximumTLSVersion = .tlsv12
            providerToken = nil
        case .token(let keyID, let teamID, let privateKeyPEM):
            providerToken = try APNsProviderToken(
                keyID: keyID, teamID: teamID, privateKeyPEM: privateKeyPEM, lifetime: configuration.providerTokenLifetime)
        }

        var http = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: Self.timeAmount(configuration.connectTimeout)))
        http.httpVersion = .automatic  // HTTP/2 by ALPN; APNs speaks nothing else.
        http.connectionPool.idleTimeout = .minutes(10)
        // A connection that can't be made is a passing failure the outbox retries; don't retry
        // here until the connect timeout (a refused client certificate would wait it out too).
        http.connectionPool.retryConnectionEstablishment = false
        httpClient = HTTPClient(
            eventLoopGroup: eventLoopGroup ?? HTTPClient.defaultEventLoopGroup, configuration: http,
            backgroundActivityLogger: logger)
    }

    /// Sends `notification` and says what became of it.
    public func send(_ notification: PushNotification) async -> PushOutcome {
        await sendReporting(notification).outcome
    }

    /// The credential pushes are sent with, for people: the provider token's key and team, or
    /// the client certificate.
    public var credentialDescription: String {
        switch configuration.credentials {
        case .token(let keyID, let teamID, _): "provider token of key \(keyID), team \(teamID)"
        case .certificate(let certificate): "client certificate \(certificate.certificateChain[0].description)"
        }
    }

    /// Sends `notification` and says what became of it, with APNs's status and `apns-id`.
    public func sendReporting(_ notification: PushNotification) async -> PushReceipt {
        let started = ContinuousClock.now
        var receipt = await deliver(notification)
        receipt.credential = credentialDescription
        let outcome = receipt.outcome
        let elapsed = started.duration(to: .now)
        let label: String
        var metadata: Logger.Metadata = [
            "apns.device": "\(Self.redacted(notification.deviceToken))", "apns.topic": "\(notification.topic)",
        ]
        switch outcome {
        case .delivered:
            label = "delivered"
            logger.info("APNs push delivered", metadata: metadata)
        case .retryLater(let after, let reason):
            label = "retry_later"
            metadata["apns.reason"] = "\(reason)"
            if let after { metadata["apns.retry_after"] = "\(after)" }
            logger.info("APNs push to retry later", metadata: metadata)
        case .deviceGone(let reason):
            label = "device_gone"
            metadata["apns.reason"] = "\(reason)"
            logger.notice("APNs says the device is gone", metadata: metadata)
        case .credentialsRefused(let reason):
            label = "credentials_refused"
            metadata["apns.reason"] = "\(reason)"
            logger.warning("APNs refused the credentials", metadata: metadata)
        case .rejected(let reason):
            label = "rejected"
            metadata["apns.reason"] = "\(reason)"
            logger.warning("APNs push rejected", metadata: metadata)
        }
        Counter(label: "wallet_orders_apns_pushes_total", dimensions: [("outcome", label)]).increment()
        Metrics.Timer(label: "wallet_orders_apns_push_duration_seconds", preferredDisplayUnit: .seconds)
            .recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        return receipt
    }

    /// What an endpoint said to ``probe()``.
    public struct Probe: Sendable {
        /// The HTTP status of its answer (APNs answers a request for `/` with an error status).
        public var status: Int
        /// Its `Date` header, when it sent one: the endpoint's clock.
        public var date: Date?
    }

    /// Asks the endpoint for `/` (no push): an answer means it is reachable and its TLS
    /// certificate trusted; the answer's `Date` header tells its clock.
    ///
    /// - Throws: Why no answer came (no connection, TLS refused, a timeout).
    public func probe(timeout: Duration = .seconds(10)) async throws -> Probe {
        let request = HTTPClientRequest(url: String(baseURL.dropLast("3/device/".count)))
        let response = try await httpClient.execute(request, timeout: .seconds(timeout.components.seconds))
        let date = response.headers.first(name: "date").flatMap(HTTPDate.parse).map { Date(timeIntervalSince1970: Double($0)) }
        return Probe(status: Int(response.status.code), date: date)
    }

    /// Closes the connections; a second call does nothing. Pushes in flight fail with `retryLater`.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await httpClient.shutdown()
    }

    /// Holds the connections until the service group shuts down (or the task is cancelled), then
    /// closes them.
    public func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }

    // MARK: - Sending

    private enum Answer {
        case answered(status: Int, reason: String?, retryAfter: String?, apnsID: String?)
        case failed(any Error)
    }

    private func deliver(_ notification: PushNotification) async -> PushReceipt {
        guard PushNotification.isPlausible(deviceToken: notification.deviceToken) else {
            // Never sent: it can't be a path segment, and APNs would answer BadDeviceToken.
            return PushReceipt(outcome: .deviceGone(reason: "BadDeviceToken"))
        }
        guard !notification.topic.isEmpty, !notification.topic.contains(where: { $0.isNewline }) else {
            return PushReceipt(outcome: .rejected(reason: "BadTopic"))
        }
        guard let providerToken else {
            return receipt(of: await attemptReconnecting(notification, jwt: nil))
        }
        do {
            let jwt = try providerToken.current()
            let answer = await attemptReconnecting(notification, jwt: jwt)
            if case .answered(403, "ExpiredProviderToken", _, _) = answer {
                providerToken.invalidate(jwt)
                logger.info("APNs provider token expired; signing a new one and sending again")
                return receipt(of: await attemptReconnecting(notification, jwt: try providerToken.current()))
            }
            return receipt(of: answer)
        } catch {
            return PushReceipt(outcome: .credentialsRefused(reason: "the provider token can't be signed (\(error))"))
        }
    }

    /// Sends `notification`, again when the connection was lost under it:
    ///
    /// - once more when it was lost after the push was sent (`remoteConnectionClosed`; APNs
    ///   closes connections now and then; a push that arrived twice costs the device one more fetch);
    /// - up to three times more, after 20, 40 and 60 ms, when the push was never sent because it
    ///   was handed to a connection already closing, while the pool hadn't yet heard of the
    ///   close (``isNeverSent(_:)``).
    private func attemptReconnecting(_ notification: PushNotification, jwt: String?) async -> Answer {
        var lostAfterSending = 0
        var neverSent = 0
        while true {
            let answer = await attempt(notification, jwt: jwt)
            guard case .failed(let error) = answer, !Task.isCancelled else { return answer }
            if (error as? HTTPClientError) == .remoteConnectionClosed, lostAfterSending < 1 {
                lostAfterSending += 1
            } else if Self.isNeverSent(error), neverSent < 3 {
                neverSent += 1
                try? await Task.sleep(for: .milliseconds(20 * neverSent))
            } else {
                return answer
            }
            logger.debug(
                "APNs connection lost before an answer; sending again",
                metadata: ["apns.device": "\(Self.redacted(notification.deviceToken))", "apns.error": "\(error)"])
        }
    }

    /// The push was handed to a connection already closing and never left: AsyncHTTPClient's
    /// `cancelled` (not ours: the task isn't cancelled), or NIO's write on a closed channel.
    static func isNeverSent(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .cancelled }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed: return true
            default: return false
            }
        }
        return false
    }

    private func attempt(_ notification: PushNotification, jwt: String?) async -> Answer {
        var request = HTTPClientRequest(url: baseURL + notification.deviceToken)
        request.method = .POST
        request.headers.add(name: "apns-topic", value: notification.topic)
        request.headers.add(name: "apns-push-type", value: "background")
        request.headers.add(name: "apns-priority", value: "5")
        request.headers.add(name: "content-type", value: "application/json")
        if let jwt { request.headers.add(name: "authorization", value: "bearer \(jwt)") }
        request.body = .bytes(ByteBuffer(string: "{}"))
        do {
            let response = try await httpClient.execute(
                request, timeout: Self.timeAmount(configuration.requestTimeout), logger: logger)
            let status = Int(response.status.code)
            let retryAfter = response.headers.first(name: "retry-after")
            var reason: String?
            if status != 200 {
                // Bounded: a body larger than APNs ever sends is ignored, not read.
                if let body = try? await response.body.collect(upTo: configuration.maximumResponseBodySize) {
                    reason = Self.reason(in: body)
                }
            } else {
                _ = try? await response.body.collect(upTo: configuration.maximumResponseBodySize)
            }
            return .answered(status: status, reason: reason, retryAfter: retryAfter, apnsID: response.headers.first(name: "apns-id"))
        } catch {
            return .failed(error)
        }
    }

    private func receipt(of answer: Answer) -> PushReceipt {
        switch answer {
        case .answered(let status, let reason, let retryAfter, let apnsID):
            return PushReceipt(
                outcome: APNsOutcomeTable.outcome(status: status, reason: reason, retryAfter: retryAfter), status: status,
                apnsID: apnsID.map { String($0.prefix(64)) })
        case .failed(let error):
            return PushReceipt(outcome: Self.outcome(of: error))
        }
    }

    /// The outcome of a push that got no answer.
    static func outcome(of error: any Error) -> PushOutcome {
        let text = String(describing: error)
        if let alert = certificateAlert(in: error) {
            return .credentialsRefused(reason: "BadCertificate (TLS: the service refused the client certificate, \(alert))")
        }
        if text.contains("ALERT_HANDSHAKE_FAILURE") {
            // What a TLS 1.2 service answers when a required client certificate is missing.
            return .credentialsRefused(
                reason: "BadCertificate (TLS: the service refused the handshake, ALERT_HANDSHAKE_FAILURE; no client certificate?)")
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("unableToValidateCertificate") {
            return .credentialsRefused(reason: "the push service's certificate is not trusted (TLS)")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return .retryLater(after: nil, reason: "timeout (\(error))")
            default:
                break
            }
        }
        return .retryLater(after: nil, reason: "connection failed (\(text.prefix(200)))")
    }

    /// TLS alerts a service sends when it refuses the client certificate.
    static let certificateAlerts = [
        "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_REQUIRED", "ALERT_CERTIFICATE_UNKNOWN",
        "ALERT_UNSUPPORTED_CERTIFICATE", "ALERT_CERTIFICATE_EXPIRED", "ALERT_CERTIFICATE_REVOKED", "ALERT_ACCESS_DENIED",
    ]

    /// The certificate alert `error` reports, if any.
    static func certificateAlert(in error: any Error) -> String? {
        let text = String(describing: error)
        return certificateAlerts.first { text.contains($0) }
    }

    // MARK: - Helpers

    /// A device token for logs: its first 8 characters and `…`.
    public static func redacted(_ deviceToken: String) -> String {
        deviceToken.count <= 8 ? deviceToken : deviceToken.prefix(8) + "…"
    }

    static func reason(in body: ByteBuffer) -> String? {
        struct ErrorBody: Decodable { var reason: String? }
        guard body.readableBytes > 0 else { return nil }
        return try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)).reason
    }

    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
