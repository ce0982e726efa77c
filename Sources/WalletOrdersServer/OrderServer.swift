import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Prometheus
public import ServiceLifecycle
public import WalletOrders
public import WalletOrdersIntake
public import WalletOrdersPreview
public import WalletOrdersStore

/// What the web service keeps its orders, passes, registrations and push outbox in: the store
/// (``SQLiteOrderStore`` and the PostgreSQL store implement all of it).
public typealias OrderServiceStore = OrderStoring & DeviceRegistrationStoring & PushOutboxStoring & DeliveryTrailStoring & PassStoring
    & PassRegistrationStoring

/// The order web service: Apple's order protocol for devices, the merchant API, `/health`, and
/// the push worker that tells devices about every change.
///
/// ```swift
/// let store = try SQLiteOrderStore(url: storeURL)
/// let keys = [MerchantAPIKey("…", scope: MerchantScope(orderTypes: ["order.com.example.shop"]))]
/// let server = OrderServer(store: store, configuration: .init(apiKeys: keys), pushSender: apnsClient, logger: logger)
/// try await server.application().runService()
/// ```
public struct OrderServer: Sendable {
    /// How the service runs.
    public struct Configuration: Sendable {
        /// Where to listen (default 127.0.0.1:8080).
        public var host: String
        /// The port; 0 picks a free one (``OrderServer/application(onServerRunning:)`` reports it).
        public var port: Int
        /// The merchant API's keys, each with the order types it may act on: a key lists, reads,
        /// uploads, builds, deletes and links only orders of its own types.
        public var apiKeys: [MerchantAPIKey]
        /// Judges uploaded archives (trust anchors included).
        public var validator: OrderValidator
        /// The push worker's schedule.
        public var push: PushWorkerConfiguration
        /// `POST /v1/log`: requests a second per client, and the burst allowed.
        public var logRate: (rate: Double, burst: Double)
        /// TLS for deployments without a reverse proxy: the server's certificate chain and private
        /// key, PEM. Without it the service speaks plain HTTP (behind a proxy that terminates TLS).
        public var tls: (certificateChainPEM: [UInt8], privateKeyPEM: [UInt8])?
        /// The identities the service signs with, per order type (`POST /merchant/v1/orders/build`).
        public var signing: SigningIdentities = SigningIdentities()
        /// The service's public base URL (`https://orders.example.com`), for the customer links
        /// the merchant API hands out; without it they are paths.
        public var publicURL: String?
        /// Apple's "Add to Apple Wallet" badges (``WalletBadges``, a folder of SVGs by language)
        /// for the customer links' page; without them its button is a text link.
        public var walletBadges: WalletBadges?
        /// How far ahead of the service's clock an uploaded or built order's `updatedAt` may be:
        /// one further ahead is answered 422 `updated-at-in-future`. Open the store with the same
        /// limit, so that its other writers are held to it too.
        public var updatedAtLimit: UpdatedAtLimit = .default
        /// How many device registrations an order and a device may have (default 1,000 and 100):
        /// a new one past a cap is answered 409 `order-registration-limit` or
        /// `device-registration-limit`, and nothing is stored.
        public var registrationLimits: RegistrationLimits = .default
        /// Registrations (`POST /v1/devices/…/registrations/…`) with the order's token a client
        /// address may make a minute (default 60, bursts of as many), and as many refused ones (a
        /// wrong token or an unknown order), counted apart; past either, 429 with `Retry-After`.
        /// 0: no limit.
        public var registrationsPerClientPerMinute = 60
        /// Timeouts and caps for connections (``ConnectionLimits``).
        public var connections = ConnectionLimits()
        /// The most bytes of archives kept in memory for Wallet's repeated fetches (default 64 MiB;
        /// 0 keeps none). Kept by digest, so never stale, and shared by every order; an archive
        /// larger than an eighth of this is always read from the store.
        public var archiveCacheBytes = 64 << 20
        /// What `POST /v1/log` may write to the log (``DeviceLogLimits``).
        public var deviceLog = DeviceLogLimits()
        /// Reverse proxies whose `X-Forwarded-For` names the client (for the log endpoint's limits
        /// and the log); their own connections count only towards the global connection cap.
        /// None by default: a client is its socket address.
        public var trustedProxies: [IPAddressRange] = []
        /// The key `GET /metrics` asks for (`Authorization: Bearer <key>`, 16 characters or more).
        /// `nil` (the default) serves the metrics to anyone who reaches the service: set it, or
        /// keep `/metrics` off the public internet at the proxy, when the service faces it.
        public var metricsKey: String?
        /// Where the service's `async` code runs (``OrderServer/TaskThreads``): `wallet-orders
        /// serve` installs it before the service starts. An embedding application calls
        /// ``OrderServer/TaskThreads/install()`` itself, if at all: it decides for the whole process.
        public var taskThreads: TaskThreads = .eventLoops
        /// Told of each step of every upload and build as it begins (``OrderIntake/Step``: validating,
        /// signing, saving, notifying), for logs, metrics or tests.
        public var onIntakeStep: (@Sendable (OrderIntake.Step) -> Void)?
        /// What the push worker and the delivery trail's writer go by (``ServiceClock``): the
        /// machine's clock, or one a test moves by hand.
        public var clock: any ServiceClock = SystemServiceClock()

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, apiKeys: [MerchantAPIKey] = [], validator: OrderValidator? = nil,
            push: PushWorkerConfiguration = .init(), logRate: (rate: Double, burst: Double) = (5, 20), publicURL: String? = nil
        ) throws {
            self.host = host
            self.port = port
            self.apiKeys = apiKeys
            self.validator = try validator ?? OrderValidator()
            self.push = push
            self.logRate = logRate
            self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            self.tls = nil
        }
    }

    /// The store.
    public let store: any OrderServiceStore
    /// The configuration.
    public let configuration: Configuration
    /// The push worker, when a sender was given.
    public let pushWorker: PushWorker?
    /// Notes registrations, pushes, changed-orders requests and fetches in the store's delivery
    /// trail (``DeliveryReport``), in batches.
    public let deliveryTrail: DeliveryTrailRecorder
    /// Sends the worker's pushes.
    let pushSender: (any PushSender)?
    /// Where `GET /metrics` reads from, when metrics are on.
    public let metrics: ServiceMetrics?
    /// How uploads and builds come in: the configuration's validator, the store, and the push
    /// worker told of every change.
    public var intake: OrderIntake {
        OrderIntake(
            validator: configuration.validator, store: store, notifier: pushWorker,
            updatedAtLimit: configuration.updatedAtLimit, onStep: configuration.onIntakeStep)
    }
    let logger: Logger

    /// Creates the service. Without `pushSender` changes are queued but not sent (another
    /// instance, or a later start with one, sends them).
    public init(
        store: any OrderServiceStore, configuration: Configuration, pushSender: (any PushSender)?, logger: Logger,
        metrics: ServiceMetrics? = nil
    ) {
        self.store = store
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
        self.pushSender = pushSender
        let deliveryTrail = DeliveryTrailRecorder(store: store, logger: logger, clock: configuration.clock)
        self.deliveryTrail = deliveryTrail
        pushWorker = pushSender.map {
            PushWorker(
                outbox: store, sender: $0, configuration: configuration.push, logger: logger, trail: deliveryTrail, clock: configuration.clock)
        }
    }

    /// The router with every route and middleware. HEAD is answered wherever GET is, and a wrong
    /// method on a path the service has with 405 and `Allow`.
    public func router() -> Router<OrderRequestContext> {
        let router = HTTPMethodRules.router(context: OrderRequestContext.self) {
            AccessLogMiddleware()
            ErrorMiddleware(logger: logger)
            RequestMetricsMiddleware()
        }
        router.get("health") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"# + "\n")))
        }
        if let metrics {
            let registry = metrics.registry
            let metricsRoutes = router.group()
            if let key = configuration.metricsKey { metricsRoutes.add(middleware: BearerKeyMiddleware(key: key, realm: "metrics")) }
            metricsRoutes.get("metrics") { [store, logger] _, _ in
                // The outbox gauges, read now (a store that can't answer leaves them as they were).
                do {
                    metrics.record(try await store.outboxStatus(now: Date()))
                } catch {
                    logger.warning("the push outbox could not be read for /metrics", metadata: ["error": "\(error)"])
                }
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
            }
        }
        let registrationGate = RegistrationGate(
            trustedProxies: TrustedProxies(ranges: configuration.trustedProxies),
            limiters: configuration.registrationsPerClientPerMinute > 0
                ? (
                    accepted: RateLimiter(
                        rate: Double(configuration.registrationsPerClientPerMinute) / 60, burst: Double(configuration.registrationsPerClientPerMinute)
                    ),
                    refused: RateLimiter(
                        rate: Double(configuration.registrationsPerClientPerMinute) / 60, burst: Double(configuration.registrationsPerClientPerMinute)
                    )
                )
                : nil)
        let archives = ArchiveCache(capacityBytes: configuration.archiveCacheBytes)
        AppleWebServiceRoutes(
            orders: AppleOrderRoutes(
                store: store, logLimiter: RateLimiter(rate: configuration.logRate.rate, burst: configuration.logRate.burst),
                logBudget: ByteBudget(bytes: configuration.deviceLog.budgetBytes, window: configuration.deviceLog.budgetWindow),
                logRequestBytes: configuration.deviceLog.requestBytes, trustedProxies: TrustedProxies(ranges: configuration.trustedProxies),
                pushWorker: pushWorker, registrationLimits: configuration.registrationLimits, registrationGate: registrationGate,
                trail: deliveryTrail, archives: archives),
            passes: ApplePassRoutes(
                store: store, registrationLimits: configuration.registrationLimits, registrationGate: registrationGate, archives: archives)
        ).add(to: router)
        let links = CustomerLinks(
            store: store, previewer: OrderPreviewer(validator: configuration.validator), badges: configuration.walletBadges)
        links.add(to: router)
        MerchantRoutes(
            store: store, intake: intake, apiKeys: MerchantAPIKeys(configuration.apiKeys), links: links,
            publicURL: configuration.publicURL, signing: configuration.signing, deliveryTrail: deliveryTrail
        ).add(to: router)
        HTTPMethodRules.answerWrongMethods(on: router)
        return router
    }

    /// The long-lived parts the service group runs beside the HTTP server: the store when it is
    /// a `Service` (a PostgreSQL store's connection pool), the delivery trail's writer, the push
    /// sender when it is one (``APNsClient``, ``APNsSenders``: it closes its connections at
    /// shutdown), then the push worker. A group shuts its services down last to first, after the
    /// HTTP server: requests in flight finish, the worker stops sending, the APNs connections
    /// close, the trail writes what it holds, then the store's connections close.
    public var services: [any Service] {
        var services: [any Service] = []
        if let store = store as? any Service { services.append(store) }
        // After the worker and the sender stop, before the store closes: it writes what it holds then.
        services.append(deliveryTrail)
        if let sender = pushSender as? any Service { services.append(sender) }
        if let pushWorker { services.append(pushWorker) }
        return services
    }

    /// The Hummingbird application, with the push sender and worker as its services (see
    /// ``services``): run it with `runService()` (graceful shutdown on SIGTERM and SIGINT:
    /// requests in flight finish, the worker finishes the pushes it is sending, then the APNs
    /// connections close).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` when the TLS certificate or key
    ///   can't be read.
    public func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let tlsConfiguration = try configuration.serverTLSConfiguration()
        // Connections are capped and timed (ConnectionLimits); requests that aren't valid HTTP
        // get the JSON error body too (RequestProgress).
        let server = HTTPServerBuilder.guarded(
            limits: configuration.connections, trustedProxies: TrustedProxies(ranges: configuration.trustedProxies), tls: tlsConfiguration)
        return Application(
            router: router(),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "wallet-orders"),
            services: services,
            onServerRunning: onServerRunning,
            logger: logger)
    }

    /// Runs the service until SIGTERM or SIGINT, then shuts down gracefully; `onListening` gets
    /// the address it listens on (the real port when the configuration asked for port 0).
    public func run(onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }) async throws {
        let host = configuration.host
        let port = configuration.port
        do {
            try await application(onServerRunning: { channel in
                await onListening(channel.localAddress?.ipAddress ?? host, channel.localAddress?.port ?? port)
            }).runService()
        } catch let error as IOError {
            throw Configuration.listenFailure(error, host: host, port: port) ?? error
        }
    }
}

