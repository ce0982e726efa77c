public import Configuration
public import Foundation
public import Logging
public import ServiceLifecycle
import WalletOrders

/// The APNs clients of a service: one per order type when each logs in with its own Order Type ID
/// certificate (APNs ties a certificate to its topic), or one for every topic with a token key.
///
/// A ServiceLifecycle `Service`, as each ``APNsClient`` is: in a service group it closes every
/// client's connections when the group shuts down.
public final class APNsSenders: PushSender, Service {
    private let byTopic: [String: APNsClient]
    private let shared: APNsClient?

    /// Clients by topic, and one for any other topic.
    public init(byTopic: [String: APNsClient], shared: APNsClient? = nil) {
        self.byTopic = byTopic
        self.shared = shared
    }

    /// The topics with a client of their own.
    public var topics: [String] { byTopic.keys.sorted() }

    /// Asks each endpoint once, without a push, whether it answers over TLS (see
    /// ``APNsClient/probe()``): one result per endpoint, by `host:port`.
    public func probe() async -> [String: Result<APNsClient.Probe, any Error>] {
        var clients: [String: APNsClient] = [:]
        for client in Array(byTopic.values) + [shared].compactMap({ $0 }) {
            clients["\(client.configuration.endpoint.host):\(client.configuration.endpoint.port)"] = client
        }
        var results: [String: Result<APNsClient.Probe, any Error>] = [:]
        for (endpoint, client) in clients {
            do {
                results[endpoint] = .success(try await client.probe())
            } catch {
                results[endpoint] = .failure(error)
            }
        }
        return results
    }

    /// The APNs endpoints the clients push to, as `host:port`, each once.
    public var endpoints: [String] {
        Set((Array(byTopic.values) + [shared].compactMap { $0 }).map { "\($0.configuration.endpoint.host):\($0.configuration.endpoint.port)" })
            .sorted()
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        await sendReporting(notification).outcome
    }

    /// Sends with the topic's client (or the shared one), saying which credential it used.
    public func sendReporting(_ notification: PushNotification) async -> PushReceipt {
        guard let client = byTopic[notification.topic] ?? shared else {
            return PushReceipt(outcome: .credentialsRefused(reason: "no APNs credentials for the topic \(notification.topic)"))
        }
        return await client.sendReporting(notification)
    }

    /// Closes every client's connections (async-http-client requires it); a second call does nothing.
    public func shutdown() async {
        for client in byTopic.values { try? await client.shutdown() }
        try? await shared?.shutdown()
    }

