public import Foundation
package import WalletOrdersInterop

/// The facts of an archive's signature, read without judging them (``OrderArchiveVerifier`` judges).
public struct SignatureInfo: Sendable, Hashable, Codable {
    /// The signing certificate, when the signature carries it.
    public var signer: CertificateSummary?
    /// Every certificate the signature carries, in order.
    public var certificates: [CertificateSummary]
    /// The signingTime signed attribute.
    public var signingTime: Date?
    /// The digest algorithm, as OpenSSL names it (`SHA256`).
    public var digestAlgorithm: String
    /// The signature algorithm (`rsaEncryption` or `RSA-SHA256`).
    public var signatureAlgorithm: String
    /// Whether the signature is detached (the manifest is not embedded).
    public var isDetached: Bool
    /// How many signers there are (Wallet expects one).
    public var signerCount: Int
    /// The signed attributes by name (`contentType`, `signingTime`, `messageDigest`, …).
    public var signedAttributes: [String]

    package init(_ cms: CMSSignedData) {
        let certificates = cms.certificates
        let signerInfo = cms.signerInfos.first
        self.signer = signerInfo.flatMap { info in certificates.first(where: info.identifies) }.map(CertificateSummary.init)
        self.certificates = certificates.map(CertificateSummary.init)
        self.signingTime = signerInfo?.signingTime
        self.digestAlgorithm = signerInfo?.digestAlgorithm ?? ""
        self.signatureAlgorithm = signerInfo?.signatureAlgorithm ?? ""
        self.isDetached = cms.isDetached
        self.signerCount = cms.signerInfos.count
        self.signedAttributes = (signerInfo?.signedAttributeOIDs ?? []).map { Self.attributeNames[$0] ?? $0 }
    }

    package static let attributeNames = [
        "1.2.840.113549.1.9.3": "contentType",
        "1.2.840.113549.1.9.4": "messageDigest",
        "1.2.840.113549.1.9.5": "signingTime",
        "1.2.840.113549.1.9.15": "smimeCapabilities",
        "1.2.840.113549.1.9.16.2.47": "signingCertificateV2",
    ]
}
