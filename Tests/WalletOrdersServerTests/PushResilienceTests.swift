import APNsStandIn
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The stores the push worker is tested on: SQLite and, when its binaries are installed, PostgreSQL.
typealias PushStoreKind = ServiceStore

/// Pushes are never lost: through long APNs outages and refused credentials, and one order's
/// fan-out doesn't hold up another merchant's push. The worker, the APNs client and the local
/// APNs stand-in, on SQLite and PostgreSQL.
@Suite("Push delivery survives outages and refused credentials, and drains fairly", .serialized)
struct PushResilienceTests {
    /// Short test settings: the retry schedule of hours, run in milliseconds.
    static let fast = PushWorkerConfiguration(
        lease: .seconds(10), pollInterval: .milliseconds(50), initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(40))

    /// The sample order of another order type (another merchant).
    static func other(_ type: String, _ updatedAt: String, order: String = "other-1") throws -> [UInt8] {
        try SampleVersions.archive(updatedAt: updatedAt, orderIdentifier: order, orderTypeIdentifier: type)
    }

    /// Runs the push worker while `body` runs.
    static func withWorker<T>(
        _ store: any OrderServiceStore, _ sender: any PushSender, _ configuration: PushWorkerConfiguration = fast,
        logger: Logger = Logger(label: "test.push"), clock: any ServiceClock = SystemServiceClock(), _ body: (PushWorker) async throws -> T
    ) async throws -> T {
        let worker = PushWorker(outbox: store, sender: sender, configuration: configuration, logger: logger, clock: clock)
        // A child task, not `Task {}`: it ends with the test, however the test ends.
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await worker.run() }
            defer { group.cancelAll() }
            return try await body(worker)
        }
    }

    /// A stand-in on `port` (0: any) that accepts provider tokens signed with the test key under `keyID`.
    static func standIn(port: Int = 0, keyID: String = APNsTestPKI.keyID) async throws -> APNsStandIn {
        var configuration = APNsStandIn.Configuration(
            serverCertificateChainPEM: (try await APNsTest.pki).serverCertificatePEM, serverPrivateKeyPEM: (try await APNsTest.pki).serverKeyPEM)
        configuration.port = port
        configuration.providerToken = .init(keyID: keyID, teamID: APNsTestPKI.teamID, publicKeyPEM: (try await APNsTest.pki).tokenPublicKeyPEM)
        let standIn = try APNsStandIn(configuration: configuration)
        try await standIn.start()
        return standIn
    }

    @Test(
        "An APNs outage far longer than 20 attempts (503 ServiceUnavailable 40 times over hours of backoff): the push is kept and delivered when APNs is back",
        .timeLimit(.minutes(5)), arguments: PushStoreKind.available)
    func longOutageLosesNothing(kind: PushStoreKind) async throws {
        let standIn = try await Self.standIn()
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            try await kind.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                let token = APNsTest.deviceToken()
                _ = try await store.register(deviceIdentifier: "phone", pushToken: token, for: SampleVersions.identifier)
                standIn.respondToNext(40, with: .error(status: 503, reason: "ServiceUnavailable"))
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
                // The production schedule (1 s doubling to 15 minutes: about seven hours for 40
                // attempts) on a clock the test moves: each round the worker has tried what was
                // due and sleeps, and the clock jumps the longest step.
                let clock = ManualServiceClock()
                try await Self.withWorker(store, apns, PushWorkerConfiguration(), clock: clock) { _ in
                    var sleeps = 0
                    for _ in 0..<60 where standIn.pushes.isEmpty {
                        await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                        sleeps = clock.sleeps
                        clock.advance(by: PushWorkerConfiguration().maximumBackoff)
                    }
                    await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                }
                #expect(try await store.outboxStatus(now: clock.now).pending == 0, "delivered, and recorded as delivered")
                #expect(standIn.requests.filter { $0.status == 503 }.count == 40, "every attempt of the outage was made")
                #expect(standIn.pushes.map(\.deviceToken) == [token])
            }
        }
        try await standIn.shutdown()
    }

    @Test(
        "The default lease outlasts the APNs client's slowest send (two connections, two answers), so a slow APNs never gets a push twice"
    )
    func leaseOutlastsTheSlowestSend() async throws {
        let apns = APNsConfiguration(endpoint: .production, credentials: (try await APNsTest.tokenCredentials))
        #expect(PushWorkerConfiguration().lease > (apns.connectTimeout + apns.requestTimeout) * 2)
    }

    @Test(
        "Any other refusal (400 BadTopic, 404 BadPath from a wrong endpoint, 413, a status APNs doesn't send) parks the pushes instead of dropping them; they are delivered once a probe gets through",
        .timeLimit(.minutes(5)), arguments: [(400, "BadTopic"), (404, "BadPath"), (413, "PayloadTooLarge"), (418, "Teapot")])
    func otherRefusalsPark(status: Int, reason: String) async throws {
        let standIn = try await Self.standIn()
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let recorder = CapturedLog()
            // The production schedule (a probe a minute) on a clock the test moves.
            let configuration = PushWorkerConfiguration()
            let clock = ManualServiceClock()
            try await ServiceStore.sqlite.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                let token = APNsTest.deviceToken()
                _ = try await store.register(deviceIdentifier: "phone", pushToken: token, for: SampleVersions.identifier)
                standIn.respondToNext(3, with: .error(status: status, reason: reason))
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
                try await Self.withWorker(store, apns, configuration, logger: recorder.logger(), clock: clock) { _ async throws in
                    await clock.waitUntilIdle(after: 0, sleepers: 1)
                    #expect(standIn.requests.count == 1)
                    #expect(recorder.all.contains { $0.message.contains("parked") })
                    #expect(try await store.outboxStatus(now: clock.now).pending == 1, "the refused push is kept")
                    let parked = recorder.all.filter { $0.level >= .error && $0.message.contains("parked") }
                    #expect(parked.first?.metadata["apns.reason"] == "\(reason)", "\(recorder.all.map(\.message))")
                    // A probe a minute: the two refusals left are spent, then the third probe is
                    // delivered and the push leaves the outbox.
                    for probe in 1...3 {
                        let sleeps = clock.sleeps
                        clock.advance(by: configuration.parkedProbeInterval)
                        await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                        #expect(standIn.requests.count == 1 + probe, "one request a probe")
                    }
                    #expect(standIn.pushes.map(\.deviceToken) == [token])
                    #expect(try await store.outboxStatus(now: clock.now).pending == 0)
                }
                #expect(standIn.requests.filter { $0.status == status }.count == 3)
                #expect(try await store.registrationCount(for: SampleVersions.identifier) == 1, "the registration is kept")
            }
        }
        try await standIn.shutdown()
    }

    @Test(
        "Refused credentials (403 InvalidProviderToken) park the pushes with a metric and an error log line; a probe a minute; delivered when the credentials work again",
        .timeLimit(.minutes(5)), arguments: PushStoreKind.available)
    func refusedCredentialsPark(kind: PushStoreKind) async throws {
        let topic = "order.com.example.credentials.\(kind.rawValue)"
        // APNs knows the key under another ID: every push is refused with InvalidProviderToken.
        let refusing = try await Self.standIn(keyID: "REVOKEDKEY")
        let port = refusing.port
        let apns = try await APNsTest.client(port: port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let recorder = CapturedLog()
            let metrics = ServiceMetrics.bootstrapped
            // The production schedule (a probe a minute) on a clock the test moves.
            let configuration = PushWorkerConfiguration()
            let clock = ManualServiceClock()
            try await kind.withStore { store in
                let first = FullyQualifiedOrderIdentifier(orderTypeIdentifier: topic, orderIdentifier: "other-1")
                let second = FullyQualifiedOrderIdentifier(orderTypeIdentifier: topic, orderIdentifier: "other-2")
                _ = try await store.intake().save(signedArchive: try Self.other(topic, "2025-11-21T00:00:00Z"))
                _ = try await store.intake().save(signedArchive: try Self.other(topic, "2025-11-21T00:00:00Z", order: "other-2"))
                let tokens = [APNsTest.deviceToken(), APNsTest.deviceToken()]
                _ = try await store.register(deviceIdentifier: "phone", pushToken: tokens[0], for: first)
                _ = try await store.register(deviceIdentifier: "tablet", pushToken: tokens[1], for: second)
                _ = try await store.intake().save(signedArchive: try Self.other(topic, "2025-11-22T00:00:00Z"))
                _ = try await store.intake().save(signedArchive: try Self.other(topic, "2025-11-22T00:00:00Z", order: "other-2"))
                try await Self.withWorker(store, apns, configuration, logger: recorder.logger(), clock: clock) { _ in
                    // Each step: move the clock, then wait until the worker has done what came due and sleeps.
                    var sleeps = 0
                    func advance(_ duration: Duration) async {
                        sleeps = clock.sleeps
                        clock.advance(by: duration)
                        await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                    }
                    await clock.waitUntilIdle(after: 0, sleepers: 1)
                    #expect(refusing.requests.count == 2, "both pushes tried once")
                    // Parked, announced once, with the metric an operator alerts on.
                    #expect(recorder.all.contains { $0.message.contains("parked") })
                    let parkedLines = recorder.all.filter { $0.level >= .error && $0.message.contains("parked") }
                    #expect(parkedLines.count == 1, "one line when the topic is parked, not one per push")
                    #expect(parkedLines.first?.metadata["apns.topic"] == topic)
                    #expect(parkedLines.first?.metadata["apns.reason"] == "InvalidProviderToken")
                    #expect(Self.metric(metrics, "wallet_orders_push_topic_parked", topic: topic) == 1)
                    // Polls come and go; no push reaches APNs until the probe is due, a minute after the refusal.
                    for _ in 0..<59 { await advance(.seconds(1)) }
                    #expect(try await store.outboxStatus(now: clock.now).pending == 2, "both pushes are kept")
                    #expect(refusing.requests.count == 2, "while parked, nothing is sent before the probe")
                    // A change made while parked is kept too (folded into the waiting push).
                    _ = try await store.intake().save(signedArchive: try Self.other(topic, "2025-11-23T00:00:00Z"))
                    await advance(.seconds(1))
                    #expect(refusing.requests.count == 3, "the probe: one push of the topic, a minute after the refusal")
                    #expect(try await store.outboxStatus(now: clock.now).pending == 2)

                    // The key works again (Apple reinstated it, or the operator fixed the credentials).
                    try await refusing.shutdown()
                    let working = try await Self.standIn(port: port)
                    // The next probe gets through and resumes the topic: both pushes go at once. (A
                    // probe that finds the client still reconnecting stays parked: the next one goes.)
                    for _ in 0..<5 where working.pushes.count < tokens.count { await advance(configuration.parkedProbeInterval) }
                    #expect(Set(working.pushes.map(\.deviceToken)) == Set(tokens))
                    #expect(Self.metric(metrics, "wallet_orders_push_topic_parked", topic: topic) == 0)
                    #expect(recorder.all.contains { $0.message.contains("resume") })
                    #expect(try await store.outboxStatus(now: clock.now).pending == 0)
                    try await working.shutdown()
                }
                #expect(try await store.registrationCount(for: first) == 1, "refused credentials remove no registration")
            }
        }
    }

    @Test(
        "Fairness: while one order's fan-out to 800 devices drains, another order type's single push leaves behind at most the batches in flight",
        arguments: PushStoreKind.available)
    func fairAcrossOrderTypes(kind: PushStoreKind) async throws {
        let standIn = try await Self.standIn()
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let otherType = "order.com.example.fairness.\(kind.rawValue)"
            try await kind.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                _ = try await store.intake().save(signedArchive: try Self.other(otherType, "2025-11-21T00:00:00Z"))
                for device in 0..<800 {
                    _ = try await store.register(deviceIdentifier: "d\(device)", pushToken: APNsTest.deviceToken(), for: SampleVersions.identifier)
                }
                let single = APNsTest.deviceToken()
                _ = try await store.register(
                    deviceIdentifier: "customer", pushToken: single,
                    for: FullyQualifiedOrderIdentifier(orderTypeIdentifier: otherType, orderIdentifier: "other-1"))
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
                let configuration = PushWorkerConfiguration(pollInterval: .milliseconds(50))
                try await Self.withWorker(store, apns, configuration) { _ in
                    #expect(try await PushDeliveryTests.eventually { standIn.pushes.count >= 100 }, "the fan-out is under way")
                    _ = try await store.intake().save(signedArchive: try Self.other(otherType, "2025-11-22T00:00:00Z"))
                    // Timed from the save's answer: what the fan-out sent while the save was still
                    // committing (a loaded machine's commit can take a tenth of a second) was
                    // claimed before the push existed, so it isn't ahead of it.
                    let saved = Date()
                    #expect(try await PushDeliveryTests.eventually(60) { standIn.pushes.contains { $0.deviceToken == single } })
                    let delivered = try #require(standIn.pushes.first { $0.deviceToken == single })
                    // It goes out with the first claim after its save, behind at most the batches
                    // in flight then (2 of 32 pushes) and one claimed beside it. Counted in pushes,
                    // the bound the worker sets, not in seconds: on a loaded two-core machine those
                    // 96 pushes can take seconds, on a server tens of milliseconds. A stall is
                    // caught by the wait above.
                    let ahead = standIn.pushes.filter { $0.receivedAt > saved && $0.receivedAt < delivered.receivedAt }.count
                    let bound = (configuration.concurrentBatches + 1) * configuration.batchSize
                    #expect(ahead <= bound, "\(ahead) pushes of the fan-out went ahead of it")
                    #expect(try await PushDeliveryTests.eventually(120) { standIn.pushes.count == 801 })
                }
            }
        }
        try await standIn.shutdown()
    }

    /// A gauge's value for `topic` in the Prometheus text, or `nil` when it isn't there.
    static func metric(_ metrics: ServiceMetrics, _ name: String, topic: String) -> Double? {
        let text = metrics.exposition
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") && line.contains(#"topic="\#(topic)""#) {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }
}

