import APNsStandIn
import Foundation
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

/// The real APNs client against the real stand-in (HTTP/2 over TLS on 127.0.0.1), no mocks.
@Suite("APNs client")
struct APNsClientTests {
    let topic = APNsTestPKI.topic

    /// Runs `body` with a started stand-in and a client for it, and shuts both down.
    func withPush(
        certificates: Bool = true, tokens: Bool = false, credentials: APNsConfiguration.Credentials? = nil,
        trustServer: Bool = true, configure: (inout APNsConfiguration) -> Void = { _ in },
        _ body: (APNsStandIn, APNsClient) async throws -> Void
    ) async throws {
        let standIn = try await APNsTest.startStandIn(certificates: certificates, tokens: tokens)
        let client: APNsClient
        do {
            let chosen: APNsConfiguration.Credentials
            if let credentials { chosen = credentials } else { chosen = .certificate(try await APNsTest.clientCertificate()) }
            client = try await APNsTest.client(
                port: standIn.port, credentials: chosen,
                trustServer: trustServer, configure: configure)
        } catch {
            try await standIn.shutdown()
            throw error
        }
        var failure: (any Error)?
        do { try await body(standIn, client) } catch { failure = error }
        try await client.shutdown()
        try await standIn.shutdown()
        if let failure { throw failure }
    }

    // MARK: - Certificate authentication

    @Test("certificate auth delivers, with exactly Wallet's headers, topic and payload")
    func certificateDelivers() async throws {
        try await withPush { standIn, client in
            let token = APNsTest.deviceToken()
            let outcome = await client.send(PushNotification(deviceToken: token, topic: topic))
            #expect(outcome == .delivered)
            let pushes = standIn.pushes
            try #require(pushes.count == 1)
            let push = pushes[0]
            #expect(push.method == "POST")
            #expect(push.path == "/3/device/\(token)")
            #expect(push.deviceToken == token)
            #expect(push.topic == topic)
            #expect(push.headers["apns-topic"] == topic)
            #expect(push.headers["apns-push-type"] == "background")
            #expect(push.headers["apns-priority"] == "5")
            #expect(push.headers["content-type"] == "application/json")
            #expect(push.headers["authorization"] == nil)
            #expect(push.body == "{}")
            #expect(push.clientCertificateUID == topic)
            #expect(push.providerToken == nil)
            #expect(abs(push.receivedAt.timeIntervalSinceNow) < 30)
        }
    }

    @Test(
        "the certificate loads from PEM, encrypted PEM and PKCS #12 and delivers",
        arguments: ["pem", "encrypted-pem", "pkcs12"])
    func certificateFormats(format: String) async throws {
        let pki = try await APNsTest.pki
        let certificate: APNsClientCertificate =
            switch format {
            case "pem":
                try APNsClientCertificate(
                    certificateChainPEM: Array(pki.clientCertificatePEM.utf8), privateKeyPEM: Array(pki.clientKeyPEM.utf8))
            case "encrypted-pem":
                try APNsClientCertificate(
                    certificateChainPEM: Array(pki.clientCertificatePEM.utf8),
                    privateKeyPEM: Array(pki.clientEncryptedKeyPEM.utf8), passphrase: APNsTestPKI.passphrase)
            default:
                try APNsClientCertificate(pkcs12: pki.clientPKCS12, passphrase: APNsTestPKI.passphrase)
            }
        #expect(certificate.subjectUID == topic)
        try await withPush(credentials: .certificate(certificate)) { standIn, client in
            #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
            #expect(standIn.pushes.map(\.clientCertificateUID) == [topic])
        }
    }

