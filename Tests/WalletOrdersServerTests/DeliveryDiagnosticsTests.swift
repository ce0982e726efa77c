import APNsStandIn
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// "The push succeeded; why didn't the order update?", answered from the trail the service keeps:
/// a live service, the outbox, the APNs client and the local APNs stand-in, on SQLite and
/// PostgreSQL.
@Suite("Delivery diagnostics: what each device saw, and a verdict (live HTTP, APNs stand-in)", .serialized)
struct DeliveryDiagnosticsTests {
    static let type = ServiceUnderTest.order.orderTypeIdentifier
    static let devicesPath = "/merchant/v1/orders/\(ServiceUnderTest.orderPath)/devices"

    /// The report's devices, as JSON objects.
    static func devices(_ client: any TestClientProtocol) async throws -> [[String: Any]] {
        let answer = try await client.execute(uri: devicesPath, method: .get, headers: ServiceUnderTest.merchant)
        try #require(answer.status == .ok, "\(answer.status) \(String(buffer: answer.body))")
        return answer.json["devices"] as? [[String: Any]] ?? []
    }

    /// Waits (up to 20 s) until the one device's verdict is `verdict`; returns the device.
    static func verdict(_ verdict: String, _ client: any TestClientProtocol) async throws -> [String: Any] {
        var last: [[String: Any]] = []
        let reached = try await PushDeliveryTests.eventually {
            last = try await devices(client)
            return last.count == 1 && last[0]["verdict"] as? String == verdict
        }
        try #require(reached, "expected \(verdict), the report says \(last)")
        return last[0]
    }

    static func service(_ store: any OrderServiceStore, _ apns: APNsClient) throws -> OrderServer {
        try ServiceUnderTest.server(store: store, pushSender: apns, push: PushDeliveryTests.fast)
    }

