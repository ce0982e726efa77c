public import Foundation
import WalletOrdersInterop

/// A server's TLS certificate chain and private key (PEM), checked before a TLS library is given
/// them, so each mistake is said in a sentence: a file that holds no certificate, a key that is
/// encrypted or isn't one, a key that belongs to another certificate.
///
/// The web service checks its `tls.certificate` and `tls.key` with it when it starts, and
/// `wallet-orders doctor` reports what it finds, the certificate's validity with it.
public struct TLSServerCertificate: Sendable {
    /// The server's own certificate (the chain's first).
    public let leaf: CertificateSummary
    /// The number of certificates in the chain, the leaf included.
    public let chainLength: Int

    /// Checks `certificateChainPEM` (leaf first, then intermediates) and `privateKeyPEM`.
    ///
    /// - Parameters:
    ///   - certificateName: How the caller names the certificate file in messages.
    ///   - keyName: How the caller names the key file in messages.
    /// - Throws: ``WalletOrdersError/Code/invalidCertificate`` when the chain holds no
    ///   certificate; ``WalletOrdersError/Code/invalidPrivateKey`` for an encrypted key or one
    ///   that can't be read; ``WalletOrdersError/Code/keyCertificateMismatch`` when the key is not
    ///   the certificate's.
    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], certificateName: String, keyName: String) throws {
        let chain: [X509Certificate]
        do {
            chain = try X509Certificate.parse(certificateChainPEM)
        } catch {
            throw WalletOrdersError(
                .invalidCertificate, "The TLS certificate \(certificateName) holds no PEM certificate.",
                hint:
                    "Give the server's certificate chain as PEM, the server's certificate first; `openssl x509 -in FILE -noout -subject` prints its subject.",
                underlying: error)
        }
        guard let first = chain.first else {
            throw WalletOrdersError(
                .invalidCertificate, "The TLS certificate \(certificateName) holds no PEM certificate.",
                hint: "Give the server's certificate chain as PEM, the server's certificate first.")
        }
        if PrivateKey.isEncryptedPEM(privateKeyPEM) {
            throw WalletOrdersError(
                .invalidPrivateKey, "The TLS key \(keyName) is encrypted; the service reads only an unencrypted key.",
                hint: "Write it out unencrypted for the service's user alone: `openssl pkey -in KEY -out server.key.pem`, then chmod 600.")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(bytes: privateKeyPEM, passphrase: nil)
        } catch {
            throw WalletOrdersError(
                .invalidPrivateKey, "The TLS key \(keyName) is not a PEM private key.",
                hint: "Give the private key the certificate was issued for, as PEM (-----BEGIN PRIVATE KEY-----).", underlying: error)
        }
        guard first.matches(key) else {
            // The key of another certificate: the TLS library would only say it failed to load it.
            let shown =
                chain.firstIndex { $0.matches(key) }.map { " (it is the key of certificate \($0 + 1) of the chain, which must come first)" } ?? ""
            throw WalletOrdersError(
                .keyCertificateMismatch,
                "The TLS key \(keyName) is not the private key of the TLS certificate \(certificateName) ('\(first.subject)')\(shown).",
                hint:
                    "Give the key made with the certificate's signing request; `openssl x509 -noout -pubkey -in CERT` and `openssl pkey -pubout -in KEY` print the same key when they belong together."
            )
        }
        leaf = CertificateSummary(first)
        chainLength = chain.count
    }

    /// Whether the leaf is valid at `date`.
    public func isValid(at date: Date) -> Bool { leaf.notBefore <= date && date <= leaf.notAfter }
}