/// The registration endpoint's caps and per-client rate, over live HTTP.
@Suite("Registrations: caps per order and per device, and a rate per client address")
struct RegistrationLimitTests {
    /// A live service with `limits` and six registrations a client a minute, on a fresh SQLite
    /// store holding the sample.
    static func withService(
        limits: RegistrationLimits = .default, _ body: @Sendable (SQLiteOrderStore, any TestClientProtocol) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder("limits")
        defer { folder.remove() }
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        var configuration = try OrderServer.Configuration(port: 0, validator: TestPKI.validator)
        configuration.registrationLimits = limits
        configuration.registrationsPerClientPerMinute = 6
        configuration.connections = .liveTestClient
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: logger)
        try await server.application().test(.live) { client in try await body(store, client) }
    }

    /// Registers `device` for the sample with `token`.
    static func register(_ device: String, token: String = ServiceUnderTest.token, _ client: any TestClientProtocol) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/devices/\(device)/registrations/\(ServiceUnderTest.orderPath)", method: .post,
            headers: ServiceUnderTest.appleOrder(token), body: ByteBuffer(string: #"{"pushToken": "aa11bb22cc33dd44"}"#))
    }

    @Test("Past the order's cap: 409 order-registration-limit and nothing stored; past the client's rate: 429 with Retry-After")
    func capsAndRate() async throws {
        try await Self.withService(limits: RegistrationLimits(maximumPerOrder: 3, maximumPerDevice: 100)) { store, client in
            func register(_ device: String) async throws -> TestResponse { try await Self.register(device, client) }
            let started = ContinuousClock.now
            for device in ["d1", "d2", "d3"] { #expect(try await register(device).status == .created) }
            let full = try await register("d4")
            #expect(full.status == .conflict)
            #expect(full.errorCode == "order-registration-limit")
            #expect(try await store.registrationCount(for: ServiceUnderTest.order) == 3)
            #expect(try await register("d1").status == .ok, "a registered device registers again")
            // Six a minute, a burst of six: the seventh request within ten seconds is refused. A busy
            // machine may take longer over these requests, and each ten seconds gives one more.
            let clock = ContinuousClock()
            var answered = 6
            var limited = try await register("d5")
            while limited.status != .tooManyRequests, answered < 30 {
                limited = try await register("d\(answered)")
                answered += 1
            }
            let refills = Int((clock.now - started) / .seconds(10))
            #expect(answered <= 6 + refills + 1, "\(answered) answered before a 429 in \(clock.now - started)")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == "rate-limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await store.registrations(for: ServiceUnderTest.order).map(\.deviceIdentifier) == ["d1", "d2", "d3"])
        }
    }

    @Test(
        "The rate counts accepted registrations and refused ones apart: a client sending wrong tokens doesn't hold back a device with the right one"
    )
    func rateCountsNewAndRefusedApart() async throws {
        try await Self.withService { _, client in
            func register(_ device: String, token: String = ServiceUnderTest.token) async throws -> TestResponse {
                try await Self.register(device, token: token, client)
            }
            #expect(try await register("d1").status == .created)
            #expect(try await register("d1").status == .ok)
            var refused: [HTTPResponse.Status] = []
            for attempt in 0..<20 { refused.append(try await register("x\(attempt)", token: "wrong-token-0123456789").status) }
            #expect(refused.prefix(6).allSatisfy { $0 == .unauthorized })
            #expect(refused.last == .tooManyRequests, "wrong tokens are limited: \(refused)")
            #expect(try await register("d2").status == .created, "the right token still registers")
        }
    }
}
