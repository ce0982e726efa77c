import Foundation
import WalletOrdersTestSupport

/// Test-only keys and certificates for the APNs tests, made once per test run with the `openssl`
/// CLI (an independent tool): a server CA and a certificate for 127.0.0.1 for the stand-in; a
/// client CA and Order Type ID–style client certificates (subject `UID=<topic>`, EKU clientAuth
/// plus Apple's order-signing OID, RSA-2048 as Apple issues them); an untrusted CA's certificate;
/// a P-256 provider token key (`.p8`) and its public key.
struct APNsTestPKI: Sendable {
    static let topic = "order.com.example.wallet-orders.test"
    static let otherTopic = "order.com.example.wallet-orders.other"
    static let teamID = "TEAMID1234"
    static let keyID = "KEYID12345"
    static let passphrase = "test-only passphrase"

    /// Made once, on first use.
    static let shared = SharedFixture<APNsTestPKI> { try await APNsTestPKI() }

    var serverCAPEM: String
    var serverCertificatePEM: String
    var serverKeyPEM: String
    var clientCAPEM: String
    /// UID = ``topic``, issued by the client CA.
    var clientCertificatePEM: String
    var clientKeyPEM: String
    /// The client key, AES-256 encrypted with ``passphrase``.
    var clientEncryptedKeyPEM: String
    /// Certificate, key and client CA as a `.p12` with ``passphrase``.
    var clientPKCS12: [UInt8]
    /// UID = ``otherTopic``, issued by the client CA.
    var otherTopicCertificatePEM: String
    var otherTopicKeyPEM: String
    /// UID = ``topic``, issued by a CA the stand-in doesn't trust.
    var untrustedCertificatePEM: String
    var untrustedKeyPEM: String
    /// The provider token key, PKCS #8 PEM (what a `.p8` holds).
    var tokenPrivateKeyPEM: String
    var tokenPublicKeyPEM: String
    /// Another P-256 key, not the stand-in's.
    var otherTokenPrivateKeyPEM: String

    private init() async throws {
        let folder = try TemporaryFolder("apns-pki")
        defer { folder.remove() }
        let config = try folder.write(
            Array(
                """
                [req]
                distinguished_name = dn
                [dn]
                [ca]
                basicConstraints = critical,CA:TRUE
                keyUsage = critical,keyCertSign,cRLSign
                subjectKeyIdentifier = hash
                [server]
                basicConstraints = critical,CA:FALSE
                keyUsage = critical,digitalSignature
                extendedKeyUsage = serverAuth
                subjectAltName = IP:127.0.0.1,DNS:localhost
                [client]
                basicConstraints = critical,CA:FALSE
                keyUsage = critical,digitalSignature
                extendedKeyUsage = clientAuth,1.2.840.113635.100.4.19
                1.2.840.113635.100.6.3.2 = ASN1:NULL
                """.utf8), to: "openssl.cnf"
        ).path
        func path(_ name: String) -> String { folder.file(name).path }
        func openssl(_ arguments: [String]) async throws {
            let result = try await ExternalProgram.run(tool: "openssl", arguments)
            guard result.status == 0 else { throw PKIError(description: result.description) }
        }
        func text(_ name: String) throws -> String { try String(contentsOf: folder.file(name), encoding: .utf8) }
        func ecKey(_ name: String) async throws {
            try await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name)])
        }
        func authority(_ name: String, _ subject: String) async throws {
            try await ecKey("\(name).key")
            try await openssl([
                "req", "-x509", "-new", "-key", path("\(name).key"), "-subj", subject, "-days", "2", "-config", config,
                "-extensions", "ca", "-out", path("\(name).pem"),
            ])
        }
        func leaf(_ name: String, _ subject: String, issuer: String, profile: String, rsa: Bool) async throws {
            if rsa {
                try await openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path("\(name).key")])
            } else {
                try await ecKey("\(name).key")
            }
            try await openssl(["req", "-new", "-key", path("\(name).key"), "-subj", subject, "-config", config, "-out", path("\(name).csr")])
            try await openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
                "-set_serial", String(Int.random(in: 1...Int(Int32.max))), "-days", "2", "-extfile", config,
                "-extensions", profile, "-out", path("\(name).pem"),
            ])
        }
        func orderTypeSubject(_ topic: String) -> String {
            "/UID=\(topic)/CN=Order Type ID: \(topic)/OU=\(Self.teamID)/O=wallet-orders TEST ONLY/C=US"
        }

        try await authority("server-ca", "/O=wallet-orders TEST ONLY/CN=APNs stand-in server CA (TEST ONLY)")
        try await leaf("server", "/O=wallet-orders TEST ONLY/CN=127.0.0.1", issuer: "server-ca", profile: "server", rsa: false)
        try await authority("client-ca", "/O=wallet-orders TEST ONLY/CN=Order Type ID client CA (TEST ONLY)")
        try await leaf("client", orderTypeSubject(Self.topic), issuer: "client-ca", profile: "client", rsa: true)
        try await leaf("other", orderTypeSubject(Self.otherTopic), issuer: "client-ca", profile: "client", rsa: true)
        try await authority("rogue-ca", "/O=wallet-orders TEST ONLY/CN=Untrusted CA (TEST ONLY)")
        try await leaf("untrusted", orderTypeSubject(Self.topic), issuer: "rogue-ca", profile: "client", rsa: true)
        try await openssl([
            "pkey", "-in", path("client.key"), "-aes256", "-passout", "pass:\(Self.passphrase)", "-out", path("client-enc.key"),
        ])
        try await openssl([
            "pkcs12", "-export", "-in", path("client.pem"), "-inkey", path("client.key"), "-certfile", path("client-ca.pem"),
            "-passout", "pass:\(Self.passphrase)", "-out", path("client.p12"),
        ])
        try await ecKey("token.p8")
        try await openssl(["pkey", "-in", path("token.p8"), "-pubout", "-out", path("token-public.pem")])
        try await ecKey("other-token.p8")

        serverCAPEM = try text("server-ca.pem")
        serverCertificatePEM = try text("server.pem")
        serverKeyPEM = try text("server.key")
        clientCAPEM = try text("client-ca.pem")
        clientCertificatePEM = try text("client.pem")
        clientKeyPEM = try text("client.key")
        clientEncryptedKeyPEM = try text("client-enc.key")
        clientPKCS12 = Array(try Data(contentsOf: folder.file("client.p12")))
        otherTopicCertificatePEM = try text("other.pem")
        otherTopicKeyPEM = try text("other.key")
        untrustedCertificatePEM = try text("untrusted.pem")
        untrustedKeyPEM = try text("untrusted.key")
        tokenPrivateKeyPEM = try text("token.p8")
        tokenPublicKeyPEM = try text("token-public.pem")
        otherTokenPrivateKeyPEM = try text("other-token.p8")
    }

    struct PKIError: Error, CustomStringConvertible {
        var description: String
    }
}