    @Test("a wrong passphrase is a configuration error, not a prompt")
    func wrongPassphrase() async throws {
        let pki = try await APNsTest.pki
        #expect(throws: APNsConfigurationError.self) {
            try APNsClientCertificate(pkcs12: pki.clientPKCS12, passphrase: "wrong")
        }
        #expect(throws: APNsConfigurationError.self) {
            try APNsClientCertificate(
                certificateChainPEM: Array(pki.clientCertificatePEM.utf8),
                privateKeyPEM: Array(pki.clientEncryptedKeyPEM.utf8), passphrase: "wrong")
        }
        #expect(throws: APNsConfigurationError.self) {
            try APNsClientCertificate(
                certificateChainPEM: Array(pki.clientCertificatePEM.utf8),
                privateKeyPEM: Array(pki.clientEncryptedKeyPEM.utf8))
        }
    }

    @Test("a client without a certificate (and a token the service doesn't accept) is refused: 403 InvalidProviderToken")
    func noCertificateRefused() async throws {
        // Token credentials present no certificate; this stand-in accepts certificates only.
        try await withPush(credentials: (try await APNsTest.tokenCredentials)) { standIn, client in
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            #expect(outcome == .credentialsRefused(reason: "InvalidProviderToken"))
            #expect(standIn.requests.map(\.status) == [403])
            #expect(standIn.requests.first?.clientCertificateUID == nil)
            #expect(standIn.pushes.isEmpty)
        }
    }

    @Test("a certificate from an untrusted CA is refused in the TLS handshake: credentialsRefused, BadCertificate")
    func untrustedCertificateRefused() async throws {
        let pki = try await APNsTest.pki
        let untrusted = try APNsClientCertificate(
            certificateChainPEM: Array(pki.untrustedCertificatePEM.utf8), privateKeyPEM: Array(pki.untrustedKeyPEM.utf8))
        #expect(untrusted.subjectUID == topic)
        try await withPush(credentials: .certificate(untrusted)) { standIn, client in
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            guard case .credentialsRefused(let reason) = outcome else {
                Issue.record("expected credentialsRefused, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix("BadCertificate"), "\(reason)")
            #expect(standIn.requests.isEmpty)
        }
    }

    @Test("a certificate whose UID isn't the topic: 400 TopicDisallowed, credentialsRefused")
    func certificateForAnotherTopic() async throws {
        let pki = try await APNsTest.pki
        let other = try APNsClientCertificate(
            certificateChainPEM: Array(pki.otherTopicCertificatePEM.utf8), privateKeyPEM: Array(pki.otherTopicKeyPEM.utf8))
        try await withPush(credentials: .certificate(other)) { standIn, client in
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            #expect(outcome == .credentialsRefused(reason: "TopicDisallowed"))
            #expect(standIn.requests.map(\.status) == [400])
            #expect(standIn.requests.first?.clientCertificateUID == APNsTestPKI.otherTopic)
            #expect(standIn.pushes.isEmpty)
        }
    }

    @Test("a service certificate the client doesn't trust: credentialsRefused, nothing sent")
    func untrustedServer() async throws {
        try await withPush(trustServer: false) { standIn, client in
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            guard case .credentialsRefused(let reason) = outcome else {
                Issue.record("expected credentialsRefused, got \(outcome)")
                return
            }
            #expect(reason.contains("not trusted"), "\(reason)")
            #expect(standIn.requests.isEmpty)
        }
    }

    // MARK: - Token authentication

    @Test("token auth delivers; one JWT (ES256, kid, iss, iat) is reused across pushes")
    func tokenDelivers() async throws {
        try await withPush(certificates: false, tokens: true, credentials: (try await APNsTest.tokenCredentials)) { standIn, client in
            let started = Date().timeIntervalSince1970
            for _ in 0..<3 {
                #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
            }
            let finished = Date().timeIntervalSince1970
            let pushes = standIn.pushes
            try #require(pushes.count == 3)
            let jwts = Set(pushes.compactMap(\.providerToken))
            #expect(jwts.count == 1)
            let jwt = try #require(jwts.first)
            #expect(pushes[0].headers["authorization"] == "bearer \(jwt)")
            let header = APNsTest.jwtPart(jwt, 0)
            let claims = APNsTest.jwtPart(jwt, 1)
            #expect(header["alg"] as? String == "ES256")
            #expect(header["kid"] as? String == APNsTestPKI.keyID)
            #expect(claims["iss"] as? String == APNsTestPKI.teamID)
            let iat = try #require(claims["iat"] as? Int)
            // Signed while the pushes were sent (whole seconds), however long a loaded machine took.
            #expect(Double(iat) >= started.rounded(.down) && Double(iat) <= finished.rounded(.up), "iat \(iat), sent \(started)…\(finished)")
            #expect(pushes.allSatisfy { $0.clientCertificateUID == nil && $0.topic == topic })
        }
    }

    @Test("after 403 ExpiredProviderToken a new JWT is signed and the push sent again, once")
    func tokenRegeneratedAfterExpired() async throws {
        try await withPush(certificates: false, tokens: true, credentials: (try await APNsTest.tokenCredentials)) { standIn, client in
            let token = APNsTest.deviceToken()
            #expect(await client.send(PushNotification(deviceToken: token, topic: topic)) == .delivered)
            let first = try #require(standIn.pushes.first?.providerToken)

            standIn.respondToNext(1, with: .error(status: 403, reason: "ExpiredProviderToken"))
            #expect(await client.send(PushNotification(deviceToken: token, topic: topic)) == .delivered)
            let requests = standIn.requests
            try #require(requests.count == 3)
            #expect(requests[1].status == 403)
            #expect(requests[1].reason == "ExpiredProviderToken")
            #expect(requests[1].providerToken == first)
            #expect(requests[2].status == 200)
            let second = try #require(requests[2].providerToken)
            #expect(second != first)

            // The new token is the one reused from now on.
            #expect(await client.send(PushNotification(deviceToken: token, topic: topic)) == .delivered)
            #expect(standIn.requests.last?.providerToken == second)
        }
    }

    @Test("ExpiredProviderToken twice in a row: retried once only, then credentialsRefused")
    func tokenExpiredTwice() async throws {
        try await withPush(certificates: false, tokens: true, credentials: (try await APNsTest.tokenCredentials)) { standIn, client in
            standIn.respondToNext(2, with: .error(status: 403, reason: "ExpiredProviderToken"))
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            #expect(outcome == .credentialsRefused(reason: "ExpiredProviderToken"))
            #expect(standIn.requests.map(\.status) == [403, 403])
            #expect(Set(standIn.requests.compactMap(\.providerToken)).count == 2)
        }
    }

    @Test("a token older than its lifetime is replaced before the next push")
    func tokenLifetime() async throws {
        let shortLifetime: (inout APNsConfiguration) -> Void = { $0.providerTokenLifetime = .milliseconds(300) }
        try await withPush(certificates: false, tokens: true, credentials: (try await APNsTest.tokenCredentials), configure: shortLifetime) {
            standIn, client in
            #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
            try await Task.sleep(for: .milliseconds(400))
            #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
            #expect(Set(standIn.pushes.compactMap(\.providerToken)).count == 2)
        }
    }

    @Test("a token signed with another key: 403 InvalidProviderToken, credentialsRefused")
    func tokenWrongKey() async throws {
        let pki = try await APNsTest.pki
        let credentials = APNsConfiguration.Credentials.token(
            keyID: APNsTestPKI.keyID, teamID: APNsTestPKI.teamID, privateKeyPEM: pki.otherTokenPrivateKeyPEM)
        try await withPush(certificates: false, tokens: true, credentials: credentials) { standIn, client in
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            #expect(outcome == .credentialsRefused(reason: "InvalidProviderToken"))
            #expect(standIn.requests.map(\.status) == [403])
        }
    }

    @Test("a provider token key that isn't a P-256 PEM is a configuration error")
    func tokenBadKey() async throws {
        let pki = try await APNsTest.pki
        await #expect(throws: APNsConfigurationError.self) {
            try await APNsTest.client(
                port: 1, credentials: .token(keyID: "K", teamID: "T", privateKeyPEM: pki.clientKeyPEM))
        }
    }

    // MARK: - Outcomes

    /// Every APNs error, as the stand-in sends it, and the outcome the documented table gives.
    static let errorCases: [(status: Int, reason: String, expected: PushOutcome)] = [
        (400, "BadCollapseId", .rejected(reason: "BadCollapseId")),
        (400, "BadDeviceToken", .deviceGone(reason: "BadDeviceToken")),
        (400, "BadExpirationDate", .rejected(reason: "BadExpirationDate")),
        (400, "BadMessageId", .rejected(reason: "BadMessageId")),
        (400, "BadPriority", .rejected(reason: "BadPriority")),
        (400, "BadTopic", .rejected(reason: "BadTopic")),
        (400, "DeviceTokenNotForTopic", .deviceGone(reason: "DeviceTokenNotForTopic")),
        (400, "DuplicateHeaders", .rejected(reason: "DuplicateHeaders")),
        (400, "IdleTimeout", .retryLater(after: nil, reason: "IdleTimeout")),
        (400, "InvalidPushType", .rejected(reason: "InvalidPushType")),
        (400, "MissingDeviceToken", .rejected(reason: "MissingDeviceToken")),
        (400, "MissingTopic", .rejected(reason: "MissingTopic")),
        (400, "PayloadEmpty", .rejected(reason: "PayloadEmpty")),
        (400, "TopicDisallowed", .credentialsRefused(reason: "TopicDisallowed")),
        (403, "BadCertificate", .credentialsRefused(reason: "BadCertificate")),
        (403, "BadCertificateEnvironment", .credentialsRefused(reason: "BadCertificateEnvironment")),
        (403, "ExpiredProviderToken", .credentialsRefused(reason: "ExpiredProviderToken")),  // certificate auth: no token to renew
        (403, "Forbidden", .credentialsRefused(reason: "Forbidden")),
        (403, "InvalidProviderToken", .credentialsRefused(reason: "InvalidProviderToken")),
        (403, "MissingProviderToken", .credentialsRefused(reason: "MissingProviderToken")),
        (404, "BadPath", .rejected(reason: "BadPath")),
        (405, "MethodNotAllowed", .rejected(reason: "MethodNotAllowed")),
        (410, "ExpiredToken", .deviceGone(reason: "ExpiredToken")),
        (410, "Unregistered", .deviceGone(reason: "Unregistered")),
        (413, "PayloadTooLarge", .rejected(reason: "PayloadTooLarge")),
        (429, "TooManyProviderTokenUpdates", .retryLater(after: nil, reason: "TooManyProviderTokenUpdates")),
        (429, "TooManyRequests", .retryLater(after: nil, reason: "TooManyRequests")),
        (500, "InternalServerError", .retryLater(after: nil, reason: "InternalServerError")),
        (503, "ServiceUnavailable", .retryLater(after: nil, reason: "ServiceUnavailable")),
        (503, "Shutdown", .retryLater(after: nil, reason: "Shutdown")),
        (502, "", .retryLater(after: nil, reason: "HTTP 502")),
        (418, "Teapot", .rejected(reason: "Teapot")),
    ]

    @Test("each APNs error maps to its documented outcome", arguments: errorCases.indices)
    func errorOutcome(index: Int) async throws {
        let (status, reason, expected) = Self.errorCases[index]
        try await withPush { standIn, client in
            let token = APNsTest.deviceToken()
            standIn.respond(toDeviceToken: token, with: .error(status: status, reason: reason))
            let outcome = await client.send(PushNotification(deviceToken: token, topic: topic))
            #expect(outcome == expected, "\(status) \(reason)")
            #expect(standIn.requests.map(\.status) == [status])
            // The table itself says the same, without the network.
            #expect(APNsOutcomeTable.outcome(status: status, reason: reason.isEmpty ? nil : reason) == expected)
        }
    }

    @Test("429 with Retry-After: 2 is retryLater after 2 s")
    func retryAfterSeconds() async throws {
        try await withPush { standIn, client in
            standIn.respondToNext(1, with: .error(status: 429, reason: "TooManyRequests", retryAfter: "2"))
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            #expect(outcome == .retryLater(after: .seconds(2), reason: "TooManyRequests"))
        }
    }

    @Test("Retry-After as an HTTP date is measured from now; junk is ignored")
    func retryAfterDate() {
        let now = Date(timeIntervalSince1970: 1_445_412_470)  // Wed, 21 Oct 2015 07:27:50 GMT
        #expect(APNsOutcomeTable.retryAfterDelay("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(10))
        #expect(APNsOutcomeTable.retryAfterDelay("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .zero)
        #expect(APNsOutcomeTable.retryAfterDelay("120", now: now) == .seconds(120))
        #expect(APNsOutcomeTable.retryAfterDelay("soon", now: now) == nil)
        #expect(APNsOutcomeTable.retryAfterDelay(nil, now: now) == nil)
        #expect(
            APNsOutcomeTable.outcome(status: 503, reason: "ServiceUnavailable", retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", now: now)
                == .retryLater(after: .seconds(10), reason: "ServiceUnavailable"))
    }

    @Test("a connection closed under a push: sent again at once on a new connection, delivered")
    func connectionClosedOnce() async throws {
        try await withPush { standIn, client in
            standIn.respondToNext(1, with: .closeConnection)
            let token = APNsTest.deviceToken()
            #expect(await client.send(PushNotification(deviceToken: token, topic: topic)) == .delivered)
            #expect(standIn.requests.map(\.status) == [0, 200])
            #expect(standIn.requests.map(\.deviceToken) == [token, token])
        }
    }

    @Test("a stand-in that closes the connection again: retryLater; a later push reconnects and is delivered")
    func connectionClosedTwice() async throws {
        try await withPush { standIn, client in
            standIn.respondToNext(2, with: .closeConnection)
            let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
            guard case .retryLater(nil, let reason) = outcome else {
                Issue.record("expected retryLater, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix("connection failed"), "\(reason)")
            #expect(standIn.requests.map(\.status) == [0, 0])
            #expect(await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic)) == .delivered)
        }
    }

    @Test("no service listening: retryLater, promptly")
    func notRunning() async throws {
        let standIn = try await APNsTest.startStandIn()
        let port = standIn.port
        try await standIn.shutdown()
        let client = try await APNsTest.client(port: port, credentials: .certificate(try APNsTest.clientCertificate()))
        let started = ContinuousClock.now
        let outcome = await client.send(PushNotification(deviceToken: APNsTest.deviceToken(), topic: topic))
        let elapsed = started.duration(to: .now)
        try await client.shutdown()
        guard case .retryLater(nil, let reason) = outcome else {
            Issue.record("expected retryLater, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("connection failed"), "\(reason)")
        #expect(elapsed < .seconds(5 * TestTiming.scale))
    }

    @Test("a device token that isn't hex is never sent: deviceGone, BadDeviceToken")
    func badTokenNotSent() async throws {
        try await withPush { standIn, client in
            for token in ["", "abc/../../x", "zz" + APNsTest.deviceToken(), String(repeating: "a", count: 201)] {
                #expect(await client.send(PushNotification(deviceToken: token, topic: topic)) == .deviceGone(reason: "BadDeviceToken"))
            }
            #expect(standIn.requests.isEmpty)
        }
    }

    @Test("the tokens registration takes are exactly the tokens the client sends: 8 to 200 hex digits")
    func tokenBounds() {
        #expect(PushNotification.isPlausible(deviceToken: String(repeating: "ab", count: 100)))
        #expect(PushNotification.isPlausible(deviceToken: "0123abcd"))
        #expect(PushNotification.isPlausible(deviceToken: APNsTest.deviceToken()))
        #expect(!PushNotification.isPlausible(deviceToken: String(repeating: "ab", count: 100) + "c"))
        #expect(!PushNotification.isPlausible(deviceToken: "0123abc"))
        #expect(!PushNotification.isPlausible(deviceToken: "0123abcg"))
        #expect(!PushNotification.isPlausible(deviceToken: "١٢٣٤٥٦٧٨"), "Arabic-Indic digits are not hex")
    }

    @Test("logs name a device by its first 8 characters only")
    func redaction() {
        #expect(APNsClient.redacted("0123456789abcdef") == "01234567…")
        #expect(APNsClient.redacted("0123") == "0123")
    }

    // MARK: - Concurrency

    @Test("200 concurrent pushes over HTTP/2 all arrive")
    func concurrentPushes() async throws {
        try await withPush { standIn, client in
            let tokens = (0..<200).map { _ in APNsTest.deviceToken() }
            let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
                for token in tokens {
                    group.addTask { await client.send(PushNotification(deviceToken: token, topic: topic)) }
                }
                return await group.reduce(into: [PushOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.count == 200)
            #expect(outcomes.allSatisfy { $0 == .delivered })
            #expect(Set(standIn.pushes.map(\.deviceToken)) == Set(tokens))
        }
    }
}
