public import Foundation
package import WalletOrdersInterop

/// A local, test-only stand-in for Apple's certificate hierarchy: a root, a WWDR-like
/// intermediate, and Order Type ID certificates in Apple's profile (the extensions a production
/// Order Type ID certificate and Apple's WWDR G4 intermediate carry).
///
/// With it anyone can run the whole build → sign → verify pipeline without an Apple developer
/// account. Wallet trusts none of it: every subject says `TEST ONLY`, and verification succeeds
/// only when the caller adds ``rootCertificatePEM`` as a trust anchor.
public struct DevelopmentCertificateAuthority: Sendable {
    package let rootKey: PrivateKey
    package let root: X509Certificate
    package let intermediateKey: PrivateKey
    package let intermediate: X509Certificate

    /// The organization every development certificate names.
    public static let organization = "wallet-orders TEST ONLY"

    /// Makes a new root and intermediate with fresh RSA-2048 keys.
    ///
    /// - Parameters:
    ///   - validFrom: Start of validity (default: one day ago, so clocks that lag still accept it).
    ///   - validFor: Length of validity (default: 5 years).
    ///   - generation: The intermediate's `OU`, like Apple's `G4`.
    public init(
        validFrom: Date = Date().addingTimeInterval(-86_400), validFor: TimeInterval = 5 * 365 * 86_400,
        generation: String = "G4"
    ) throws {
        do {
            rootKey = try PrivateKey.generateRSA(bits: 2048)
            root = try CertificateIssuer.issue(
                .init(
                    subject: [
                        ("C", "US"), ("O", Self.organization), ("OU", "Development Certification Authority"),
                        ("CN", "wallet-orders Development Root CA (TEST ONLY)"),
                    ],
                    notBefore: validFrom, notAfter: validFrom.addingTimeInterval(validFor + 86_400),
                    certificateAuthorityPathLength: -1, keyUsage: "critical,keyCertSign,cRLSign"),
                subjectKey: rootKey, issuer: nil, issuerKey: rootKey)
            intermediateKey = try PrivateKey.generateRSA(bits: 2048)
            intermediate = try CertificateIssuer.issue(
                .init(
                    subject: [
                        ("C", "US"), ("O", Self.organization), ("OU", generation),
                        ("CN", "wallet-orders Development WWDR Intermediate (TEST ONLY)"),
                    ],
                    notBefore: validFrom, notAfter: validFrom.addingTimeInterval(validFor),
                    certificateAuthorityPathLength: 0, keyUsage: "critical,keyCertSign,cRLSign",
                    // Apple's WWDR marker (a NULL), which Wallet requires of the signer's issuer.
                    customExtensions: [(OrderTypeCertificateProfile.intermediateMarker, false, [0x05, 0x00])]),
                subjectKey: intermediateKey, issuer: root, issuerKey: rootKey)
        } catch {
            throw WalletOrdersError(.signingFailed, "Making the development certificate authority failed: \(error)", underlying: error)
        }
    }

    /// The root certificate (PEM): pass it as a trust anchor to verify development-signed archives.
    public var rootCertificatePEM: String { Self.markTestOnly(root.pemString) }
    /// The intermediate certificate (PEM), the stand-in for Apple's WWDR intermediate.
    public var intermediateCertificatePEM: String { Self.markTestOnly(intermediate.pemString) }

    /// Issues an Order Type ID certificate with the subject and extensions Apple uses: subject
    /// `UID=<orderTypeIdentifier>, CN=Order Type ID: <orderTypeIdentifier>, OU=<teamIdentifier>, O=…, C=US`;
    /// key usage critical digitalSignature; extended key usage clientAuth and
    /// `1.2.840.113635.100.4.19`; the order-type marker `1.2.840.113635.100.14.2` naming the
    /// order type; and `1.2.840.113635.100.6.3.2` (NULL), with which Apple's certificate logs in to APNs.
    ///
    /// - Parameters:
    ///   - validFrom: Start of validity (default: one day ago). Tests pass past dates to make expired certificates.
    ///   - validFor: Length of validity (default: one year).
    public func issueOrderTypeCertificate(
        orderTypeIdentifier: String, teamIdentifier: String,
        validFrom: Date = Date().addingTimeInterval(-86_400), validFor: TimeInterval = 365 * 86_400
    ) throws -> DevelopmentOrderTypeCertificate {
        do {
            let key = try PrivateKey.generateRSA(bits: 2048)
            let certificate = try CertificateIssuer.issue(
                .init(
                    subject: [
                        ("UID", orderTypeIdentifier), ("CN", "Order Type ID: \(orderTypeIdentifier)"),
                        ("OU", teamIdentifier), ("O", Self.organization), ("C", "US"),
                    ],
                    notBefore: validFrom, notAfter: validFrom.addingTimeInterval(validFor),
                    keyUsage: "critical,digitalSignature",
                    extendedKeyUsages: [
                        OrderTypeCertificateProfile.clientAuthentication, OrderTypeCertificateProfile.orderTypeExtendedKeyUsage,
                    ],
                    customExtensions: [
                        (OrderTypeCertificateProfile.orderTypeMarker, false, OrderTypeCertificateProfile.markerValue(orderTypeIdentifier)),
                        (OrderTypeCertificateProfile.pushExtension, false, [0x05, 0x00]),
                    ]),
                subjectKey: key, issuer: intermediate, issuerKey: intermediateKey)
            return DevelopmentOrderTypeCertificate(certificate: certificate, privateKey: key, authority: self, kind: .order)
        } catch {
            throw WalletOrdersError(.signingFailed, "Issuing the development certificate failed: \(error)", underlying: error)
        }
    }

