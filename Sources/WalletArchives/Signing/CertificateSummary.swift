public import Foundation
package import WalletOrdersInterop

/// What a certificate says about itself, as plain Swift values.
public struct CertificateSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The subject, most specific first (`UID=…, CN=…, OU=…, O=…, C=…`).
    public var subject: String
    /// The issuer, in the same form.
    public var issuer: String
    /// The serial number, colon-separated uppercase hex.
    public var serialNumber: String
    /// The start of the validity period.
    public var notBefore: Date
    /// The end of the validity period.
    public var notAfter: Date
    /// The subject's `UID` attribute: on Apple's Order Type ID certificates, the order type identifier.
    public var userID: String?
    /// The subject's `OU` attribute: on Apple's certificates, the Team ID (or `G4` on the WWDR intermediate).
    public var organizationalUnit: String?
    /// The subject's common name.
    public var commonName: String?
    /// The SHA-256 fingerprint, lowercase hex.
    public var sha256Fingerprint: String

    package init(_ certificate: X509Certificate) {
        let subject = certificate.subject
        self.subject = subject.description
        self.issuer = certificate.issuer.description
        self.serialNumber = certificate.serialNumberHex
        self.notBefore = certificate.notBefore
        self.notAfter = certificate.notAfter
        self.userID = subject["UID"]
        self.organizationalUnit = subject["OU"]
        self.commonName = subject["CN"]
        self.sha256Fingerprint = Hex.encode(certificate.sha256Fingerprint)
    }

    /// Whether the certificate is valid at `date`.
    public func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    public var description: String { "\(subject) (serial \(serialNumber))" }
}

/// Loading certificates and keys with errors that say what to do.
package enum CertificateLoading {
    package static func certificates(_ bytes: [UInt8], role: String) throws -> [X509Certificate] {
        do {
            return try X509Certificate.parse(bytes)
        } catch {
            throw WalletOrdersError(
                .invalidCertificate, "The \(role) is not a PEM or DER X.509 certificate.",
                hint: "Export it as .pem or .cer (DER); `openssl x509 -in FILE -noout -text` should print it.",
                underlying: error)
        }
    }

    /// Reads a certificate, key or `.p12` file (``FileKind/certificate``'s limit), naming it as `role`.
    package static func readFile(_ url: URL, role: String) throws -> [UInt8] {
        try BoundedFile.read(url, as: FileKind(name: role, maximumBytes: FileKind.certificate.maximumBytes, reason: FileKind.certificate.reason))
    }
}