    @Test(
        "Registered, pushed, never asked: 'pushed-never-asked'; it asks: 'asked-never-fetched'; it fetches: 'up-to-date'; device and token only as hashes",
        arguments: ServiceStore.available)
    func pushedThenUpToDate(_ kind: ServiceStore) async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        let token = APNsTest.deviceToken()
        try await APNsTest.shuttingDown(apns) {
            try await kind.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                try await Self.service(store, apns).application().test(.live) { client in
                    try await PushDeliveryTests.register([("phone-of-jordan", token)], client)
                    var device = try await Self.verdict("never-pushed", client)
                    #expect(
                        device["device"] as? String == DeliveryEvent.hash("phone-of-jordan", orderType: SampleVersions.identifier.orderTypeIdentifier)
                    )
                    #expect(device["pushTokenPrefix"] as? String == String(token.prefix(8)))

                    try await PushDeliveryTests.upload("2025-11-22T00:00:00Z", client)
                    device = try await Self.verdict("pushed-never-asked", client)
                    let apnsID = try #require(standIn.pushes.last?.headers["apns-id"] ?? (device["explanation"] as? String))
                    #expect((device["explanation"] as? String)?.contains("reached APNs") == true)
                    let trail = try #require(device["trail"] as? [[String: Any]])
                    let push = try #require(trail.last { $0["kind"] as? String == "pushed" })
                    #expect((push["detail"] as? [String: Any])?["status"] as? Int == 200)
                    #expect(((push["detail"] as? [String: Any])?["apnsID"] as? String)?.isEmpty == false, "\(apnsID)")

                    // The device asks what changed: the order is listed, not fetched yet.
                    let changed = try await client.execute(uri: "/v1/devices/phone-of-jordan/registrations/\(Self.type)", method: .get)
                    #expect(changed.json["orderIdentifiers"] as? [String] == [ServiceUnderTest.order.orderIdentifier])
                    _ = try await Self.verdict("asked-never-fetched", client)

                    let fetched = try await client.execute(
                        uri: "/v1/orders/\(ServiceUnderTest.orderPath)", method: .get, headers: ServiceUnderTest.appleOrder())
                    #expect(fetched.status == .ok)
                    device = try await Self.verdict("up-to-date", client)
                    #expect(device["registered"] as? Bool == true)

                    // Nothing of the device identifier or the token is in the report but hashes and the token's start.
                    let raw = String(
                        buffer: try await client.execute(uri: Self.devicesPath, method: .get, headers: ServiceUnderTest.merchant).body)
                    #expect(!raw.contains("phone-of-jordan") && !raw.contains(token))
                }
            }
        }
        try await standIn.shutdown()
    }

    @Test("APNs answering BadDeviceToken: 'push-refused' with the reason, and the registration removed", arguments: ServiceStore.available)
    func badDeviceToken(_ kind: ServiceStore) async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        let token = APNsTest.deviceToken()
        standIn.respond(toDeviceToken: token, with: .error(status: 400, reason: "BadDeviceToken"))
        try await APNsTest.shuttingDown(apns) {
            try await kind.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                try await Self.service(store, apns).application().test(.live) { client in
                    try await PushDeliveryTests.register([("tablet", token)], client)
                    try await PushDeliveryTests.upload("2025-11-22T00:00:00Z", client)
                    let device = try await Self.verdict("push-refused", client)
                    let explanation = try #require(device["explanation"] as? String)
                    #expect(explanation.contains("400") && explanation.contains("BadDeviceToken"), "\(explanation)")
                    #expect(try await PushDeliveryTests.eventually { try await store.registrationCount(for: ServiceUnderTest.order) == 0 })
                    let after = try await Self.verdict("push-refused", client)
                    #expect(after["registered"] as? Bool == false, "the trail outlives the registration APNs ended")
                }
            }
        }
        try await standIn.shutdown()
    }

    @Test(
        "APNs answering 403 InvalidProviderToken: 'push-refused' naming the credential and the topic, and what would fix it",
        arguments: ServiceStore.available)
    func credentialsRefused(_ kind: ServiceStore) async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        let token = APNsTest.deviceToken()
        standIn.respond(toDeviceToken: token, with: .error(status: 403, reason: "InvalidProviderToken"))
        try await APNsTest.shuttingDown(apns) {
            try await kind.withStore { store in
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
                try await Self.service(store, apns).application().test(.live) { client in
                    try await PushDeliveryTests.register([("laptop", token)], client)
                    try await PushDeliveryTests.upload("2025-11-22T00:00:00Z", client)
                    let device = try await Self.verdict("push-refused", client)
                    let explanation = try #require(device["explanation"] as? String)
                    #expect(explanation.contains("403") && explanation.contains("InvalidProviderToken"), "\(explanation)")
                    #expect(explanation.contains("key \(APNsTestPKI.keyID), team \(APNsTestPKI.teamID)"), "\(explanation)")
                    #expect(explanation.contains("topic \(Self.type)"), "\(explanation)")
                    #expect(explanation.contains("apns.keyID"), "what would fix it: \(explanation)")
                    #expect(device["registered"] as? Bool == true, "a credentials refusal keeps the registration")
                    // A merchant's own key sees its own credentials only: the provider token is the operator's.
                    let merchant = try await client.execute(uri: Self.devicesPath, method: .get, headers: ServiceUnderTest.merchantOfTheType)
                    let seen = try #require((merchant.json["devices"] as? [[String: Any]])?.first, "\(String(buffer: merchant.body))")
                    let merchantText = try #require(seen["explanation"] as? String)
                    #expect(merchantText.contains("the service's provider token"), "\(merchantText)")
                    #expect(!String(buffer: merchant.body).contains(APNsTestPKI.keyID), "\(String(buffer: merchant.body))")
                    #expect(!String(buffer: merchant.body).contains(APNsTestPKI.teamID), "\(String(buffer: merchant.body))")
                    #expect(seen["device"] as? String == device["device"] as? String)
                }
            }
        }
        try await standIn.shutdown()
    }

    @Test("Fetches with a wrong token never reach the order's trail: only a request with its token speaks for it")
    func wrongTokensLeaveNoTrail() async throws {
        // Seen: 60 wrong-token fetches rewrote an order's trail without its token.
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        try await service.run { client in
            for index in 0..<60 {
                let refused = try await client.execute(
                    uri: "/v1/orders/\(ServiceUnderTest.orderPath)", method: .get,
                    headers: ServiceUnderTest.appleOrder("wrong-token-\(index)-0123456789"))
                #expect(refused.status == .unauthorized)
            }
            let fetched = try await client.execute(
                uri: "/v1/orders/\(ServiceUnderTest.orderPath)", method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(fetched.status == .ok)
            let answer = try await client.execute(uri: Self.devicesPath, method: .get, headers: ServiceUnderTest.merchant)
            let fetches = try #require(answer.json["fetches"] as? [[String: Any]], "\(String(buffer: answer.body))")
            #expect(fetches.count == 1, "\(fetches)")
            #expect(fetches.allSatisfy { ($0["detail"] as? [String: Any])?["status"] as? Int == 200 }, "\(fetches)")
        }
    }

    @Test("Changed-orders requests for made-up devices leave no trail; a registered device's request is kept")
    func madeUpDevicesLeaveNoTrail() async throws {
        // Seen: 560,000 changed-orders requests for made-up devices grew the store by 1.77 GB and
        // wiped another merchant's trail.
        let service = try ServiceUnderTest()
        let order = ServiceUnderTest.order
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        try await service.run { client in
            let madeUp = (0..<30).map { "made-up-device-\($0)" }
            for device in madeUp {
                let answer = try await client.execute(uri: "/v1/devices/\(device)/registrations/\(order.orderTypeIdentifier)", method: .get)
                #expect(answer.status == .noContent)
            }
            try await PushDeliveryTests.register([("phone", APNsTest.deviceToken())], client)
            let listed = try await client.execute(uri: "/v1/devices/phone/registrations/\(order.orderTypeIdentifier)", method: .get)
            #expect(listed.status == .ok)
            // The trail is written in order: once the registered device's request is in the
            // report, the made-up ones would be in the store too.
            let reached = try await PushDeliveryTests.eventually {
                let devices = try await Self.devices(client)
                let trail = devices.first?["trail"] as? [[String: Any]] ?? []
                return trail.contains { $0["kind"] as? String == "listed" }
            }
            #expect(reached, "the registered device's request never reached its report")
            let hashes = madeUp.map { DeliveryEvent.hash($0, orderType: order.orderTypeIdentifier) }
            let kept = try await service.store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: hashes, tokenHashes: []))
            #expect(kept.filter { $0.kind == .listed }.isEmpty, "\(kept)")
        }
    }

    @Test(
        "The devices report needs a merchant key (401 without); an order neither stored nor registered is 404; a stored order with no device has none"
    )
    func scoped() async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        try await service.run { client in
            let unknown = try await client.execute(
                uri: "/merchant/v1/orders/\(Self.type)/no-such-order/devices", method: .get, headers: ServiceUnderTest.merchant)
            #expect(unknown.status == .notFound)
            let none = try await client.execute(uri: Self.devicesPath, method: .get)
            #expect(none.status == .unauthorized)
            let answer = try await client.execute(uri: Self.devicesPath, method: .get, headers: ServiceUnderTest.merchant)
            #expect(answer.status == .ok)
            #expect((answer.json["devices"] as? [Any])?.isEmpty == true)
            #expect((answer.json["current"] as? [String: Any])?["updatedAt"] as? String == "2025-11-21T00:00:00Z")
        }
    }

    @Test("Each report's verdicts are counted in wallet_orders_delivery_verdicts_total{verdict}")
    func verdictMetric() async throws {
        try await ServiceStore.sqlite.withStore { store in
            let metrics = ServiceMetrics.bootstrapped
            var configuration = try OrderServer.Configuration(
                port: 0, apiKeys: [MerchantAPIKey(ServiceUnderTest.apiKey, scope: .allOrderTypes)], validator: TestPKI.validator)
            configuration.logRate = (0.01, 3)
            configuration.connections = .liveTestClient
            let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: Logger(label: "test"), metrics: metrics)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            try await server.application().test(.live) { client in
                try await PushDeliveryTests.register([("phone", APNsTest.deviceToken())], client)
                func count() async throws -> Double {
                    let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                    let line = text.split(separator: "\n").first { $0.hasPrefix(#"wallet_orders_delivery_verdicts_total{verdict="never-pushed"}"#) }
                    return line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } } ?? 0
                }
                let before = try await count()
                _ = try await Self.verdict("never-pushed", client)
                #expect(try await count() == before + 1)
            }
        }
    }

    @Test("The trail's writer writes what waits every interval of its clock, not before", .timeLimit(.minutes(2)))
    func recorderWritesOnItsClock() async throws {
        try await ServiceStore.sqlite.withStore { store in
            let clock = ManualServiceClock()
            let recorder = DeliveryTrailRecorder(store: store, interval: .seconds(2), logger: Logger(label: "test"), clock: clock)
            let order = ServiceUnderTest.order
            func fetched(_ second: Double) -> DeliveryEvent {
                DeliveryEvent(
                    .fetched, at: Date(timeIntervalSince1970: 1_764_000_000 + second), orderTypeIdentifier: order.orderTypeIdentifier,
                    orderIdentifier: order.orderIdentifier, detail: .init(status: second.truncatingRemainder(dividingBy: 2) == 0 ? 200 : 304))
            }
            func written() async throws -> Int {
                try await store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: [], tokenHashes: [])).count
            }
            try await withThrowingTaskGroup(of: Void.self) { (group: inout ThrowingTaskGroup<Void, any Error>) async throws -> Void in
                group.addTask { try await recorder.run() }
                await clock.waitUntilIdle(after: 0, sleepers: 1)
                recorder.record(fetched(0))
                clock.advance(by: .seconds(1))  // wakes nothing: the writer sleeps two seconds
                #expect(try await written() == 0, "nothing is written before the interval")
                var sleeps = clock.sleeps
                clock.advance(by: .seconds(1))
                await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                #expect(try await written() == 1, "written once the interval passed")
                recorder.record(fetched(1))
                sleeps = clock.sleeps
                clock.advance(by: .seconds(2))
                await clock.waitUntilIdle(after: sleeps, sleepers: 1)
                #expect(try await written() == 2)
                group.cancelAll()
            }
        }
    }

    @Test("A flood of requests is not a flood of writes: a trail's events wait only as many as it keeps, and at most the capacity in all")
    func boundedRecorder() async throws {
        try await ServiceStore.sqlite.withStore { store in
            let recorder = DeliveryTrailRecorder(store: store, capacity: 100, logger: Logger(label: "test"))
            let order = ServiceUnderTest.order
            // 5,000 fetches of one order, each unlike the one before (a wrong token, then a 304, …).
            for index in 0..<5_000 {
                recorder.record(
                    DeliveryEvent(
                        .fetched, at: Date(timeIntervalSince1970: 1_764_000_000 + Double(index)), orderTypeIdentifier: order.orderTypeIdentifier,
                        orderIdentifier: order.orderIdentifier, detail: .init(status: index % 2 == 0 ? 401 : 304)))
            }
            // 1,000 changed-orders requests from as many made-up devices.
            for index in 0..<1_000 {
                recorder.record(
                    DeliveryEvent(
                        .listed, at: Date(timeIntervalSince1970: 1_764_000_000), orderTypeIdentifier: order.orderTypeIdentifier,
                        deviceHash: DeliveryEvent.hash("made-up-\(index)", orderType: order.orderTypeIdentifier), detail: .init(status: 204)))
            }
            await recorder.flush()
            let fetches = try await store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: [], tokenHashes: []))
            #expect(fetches.count == DeliveryTrailLimits.perTrail)
            #expect(fetches.last?.at == Date(timeIntervalSince1970: 1_764_000_000 + 4_999), "the newest are kept")
            let devices = (0..<1_000).map { DeliveryEvent.hash("made-up-\($0)", orderType: order.orderTypeIdentifier) }
            let listed = try await store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: devices, tokenHashes: []))
                .filter { $0.kind == .listed }
            #expect(listed.count == 100 - DeliveryTrailLimits.perTrail, "the capacity bounds one write")

            // A run of like events (a device fetching the same version again) is kept as its newest.
            let other = FullyQualifiedOrderIdentifier(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: "polled")
            for index in 0..<50 {
                recorder.record(
                    DeliveryEvent(
                        .fetched, at: Date(timeIntervalSince1970: 1_764_100_000 + Double(index)), orderTypeIdentifier: other.orderTypeIdentifier,
                        orderIdentifier: other.orderIdentifier, detail: .init(status: 304, ifNoneMatch: true, sha256: "c0ffee")))
            }
            await recorder.flush()
            let polled = try await store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: other, deviceHashes: [], tokenHashes: []))
            #expect(polled.map(\.at) == [Date(timeIntervalSince1970: 1_764_100_049)])
        }
    }
}