extension OrderServer.Configuration {
    /// Binds the address the service is to listen on and lets go of it at once: what `serve`
    /// would meet there (another process on the port, a privileged port, an address this
    /// machine doesn't have). Port 0 always binds.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` saying what is in the way.
    package func checkListenAddress() async throws {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
        } catch let error as IOError {
            throw Self.listenFailure(error, host: host, port: port)
                ?? WalletOrdersError(
                    .invalidConfiguration, "Can't listen on \(Self.address(host, port)): \(error.description).")
        } catch {
            throw WalletOrdersError(
                .invalidConfiguration, "Can't listen on \(Self.address(host, port)): the host doesn't resolve to an address of this machine.",
                hint: "Listen on an address of this machine: 127.0.0.1 behind a reverse proxy, 0.0.0.0 or [::] for every interface.",
                underlying: error)
        }
    }

    static func address(_ host: String, _ port: Int) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// What a failed bind means, in the words of `listen`: `nil` for an error with no better words.
    static func listenFailure(_ error: IOError, host: String, port: Int) -> WalletOrdersError? {
        let address = address(host, port)
        switch error.errnoCode {
        case EADDRINUSE:
            return WalletOrdersError(
                .invalidConfiguration, "Can't listen on \(address): another process is listening there.",
                hint: "Stop it (`ss -ltnp 'sport = :\(port)'` names it), or listen on another port (port 0 picks a free one).",
                underlying: error)
        case EACCES:
            return WalletOrdersError(
                .invalidConfiguration, "Can't listen on \(address): ports below 1024 need a privilege this process doesn't have.",
                hint: "Listen on a port of 1024 or more behind a reverse proxy, or grant CAP_NET_BIND_SERVICE (systemd: AmbientCapabilities=).",
                underlying: error)
        case EADDRNOTAVAIL:
            return WalletOrdersError(
                .invalidConfiguration, "Can't listen on \(address): the address is not one of this machine's.",
                hint: "Listen on an address of this machine: 127.0.0.1 behind a reverse proxy, 0.0.0.0 or [::] for every interface.",
                underlying: error)
        default:
            return nil
        }
    }
}