    /// Issues a Pass Type ID certificate with the subject and extensions of Apple's: subject
    /// `UID=<passTypeIdentifier>, CN=Pass Type ID: <passTypeIdentifier>, OU=<teamIdentifier>, O=…, C=US`
    /// (`Pass Type ID with NFC:` when `nfc`); key usage critical digitalSignature; extended key
    /// usage clientAuth and `1.2.840.113635.100.4.14`; the pass-type marker
    /// `1.2.840.113635.100.6.1.16` naming the pass type; `1.2.840.113635.100.6.3.2` (NULL), with
    /// which the certificate logs in to APNs; and with `nfc` the NFC marker `1.2.840.113635.100.6.1.26`.
    public func issuePassTypeCertificate(
        passTypeIdentifier: String, teamIdentifier: String, nfc: Bool = false,
        validFrom: Date = Date().addingTimeInterval(-86_400), validFor: TimeInterval = 365 * 86_400
    ) throws -> DevelopmentSigningCertificate {
        do {
            let key = try PrivateKey.generateRSA(bits: 2048)
            var extensions: [(oid: String, critical: Bool, derValue: [UInt8])] = [
                (PassTypeCertificateProfile.passTypeMarker, false, OrderTypeCertificateProfile.markerValue(passTypeIdentifier)),
                (OrderTypeCertificateProfile.pushExtension, false, [0x05, 0x00]),
            ]
            if nfc { extensions.append((PassTypeCertificateProfile.nfcMarker, false, [0x05, 0x00])) }
            let certificate = try CertificateIssuer.issue(
                .init(
                    subject: [
                        ("UID", passTypeIdentifier), ("CN", "Pass Type ID\(nfc ? " with NFC" : ""): \(passTypeIdentifier)"),
                        ("OU", teamIdentifier), ("O", Self.organization), ("C", "US"),
                    ],
                    notBefore: validFrom, notAfter: validFrom.addingTimeInterval(validFor),
                    keyUsage: "critical,digitalSignature",
                    extendedKeyUsages: [
                        OrderTypeCertificateProfile.clientAuthentication, PassTypeCertificateProfile.passTypeExtendedKeyUsage,
                    ],
                    customExtensions: extensions),
                subjectKey: key, issuer: intermediate, issuerKey: intermediateKey)
            return DevelopmentSigningCertificate(certificate: certificate, privateKey: key, authority: self, kind: .pass)
        } catch {
            throw WalletOrdersError(.signingFailed, "Issuing the development certificate failed: \(error)", underlying: error)
        }
    }

    package static func markTestOnly(_ pem: String) -> String {
        "# TEST ONLY: made by `wallet-orders dev-certs`. Apple Wallet does not trust it.\n" + pem
    }
}

/// A development Order Type ID certificate with its key (the name it had before passes).
public typealias DevelopmentOrderTypeCertificate = DevelopmentSigningCertificate

/// A development Order Type ID or Pass Type ID certificate with its key, issued by a
/// ``DevelopmentCertificateAuthority``.
public struct DevelopmentSigningCertificate: Sendable {
    package let certificate: X509Certificate
    package let privateKey: PrivateKey
    package let authority: DevelopmentCertificateAuthority
    /// What the certificate signs.
    public let kind: ArchiveKind

    /// The certificate (PEM).
    public var certificatePEM: String { DevelopmentCertificateAuthority.markTestOnly(certificate.pemString) }
    /// What the certificate says.
    public var summary: CertificateSummary { CertificateSummary(certificate) }

    /// The private key as PKCS #8 PEM, AES-256 encrypted when `passphrase` is given.
    public func privateKeyPEM(passphrase: String? = nil) throws -> String {
        do {
            return String(decoding: try privateKey.pemBytes(passphrase: passphrase.map { Array($0.utf8) }), as: UTF8.self)
        } catch {
            throw WalletOrdersError(.signingFailed, "Encoding the private key failed: \(error)", underlying: error)
        }
    }

    /// The certificate, key and intermediate as a `.p12`.
    ///
    /// - Parameter legacyEncryption: RC2-40/3DES with a SHA-1 MAC, as older Keychain exports are,
    ///   instead of AES-256.
    public func pkcs12(passphrase: String, legacyEncryption: Bool = false) throws -> [UInt8] {
        do {
            return try PKCS12.make(
                privateKey: privateKey, certificate: certificate, otherCertificates: [authority.intermediate],
                passphrase: passphrase, friendlyName: "\(kind.certificateName): \(summary.userID ?? "")",
                encryption: legacyEncryption ? .legacy : .modern)
        } catch {
            throw WalletOrdersError(.signingFailed, "Writing the .p12 failed: \(error)", underlying: error)
        }
    }

    /// A signing identity (certificate, key and the development intermediate).
    public func signingIdentity(validAt date: Date = Date()) throws -> SigningIdentity {
        try SigningIdentity(
            certificate: certificate, privateKey: privateKey, intermediateCandidates: [authority.intermediate],
            validAt: date, for: kind)
    }
}
