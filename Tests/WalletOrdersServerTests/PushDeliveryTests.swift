import APNsStandIn
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The whole push path: a merchant's save, the outbox, the worker, the APNs client and the local
/// APNs stand-in (real HTTP/2 over TLS with token authentication).
@Suite("Pushes on every change, through the outbox to a local APNs stand-in", .serialized)
struct PushDeliveryTests {
    static let fast = PushWorkerConfiguration(
        lease: .seconds(5), pollInterval: .milliseconds(100), initialBackoff: .milliseconds(200), maximumBackoff: .seconds(2))

    /// Registers `devices` for the sample order over Apple's protocol.
    static func register(_ devices: [(String, String)], _ client: any TestClientProtocol) async throws {
        for (device, token) in devices {
            let answer = try await client.execute(
                uri: "/v1/devices/\(device)/registrations/\(ServiceUnderTest.orderPath)", method: .post,
                headers: ServiceUnderTest.appleOrder(), body: ByteBuffer(string: #"{"pushToken": "\#(token)"}"#))
            #expect(answer.status == .created)
        }
    }

    static func upload(_ updatedAt: String, _ client: any TestClientProtocol) async throws {
        let answer = try await client.execute(
            uri: "/merchant/v1/orders", method: .post, headers: ServiceUnderTest.merchant,
            body: ByteBuffer(bytes: try SampleVersions.archive(updatedAt: updatedAt)))
        #expect(answer.json["result"] as? String == "added")
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test("A new version is pushed once to every registered device: topic = order type, background, priority 5, payload {}")
    func delivered() async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let service = try ServiceUnderTest(pushSender: apns, push: Self.fast)
            _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            let devices = [("phone", APNsTest.deviceToken()), ("watch", APNsTest.deviceToken())]
            try await service.run { client in
                try await Self.register(devices, client)
                #expect(standIn.pushes.isEmpty, "registering pushes nothing")
                try await Self.upload("2025-11-22T00:00:00Z", client)
                #expect(try await Self.eventually { standIn.pushes.count == 2 })
                // The device then asks what changed and fetches it.
                let changed = try await client.execute(
                    uri: "/v1/devices/phone/registrations/\(ServiceUnderTest.order.orderTypeIdentifier)", method: .get)
                #expect(changed.json["orderIdentifiers"] as? [String] == [ServiceUnderTest.order.orderIdentifier])
            }
            try await standIn.shutdown()
            let pushes = standIn.pushes
            #expect(Set(pushes.map(\.deviceToken)) == Set(devices.map { $0.1 }))
            for push in pushes {
                #expect(push.topic == ServiceUnderTest.order.orderTypeIdentifier)
                #expect(push.headers["apns-push-type"] == "background")
                #expect(push.headers["apns-priority"] == "5")
                #expect(push.body == "{}")
            }
            #expect(try await service.store.outboxStatus(now: Date()).pending == 0)
        }
    }

    @Test(
        "The service group owns the APNs client: when the service stops, the worker stops and then the client's connections close (a later push fails without reaching APNs)"
    )
    func serviceGroupClosesTheClient() async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let service = try ServiceUnderTest(pushSender: apns, push: Self.fast)
            _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            let token = APNsTest.deviceToken()
            try await service.run { client in
                try await Self.register([("phone", token)], client)
                try await Self.upload("2025-11-22T00:00:00Z", client)
                #expect(try await Self.eventually { standIn.pushes.count == 1 })
            }
            // The group shut the client down after the worker: no connection is left to send on.
            let after = await apns.send(PushNotification(deviceToken: token, topic: ServiceUnderTest.order.orderTypeIdentifier))
            guard case .retryLater = after else {
                Issue.record("a push after shutdown: \(after)")
                return
            }
            #expect(standIn.pushes.count == 1)
        }
        try await standIn.shutdown()
    }

    @Test("APNs says a token is gone (410 Unregistered): that device's registrations are removed, the other device still gets its push")
    func goneDevice() async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            let service = try ServiceUnderTest(pushSender: apns, push: Self.fast)
            _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            let gone = APNsTest.deviceToken()
            let kept = APNsTest.deviceToken()
            standIn.respond(toDeviceToken: gone, with: .error(status: 410, reason: "Unregistered", retryAfter: nil))
            try await service.run { client in
                try await Self.register([("old-phone", gone), ("phone", kept)], client)
                try await Self.upload("2025-11-22T00:00:00Z", client)
                #expect(try await Self.eventually { try await service.store.registrationCount(for: ServiceUnderTest.order) == 1 })
                #expect(try await Self.eventually { standIn.pushes.map(\.deviceToken) == [kept] })
            }
            try await standIn.shutdown()
            #expect(try await service.store.outboxStatus(now: Date()).pending == 0)
        }
    }

    @Test(
        "429 with Retry-After and an APNs outage: the push waits, is retried and delivered; nothing is lost",
        .timeLimit(.minutes(5)))
    func retries() async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let port = standIn.port
        let apns = try await APNsTest.client(port: port, credentials: (try await APNsTest.tokenCredentials))
        try await APNsTest.shuttingDown(apns) {
            // The production schedule, on a clock the test moves. Two things sleep on it: the push
            // worker and the delivery trail's writer.
            let clock = ManualServiceClock()
            let service = try ServiceUnderTest(pushSender: apns, push: PushWorkerConfiguration(), clock: clock)
            _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            let token = APNsTest.deviceToken()
            standIn.respondToNext(1, with: .error(status: 429, reason: "TooManyRequests", retryAfter: "1"))
            try await service.run { client in
                var sleeps = 0
                /// Runs `action`, then waits until the worker and the writer have done what it caused and sleep.
                func settled(_ action: () async throws -> Void) async rethrows {
                    sleeps = clock.sleeps
                    try await action()
                    await clock.waitUntilIdle(after: sleeps, sleepers: 2)
                }
                await clock.waitUntilIdle(after: 0, sleepers: 2)
                try await Self.register([("phone", token)], client)
                try await settled { try await Self.upload("2025-11-22T00:00:00Z", client) }
                #expect(standIn.requests.map(\.status) == [429])
                // Retry-After: 1 is honoured: nothing at half a second, the retry by a second.
                await settled { clock.advance(by: .milliseconds(500)) }
                #expect(standIn.requests.count == 1, "not retried before Retry-After")
                await settled { clock.advance(by: .milliseconds(600)) }
                #expect(standIn.pushes.count == 1, "retried once Retry-After passed")

                // APNs goes away; a change made meanwhile is delivered when it is back.
                try await standIn.shutdown()
                try await settled { try await Self.upload("2025-11-23T00:00:00Z", client) }
                #expect(try await service.store.outboxStatus(now: clock.now).pending == 1, "kept in the outbox during the outage")
                var configuration = APNsStandIn.Configuration(
                    serverCertificateChainPEM: (try await APNsTest.pki).serverCertificatePEM,
                    serverPrivateKeyPEM: (try await APNsTest.pki).serverKeyPEM)
                configuration.port = port
                configuration.providerToken = .init(
                    keyID: APNsTestPKI.keyID, teamID: APNsTestPKI.teamID, publicKeyPEM: (try await APNsTest.pki).tokenPublicKeyPEM)
                let back = try APNsStandIn(configuration: configuration)
                try await back.start()
                for _ in 0..<10 where back.pushes.isEmpty {
                    await settled { clock.advance(by: PushWorkerConfiguration().maximumBackoff) }
                }
                #expect(back.pushes.count == 1)
                try await back.shutdown()
            }
            #expect(try await service.store.outboxStatus(now: Date()).pending == 0)
        }
    }
}