    /// Holds the connections until the service group shuts down (or the task is cancelled), then
    /// closes them.
    public func run() async {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// The clients `config` asks for, or `nil` when it names no APNs endpoint.
    ///
    /// | key | meaning |
    /// |---|---|
    /// | `apns.environment` | `production`, `development` (the sandbox) or `host:port` (a stand-in) |
    /// | `apns.tokenKey`, `apns.keyID`, `apns.teamID` | token authentication: a `.p8` key for every topic |
    /// | `apns.certificate` + `apns.key`, or `apns.p12` | one Order Type ID certificate (its UID is its topic) |
    /// | (none of these) | each identity in `signing.directory` logs in for its own order type |
    /// | `apns.passphraseEnvironment` | the variable holding the key's or `.p12`'s passphrase |
    /// | `apns.trustRoots` | more roots to trust the endpoint with (a stand-in's CA) |
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming the key.
    public static func make(config: ConfigReader, signingDirectory: URL?, logger: Logger) throws -> APNsSenders? {
        guard let environment = config.string(forKey: "apns.environment") else { return nil }
        let endpoint: APNsConfiguration.Endpoint
        switch environment {
        case "production": endpoint = .production
        case "development", "sandbox": endpoint = .development
        default:
            guard let (host, port) = OrderServer.Configuration.hostAndPort(environment) else {
                throw WalletOrdersError(
                    .invalidConfiguration, "The setting apns.environment is \(environment); it takes production, development or host:port.")
            }
            endpoint = .custom(host: host, port: port)
        }
        let roots = try config.stringArray(forKey: "apns.trustRoots", default: []).map {
            String(decoding: try BoundedFile.readRegularFile($0, as: .trustRoot), as: UTF8.self)
        }
        let passphrase = try config.string(forKey: "apns.passphraseEnvironment").map { try PassphraseSource.environment($0).resolve() }
        func client(_ credentials: APNsConfiguration.Credentials) throws -> APNsClient {
            do {
                return try APNsClient(
                    configuration: APNsConfiguration(endpoint: endpoint, credentials: credentials, additionalTrustRootsPEM: roots),
                    logger: logger)
            } catch {
                throw WalletOrdersError(.invalidConfiguration, "The APNs client can't be set up: \(error)")
            }
        }
        func certificate(pem: String?, key: String?, p12: String?, intermediate: String? = nil) throws -> APNsClientCertificate {
            do {
                if let p12 {
                    return try APNsClientCertificate(pkcs12: try BoundedFile.readRegularFile(p12, as: .certificate), passphrase: passphrase ?? "")
                }
                // The chain sent in the handshake: the certificate, then the intermediate that issued it.
                var chain = try BoundedFile.readRegularFile(pem ?? "", as: .certificate)
                if let intermediate { chain += [0x0A] + (try BoundedFile.readRegularFile(intermediate, as: .certificate)) }
                return try APNsClientCertificate(
                    certificateChainPEM: chain,
                    privateKeyPEM: try BoundedFile.readRegularFile(key ?? "", as: .certificate), passphrase: passphrase)
            } catch let error as WalletOrdersError {
                throw error
            } catch {
                throw WalletOrdersError(.invalidConfiguration, "The APNs certificate can't be used: \(error)")
            }
        }
        if let tokenKey = config.string(forKey: "apns.tokenKey") {
            guard let keyID = config.string(forKey: "apns.keyID"), let teamID = config.string(forKey: "apns.teamID") else {
                throw WalletOrdersError(.invalidConfiguration, "apns.tokenKey needs apns.keyID and apns.teamID (the key's ID and your Team ID).")
            }
            let pem = String(decoding: try BoundedFile.readRegularFile(tokenKey, as: .certificate), as: UTF8.self)
            return APNsSenders(byTopic: [:], shared: try client(.token(keyID: keyID, teamID: teamID, privateKeyPEM: pem)))
        }
        let pem = config.string(forKey: "apns.certificate")
        let p12 = config.string(forKey: "apns.p12")
        if pem != nil || p12 != nil {
            let credential = try certificate(pem: pem, key: config.string(forKey: "apns.key"), p12: p12)
            guard let topic = credential.subjectUID else {
                throw WalletOrdersError(.invalidConfiguration, "The APNs certificate has no subject UID, so it names no topic.")
            }
            return APNsSenders(byTopic: [topic: try client(.certificate(credential))])
        }
        guard let signingDirectory else {
            throw WalletOrdersError(
                .invalidConfiguration,
                "apns.environment is set but no credentials are: give apns.tokenKey, apns.certificate and apns.key, apns.p12, or signing.directory.")
        }
        var clients: [String: APNsClient] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: signingDirectory.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            let folder = signingDirectory.appendingPathComponent(name)
            let p12 = folder.appendingPathComponent("order-type.p12")
            let credential =
                FileManager.default.fileExists(atPath: p12.path)
                ? try certificate(pem: nil, key: nil, p12: p12.path)
                : try certificate(
                    pem: folder.appendingPathComponent("order-type.pem").path, key: folder.appendingPathComponent("order-type.key.pem").path,
                    p12: nil,
                    intermediate: FileManager.default.fileExists(atPath: folder.appendingPathComponent("wwdr-intermediate.pem").path)
                        ? folder.appendingPathComponent("wwdr-intermediate.pem").path : nil)
            clients[credential.subjectUID ?? name] = try client(.certificate(credential))
        }
        return APNsSenders(byTopic: clients)
    }
}
