import Foundation
public import NIOSSL

/// How an ``APNsClient`` reaches Apple's push service and proves who it is.
public struct APNsConfiguration: Sendable {
    /// Which push service to talk to.
    public enum Endpoint: Sendable, Hashable {
        /// `api.push.apple.com:443`: devices running production builds (Wallet on customers' devices).
        case production
        /// `api.sandbox.push.apple.com:443`: development builds.
        case development
        /// Any other host, such as the local APNs stand-in in tests and `make demo`.
        case custom(host: String, port: Int)

        /// The host name.
        public var host: String {
            switch self {
            case .production: "api.push.apple.com"
            case .development: "api.sandbox.push.apple.com"
            case .custom(let host, _): host
            }
        }

        /// The TCP port.
        public var port: Int {
            switch self {
            case .production, .development: 443
            case .custom(_, let port): port
            }
        }
    }

    /// How the client authenticates to APNs.
    public enum Credentials: Sendable {
        /// A TLS client certificate: the Order Type ID certificate and its key, as Wallet's order
        /// protocol expects. The certificate's subject UID is the only topic it may push to.
        case certificate(APNsClientCertificate)
        /// A provider token: an ES256 JWT signed with the team's APNs auth key (`.p8`).
        ///
        /// - Parameters:
        ///   - keyID: The key's 10-character ID (the JWT header's `kid`).
        ///   - teamID: The developer team ID (the `iss` claim).
        ///   - privateKeyPEM: The `.p8` file's contents (PKCS #8 PEM of a P-256 key).
        case token(keyID: String, teamID: String, privateKeyPEM: String)
    }

    /// Which push service to talk to.
    public var endpoint: Endpoint
    /// How to authenticate.
    public var credentials: Credentials
    /// CA certificates (PEM) trusted besides the system's, for a ``Endpoint/custom(host:port:)``
    /// service with its own CA (the stand-in). Leave empty for Apple's services.
    public var additionalTrustRootsPEM: [String]
    /// How long opening a connection (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// How long one push may take from sending to the end of the answer, the connection included.
    public var requestTimeout: Duration
    /// How long a provider token is reused before a new one is signed. APNs refuses tokens older
    /// than an hour and too-frequent new ones (`TooManyProviderTokenUpdates`, more than one every
    /// 20 minutes), so the default is 50 minutes.
    public var providerTokenLifetime: Duration
    /// The most of an answer's body read (APNs' error bodies are a few dozen bytes).
    public var maximumResponseBodySize: Int

    /// A configuration for `endpoint` with `credentials`.
    public init(
        endpoint: Endpoint, credentials: Credentials, additionalTrustRootsPEM: [String] = [],
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
        providerTokenLifetime: Duration = .seconds(50 * 60), maximumResponseBodySize: Int = 4096
    ) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.providerTokenLifetime = providerTokenLifetime
        self.maximumResponseBodySize = maximumResponseBodySize
    }
}

/// A TLS client certificate chain and its private key, for ``APNsConfiguration/Credentials/certificate(_:)``.
public struct APNsClientCertificate: Sendable {
    /// The chain, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The leaf's private key.
    public let privateKey: NIOSSLPrivateKey

    /// A certificate from its parts.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws {
        guard !certificateChain.isEmpty else { throw APNsConfigurationError("the certificate chain is empty") }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Reads a PEM certificate chain (leaf first) and a PEM private key, encrypted when
    /// `passphrase` is given.
    ///
    /// - Throws: ``APNsConfigurationError`` when either can't be read.
    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], passphrase: String? = nil) throws {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateChainPEM)
        } catch {
            throw APNsConfigurationError("the certificate PEM can't be read (\(OrderServer.Configuration.libraryErrorName(error)))")
        }
        let key: NIOSSLPrivateKey
        do {
            // Always a callback: without one BoringSSL would prompt on the terminal for an
            // encrypted key. An unencrypted key never asks.
            let bytes = Array((passphrase ?? "").utf8)
            key = try NIOSSLPrivateKey(bytes: privateKeyPEM, format: .pem) { setter in setter(bytes) }
        } catch {
            throw APNsConfigurationError(
                "the private key PEM can't be read: not a PEM private key, or a wrong passphrase (\(OrderServer.Configuration.libraryErrorName(error)))"
            )
        }
        try self.init(certificateChain: chain, privateKey: key)
    }

    /// Reads a PKCS #12 file (`.p12`, as Keychain exports it) with its passphrase.
    ///
    /// - Throws: ``APNsConfigurationError`` when it can't be read or the passphrase is wrong.
    public init(pkcs12: [UInt8], passphrase: String) throws {
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: pkcs12, passphrase: Array(passphrase.utf8))
        } catch {
            throw APNsConfigurationError(
                "the PKCS #12 file can't be read: a wrong passphrase, or not a .p12 (\(OrderServer.Configuration.libraryErrorName(error)))")
        }
        try self.init(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey)
    }

    /// The leaf's subject UID: the topic (order type identifier) it may push to.
    public var subjectUID: String? {
        certificateChain.first?.subjectName.first { $0.type == .userId }?.value
    }
}

/// A configuration the ``APNsClient`` can't use: a certificate, key or trust root that can't be read.
public struct APNsConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = "APNs configuration: " + description }
}
