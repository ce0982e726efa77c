import APNsStandIn
import Foundation
import Logging
import WalletOrdersServer
import WalletOrdersTestSupport

/// Starting the stand-in and clients for it.
enum APNsTest {
    static var pki: APNsTestPKI { get async throws { try await APNsTestPKI.shared.get() } }

    /// A stand-in that accepts the client CA's certificates, and provider tokens when `tokens`.
    static func startStandIn(certificates: Bool = true, tokens: Bool = false) async throws -> APNsStandIn {
        var configuration = APNsStandIn.Configuration(
            serverCertificateChainPEM: (try await APNsTest.pki).serverCertificatePEM, serverPrivateKeyPEM: (try await APNsTest.pki).serverKeyPEM)
        if certificates { configuration.clientCertificateAuthorityPEM = (try await APNsTest.pki).clientCAPEM }
        if tokens {
            configuration.providerToken = .init(
                keyID: APNsTestPKI.keyID, teamID: APNsTestPKI.teamID, publicKeyPEM: (try await APNsTest.pki).tokenPublicKeyPEM)
        }
        let standIn = try APNsStandIn(configuration: configuration)
        try await standIn.start()
        return standIn
    }

    /// The Order Type ID certificate for ``APNsTestPKI/topic``.
    static func clientCertificate() async throws -> APNsClientCertificate {
        try APNsClientCertificate(
            certificateChainPEM: Array(try await APNsTest.pki.clientCertificatePEM.utf8),
            privateKeyPEM: Array(try await APNsTest.pki.clientKeyPEM.utf8))
    }

    /// Token credentials with the stand-in's key.
    static var tokenCredentials: APNsConfiguration.Credentials {
        get async throws {
            .token(keyID: APNsTestPKI.keyID, teamID: APNsTestPKI.teamID, privateKeyPEM: try await APNsTest.pki.tokenPrivateKeyPEM)
        }
    }

    /// A client for the stand-in on `port`, trusting its CA unless `trustServer` is false.
    /// Runs `body`, then shuts `client` down however `body` ends: a client that goes away running
    /// stops the test process (AsyncHTTPClient's check), which would hide the test's own failure.
    static func shuttingDown<T>(_ client: APNsClient, _ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    static func client(
        port: Int, credentials: APNsConfiguration.Credentials, trustServer: Bool = true, logger: Logger = Logger(label: "wallet-orders.apns"),
        configure: (inout APNsConfiguration) -> Void = { _ in }
    ) async throws -> APNsClient {
        var configuration = APNsConfiguration(
            endpoint: .custom(host: "127.0.0.1", port: port), credentials: credentials,
            additionalTrustRootsPEM: trustServer ? [try await APNsTest.pki.serverCAPEM] : [],
            // Generous: the tests run in parallel on small shared machines.
            connectTimeout: .seconds(30), requestTimeout: .seconds(60))
        configure(&configuration)
        return try APNsClient(configuration: configuration, logger: logger)
    }

    /// A random 64-hex-digit device token.
    static func deviceToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// The JSON object in a JWT part.
    static func jwtPart(_ jwt: String, _ index: Int) -> [String: Any] {
        let part = jwt.split(separator: ".", omittingEmptySubsequences: false)[index]
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }
}

extension PushOutcome {
    /// `retryLater`'s delay, or `nil` for other outcomes.
    var isRetryLater: Bool {
        if case .retryLater = self { return true }
        return false
    }

    /// The reason of any outcome but `delivered`.
    var reason: String? {
        switch self {
        case .delivered: nil
        case .retryLater(_, let reason), .deviceGone(let reason), .credentialsRefused(let reason), .rejected(let reason): reason
        }
    }
}
