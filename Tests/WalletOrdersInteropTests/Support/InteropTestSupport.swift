import Foundation
import Testing
import WalletOrdersInterop

/// Throwaway certificates for the interop tests: root → intermediate → leaf, plus an unrelated
/// self-signed certificate. RSA key generation is the slow part, so the chain is made once.
struct TestChain: Sendable {
    let rootKey: PrivateKey
    let root: X509Certificate
    let intermediateKey: PrivateKey
    let intermediate: X509Certificate
    let leafKey: PrivateKey
    let leaf: X509Certificate
    let strangerKey: PrivateKey
    let stranger: X509Certificate

    /// Whole seconds, because certificates store times to the second.
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static let leafNotBefore = now.addingTimeInterval(-86_400)
    static let leafNotAfter = now.addingTimeInterval(30 * 86_400)
    static let leafUID = "order.com.example.interop"

    static let shared: Result<TestChain, OpenSSLError> = Result { () throws(OpenSSLError) -> TestChain in try make() }

    static func get() throws -> TestChain { try shared.get() }

    private static func make() throws(OpenSSLError) -> TestChain {
        let caNotBefore = now.addingTimeInterval(-30 * 86_400)
        let rootKey = try PrivateKey.generateRSA(bits: 2048)
        let root = try CertificateIssuer.issue(
            .init(
                subject: [("C", "US"), ("O", "Interop Tests"), ("CN", "Interop Test Root")],
                notBefore: caNotBefore, notAfter: now.addingTimeInterval(3_650 * 86_400),
                certificateAuthorityPathLength: -1, keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: rootKey, issuer: nil, issuerKey: rootKey)
        let intermediateKey = try PrivateKey.generateRSA(bits: 2048)
        let intermediate = try CertificateIssuer.issue(
            .init(
                subject: [("C", "US"), ("O", "Interop Tests"), ("OU", "G4"), ("CN", "Interop Test Intermediate")],
                notBefore: caNotBefore, notAfter: now.addingTimeInterval(1_000 * 86_400),
                certificateAuthorityPathLength: 0, keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: intermediateKey, issuer: root, issuerKey: rootKey)
        let leafKey = try PrivateKey.generateRSA(bits: 2048)
        let leaf = try CertificateIssuer.issue(
            .init(
                subject: [
                    ("UID", leafUID), ("CN", "Order Type ID: \(leafUID)"), ("OU", "TEAM123456"), ("O", "Interop Tests"),
                    ("C", "US"),
                ],
                notBefore: leafNotBefore, notAfter: leafNotAfter, keyUsage: "critical,digitalSignature",
                extendedKeyUsages: ["1.2.840.113635.100.4.19"]),
            subjectKey: leafKey, issuer: intermediate, issuerKey: intermediateKey)
        let strangerKey = try PrivateKey.generateRSA(bits: 2048)
        let stranger = try CertificateIssuer.issue(
            .init(
                subject: [("CN", "Stranger")], notBefore: leafNotBefore, notAfter: leafNotAfter,
                keyUsage: "critical,digitalSignature"),
            subjectKey: strangerKey, issuer: nil, issuerKey: strangerKey)
        return TestChain(
            rootKey: rootKey, root: root, intermediateKey: intermediateKey, intermediate: intermediate,
            leafKey: leafKey,
            leaf: leaf, strangerKey: strangerKey, stranger: stranger)
    }
}

/// OpenSSL's thread-local error queue is empty (nothing left to be blamed on a later call).
/// Tests that use it are synchronous, so they stay on one thread.
func openSSLErrorQueueIsEmpty() -> Bool {
    OpenSSLError.drain(function: "probe").entries.isEmpty
}
