import Foundation
import WalletOrders
import WalletOrdersInterop

/// The DER/CMS reader, as the verifier reads a `signature` file: the strict DER check, the fast
/// reader for the usual shape, then OpenSSL's CMS parser and every accessor the verifier calls.
enum DERFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let violation = DERReader.violation(in: bytes)
        if let violation {
            try require((0...bytes.count).contains(violation.offset), .der, "violation offset outside the data: \(violation)")
        }
        if let strict = StrictSignedData(bytes) {
            // The fast reader only takes strict DER, so the strict check must agree.
            try require(violation == nil, .der, "StrictSignedData read bytes that are not strict DER: \(violation!)")
            for range in strict.certificates + [strict.signerIssuer, strict.signerSerial, strict.messageDigest, strict.signature] {
                try require(range.lowerBound >= 0 && range.upperBound <= bytes.count, .der, "range \(range) outside \(bytes.count) bytes")
            }
            for certificate in strict.certificates { _ = try? X509Certificate.parse(Array(bytes[certificate])) }
        }
        guard let cms = try? CMSSignedData(derBytes: bytes) else { return }
        _ = cms.contentType
        _ = cms.isDetached
        _ = cms.encapsulatedContentType
        _ = cms.encapsulatesData
        let certificates = cms.certificates
        for certificate in certificates {
            _ = certificate.subject.description
            _ = certificate.serialNumberHex
            _ = certificate.notBefore
            _ = certificate.notAfter
            _ = certificate.extendedKeyUsageOIDs
        }
        let manifest = Array("{}".utf8)
        for signer in cms.signerInfos {
            _ = signer.issuerAndSerial
            _ = signer.digestAlgorithm
            _ = signer.signatureAlgorithm
            _ = signer.signedAttributeOIDs
            _ = signer.signingTime
            _ = signer.messageDigest
            _ = signer.contentTypeAttributeIsData
            _ = signer.digest(of: manifest)
            for certificate in certificates where signer.identifies(certificate) {
                _ = signer.verifySignature(with: certificate)
            }
        }
    }
}

/// The signing-identity loader. The first byte picks the form, the rest is the file:
/// 0 certificate and key in one PEM (or DER) file, no passphrase; 1 the same with a passphrase
/// (an encrypted PEM key); 2 a PKCS #12 file. Every failure must be a `WalletOrdersError`.
enum IdentityFuzzing {
    /// The passphrase of the seed keys and `.p12` files (`make fuzz-seeds`).
    static let passphrase = "fuzz-passphrase"

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        guard let form = bytes.first else { return }
        let file = Array(bytes.dropFirst())
        do {
            switch form % 3 {
            case 0:
                _ = try SigningIdentity(certificate: file, privateKey: file, intermediate: nil, validAt: FuzzTarget.now)
            case 1:
                _ = try SigningIdentity(
                    certificate: file, privateKey: file, passphrase: passphrase, intermediate: nil, validAt: FuzzTarget.now)
            default:
                _ = try SigningIdentity(pkcs12: file, passphrase: passphrase, intermediate: nil, validAt: FuzzTarget.now)
            }
        } catch {
            try require(error is WalletOrdersError, .identity, "threw \(type(of: error)), not WalletOrdersError: \(error)")
        }
        _ = SigningIdentity.isEncryptedPrivateKey(file)
    }
}
