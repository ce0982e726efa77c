package import WalletOrdersInterop

/// What an Order Type ID certificate must be for Wallet to accept an order it signed: Apple's
/// device policy for orders (`SecPolicyCreateOrderBundleSigner`), read from a production Order
/// Type ID certificate and Apple's WWDR G4 intermediate. The verifier applies it to the signer of
/// every archive, and ``SigningIdentity`` to the certificate it loads, so that we never sign what
/// we would refuse.
///
/// The signing certificate:
/// - carries the extended key usage ``orderTypeExtendedKeyUsage`` (`1.2.840.113635.100.4.19`;
///   Apple's certificates add `clientAuth`, because the same certificate logs in to APNs);
/// - carries the order-type marker ``orderTypeMarker`` (`1.2.840.113635.100.14.2`), a
///   UTF8String that must equal `order.json`'s `orderTypeIdentifier`. The subject `UID` names
///   the type too, and must agree: checked where the order is known
///   (``OrderTypeCertificateProfile/bindingProblems(of:orderTypeIdentifier:)``). Without the
///   binding, any merchant's certificate from the same intermediate could sign, and replace,
///   another merchant's orders;
/// - is an end-entity certificate (no `basicConstraints cA: TRUE`) whose key usage, when present,
///   includes digitalSignature;
/// - has a key Apple issues: RSA of at least 2,048 bits or EC on P-256, P-384 or P-521.
///
/// The intermediate that issued it carries Apple's WWDR marker ``intermediateMarker``
/// (`1.2.840.113635.100.6.2.1`).
///
/// A Pass Type ID certificate (``passTypeExtendedKeyUsage``, ``passTypeMarker``) is named as
/// what it is: it signs passes, not orders.
///
/// Not checked here: revocation (Wallet asks Apple's OCSP responder; this library works offline)
/// and the Apple anchor (the trust store decides which roots are anchors).
package enum OrderTypeCertificateProfile {
    /// Apple's extended key usage for Order Type ID certificates.
    package static let orderTypeExtendedKeyUsage = "1.2.840.113635.100.4.19"
    /// Apple's extension naming the order type (a UTF8String) on Order Type ID certificates.
    package static let orderTypeMarker = "1.2.840.113635.100.14.2"
    /// Apple's marker on its WWDR intermediates, which Wallet requires of the signer's issuer.
    package static let intermediateMarker = "1.2.840.113635.100.6.2.1"
    /// Apple's extension (NULL) that lets a type-ID certificate log in to APNs.
    package static let pushExtension = "1.2.840.113635.100.6.3.2"
    /// TLS client authentication, which Apple's certificates carry for APNs.
    package static let clientAuthentication = "1.3.6.1.5.5.7.3.2"
    /// The extended key usage of Pass Type ID certificates (pass signing).
    package static let passTypeExtendedKeyUsage = "1.2.840.113635.100.4.14"
    /// The marker extension of Pass Type ID certificates.
    package static let passTypeMarker = "1.2.840.113635.100.6.1.16"
    /// The smallest RSA key accepted.
    package static let minimumRSABits = 2048
    /// The EC curves accepted, by OpenSSL's names.
    package static let curves: Set<String> = ["prime256v1", "secp384r1", "secp521r1", "P-256", "P-384", "P-521"]

    /// One way a certificate misses the profile.
    package typealias Problem = CertificateProfileProblem
    /// The names a signing certificate carries.
    package typealias SignerNames = WalletArchives.SignerNames

    /// The text of a type marker (order or pass): the extension's value must be exactly one DER UTF8String.
    package static func markerText(_ value: [UInt8]) -> String? {
        var reader = DERReader(value)
        guard let element = reader.next(tag: 0x0C), reader.isAtEnd else { return nil }
        return String(validating: value[element.content], as: UTF8.self)
    }

    /// A type marker's value for `orderTypeIdentifier` (or a pass type identifier): one DER UTF8String.
    package static func markerValue(_ orderTypeIdentifier: String) -> [UInt8] {
        let text = Array(orderTypeIdentifier.utf8)
        var length: [UInt8] = []
        var count = text.count
        while count > 0 {
            length.insert(UInt8(count & 0xFF), at: 0)
            count >>= 8
        }
        let header: [UInt8] = text.count < 0x80 ? [UInt8(text.count)] : [0x80 | UInt8(length.count)] + length
        return [0x0C] + header + text
    }

    /// Whether the certificate is a Pass Type ID certificate rather than an Order Type ID one.
    package static func isPassTypeCertificate(_ facts: X509Certificate.ProfileFacts) -> Bool {
        !facts.extendedKeyUsages.contains(orderTypeExtendedKeyUsage)
            && (facts.extendedKeyUsages.contains(passTypeExtendedKeyUsage) || facts.extensionValue(passTypeMarker) != nil)
    }

    /// Every way a signing certificate (whose subject is `subject`) misses the profile.
    package static func problems(of facts: X509Certificate.ProfileFacts, subject: DistinguishedName) -> [Problem] {
        let name = "'\(subject)'"
        var problems: [Problem] = []
        if subject["UID"] == nil {
            problems.append(
                Problem(
                    rule: .signatureSignerUIDMissing,
                    message: "The signing certificate \(name) has no subject UID, so no order type can be bound to it.",
                    hint: "Sign with the Order Type ID certificate Apple issued for the order's orderTypeIdentifier."))
        }
        if isPassTypeCertificate(facts) {
            // One finding for one mistake: a pass certificate also lacks the order EKU and marker.
            let madeByOlderDevCerts = subject["O"] == DevelopmentCertificateAuthority.organization
            problems.append(
                Problem(
                    rule: .certificatePassTypeCertificate,
                    message: madeByOlderDevCerts
                        ? "The signing certificate \(name) is a development certificate in the old, pass-shaped profile (extended key usage \(passTypeExtendedKeyUsage)); Wallet's order policy requires \(orderTypeExtendedKeyUsage) and the order-type marker."
                        : "The signing certificate \(name) is a Pass Type ID certificate: it signs Wallet passes, and orders need an Order Type ID certificate.",
                    hint: madeByOlderDevCerts
                        ? "Make new development certificates (`wallet-orders dev-certs`) and sign again; they carry Apple's Order Type ID profile."
                        : "Create an Order Type ID certificate for the order type in Certificates, Identifiers & Profiles (Certificates → + → Order Type ID Certificate) and sign with it."
                ))
        } else {
            if !facts.extendedKeyUsages.contains(orderTypeExtendedKeyUsage) {
                let present = facts.extendedKeyUsages.isEmpty ? "none" : facts.extendedKeyUsages.joined(separator: ", ")
                problems.append(
                    Problem(
                        rule: .certificateLeafExtendedKeyUsage,
                        message:
                            "The signing certificate \(name) lacks the Order Type ID extended key usage \(orderTypeExtendedKeyUsage) (it has: \(present)).",
                        hint:
                            "Sign with an Order Type ID certificate (Certificates, Identifiers & Profiles); TLS, code-signing and Apple Pay certificates can't sign orders."
                    ))
            }
            if let marker = facts.extensionValue(orderTypeMarker), markerText(marker) == nil {
                problems.append(
                    Problem(
                        rule: .certificateLeafOrderTypeMarker,
                        message: "The signing certificate \(name) has an order-type marker (\(orderTypeMarker)) that is not a UTF8String.",
                        hint: "Apple's Order Type ID certificates name the order type there as a UTF8String; sign with one Apple issued."))
            } else if facts.extensionValue(orderTypeMarker) == nil {
                problems.append(
                    Problem(
                        rule: .certificateLeafOrderTypeMarker,
                        message:
                            "The signing certificate \(name) lacks Apple's order-type marker (extension \(orderTypeMarker) naming the order type).",
                        hint:
                            "Sign with the Order Type ID certificate Apple issued for the order type; for development, make certificates with `wallet-orders dev-certs`."
                    ))
            }
        }
        problems += endEntityProblems(of: facts, name: name, kind: .order)
        return problems
    }

    /// How a signer of `kind` (whose name in messages is `name`) misses what both profiles ask of
    /// the signing certificate itself: an end entity, whose key usage allows digitalSignature,
    /// with a key Apple issues.
    package static func endEntityProblems(of facts: X509Certificate.ProfileFacts, name: String, kind: ArchiveKind)
        -> [CertificateProfileProblem]
    {
        var problems: [CertificateProfileProblem] = []
        let certificate = "\(kind.certificateName) certificate"
        if facts.isCertificateAuthority {
            problems.append(
                Problem(
                    rule: .certificateLeafIsCA,
                    message: "The signing certificate \(name) is a certificate authority (basicConstraints cA: TRUE).",
                    hint: "\(kind.plural.capitalizedFirst) are signed by an end-entity \(certificate), never by a CA certificate."))
        }
        if !facts.allowsDigitalSignature {
            problems.append(
                Problem(
                    rule: .certificateLeafKeyUsage,
                    message: "The signing certificate \(name) has a key usage extension without digitalSignature.",
                    hint: "\(kind == .order ? "An" : "A") \(certificate)'s key usage allows digitalSignature; sign with one."))
        }
        let keyProblem: String? =
            switch facts.keyAlgorithm {
            case .rsa: facts.keyBits >= minimumRSABits ? nil : "an RSA \(facts.keyBits)-bit key (at least \(minimumRSABits) bits are needed)"
            case .ec(let curve): curves.contains(curve) ? nil : "an EC key on \(curve.isEmpty ? "an unnamed curve" : curve)"
            case .other(let algorithm): "a \(algorithm) key"
            }
        if let keyProblem {
            problems.append(
                Problem(
                    rule: .certificateLeafKeyType,
                    message: "The signing certificate \(name) has \(keyProblem).",
                    hint: "Apple issues \(certificate)s with RSA (2,048 bits or more) or EC (P-256, P-384, P-521) keys."))
        }
        return problems
    }

    /// The problem when the intermediate that issued the signer (whose subject is `subject`)
    /// lacks Apple's WWDR marker.
    package static func intermediateProblem(of facts: X509Certificate.ProfileFacts, subject: DistinguishedName) -> Problem? {
        guard facts.extensionValue(intermediateMarker) == nil else { return nil }
        let madeByOlderDevCerts = subject["O"] == DevelopmentCertificateAuthority.organization
        return Problem(
            rule: .certificateIntermediateMarker,
            message: "The intermediate '\(subject)' that issued the signing certificate lacks Apple's WWDR marker (extension \(intermediateMarker)).",
            hint: madeByOlderDevCerts
                ? "It was made by an earlier `wallet-orders dev-certs`: make new development certificates and sign again."
                : "Sign with a certificate issued by Apple's WWDR intermediate (G4), and include that intermediate.")
    }

    /// The problems when the certificate naming `signer` was not issued for `orderTypeIdentifier`:
    /// its order-type marker names another type (`signature.signer-order-type-mismatch`), or its
    /// subject `UID` does (`signature.signer-uid-mismatch`; not repeated when the marker already
    /// said the same). None for a Pass Type ID certificate: one mistake, one finding
    /// (`certificate.pass-type-certificate`, from ``problems(of:subject:)``).
    package static func bindingProblems(of signer: SignerNames, orderTypeIdentifier: String) -> [Problem] {
        guard !signer.isPassTypeCertificate else { return [] }
        var problems: [Problem] = []
        let hint =
            "Wallet binds an order to the certificate of its order type: sign '\(orderTypeIdentifier)' orders with the Order Type ID certificate issued for '\(orderTypeIdentifier)'."
        if let marker = signer.orderTypeMarker, marker != orderTypeIdentifier {
            problems.append(
                Problem(
                    rule: .signatureSignerOrderTypeMismatch,
                    message:
                        "orderTypeIdentifier '\(orderTypeIdentifier)' is not the order type of the signing certificate, whose order-type marker names '\(marker)'.",
                    hint: hint))
        }
        if let uid = signer.uid, uid != orderTypeIdentifier, uid != signer.orderTypeMarker || problems.isEmpty {
            problems.append(
                Problem(
                    rule: .signatureSignerUIDMismatch,
                    message:
                        "orderTypeIdentifier '\(orderTypeIdentifier)' is not the order type of the signing certificate, whose subject UID names '\(uid)'.",
                    hint: hint))
        }
        return problems
    }
}

/// One way a certificate misses a certificate profile.
package struct CertificateProfileProblem: Sendable, Hashable {
    package var rule: ValidationRule
    package var ruleID: String { rule.id }
    package var message: String
    package var hint: String
}

/// What a signing certificate names: the types (subject `UID`, the order-type and pass-type
/// markers) and the team (subject `OU`), and which kind of Type ID certificate it is.
package struct SignerNames: Sendable, Hashable {
    /// The subject `UID`, when there is one.
    package var uid: String?
    /// The subject `OU` (the Team ID on Apple's certificates), when there is one.
    package var organizationalUnit: String?
    /// The order-type marker's value, when it is there and a UTF8String.
    package var orderTypeMarker: String?
    /// The pass-type marker's value, when it is there and a UTF8String.
    package var passTypeMarker: String?
    /// Whether it is a Pass Type ID certificate (``OrderTypeCertificateProfile/isPassTypeCertificate(_:)``).
    package var isPassTypeCertificate: Bool
    /// Whether it is an Order Type ID certificate (``PassTypeCertificateProfile/isOrderTypeCertificate(_:)``).
    package var isOrderTypeCertificate: Bool
    /// Whether it carries the NFC ("enhanced") marker ``PassTypeCertificateProfile/nfcMarker``.
    package var isNFCEnabled: Bool

    package init(
        uid: String?, organizationalUnit: String? = nil, orderTypeMarker: String?, passTypeMarker: String? = nil,
        isPassTypeCertificate: Bool = false, isOrderTypeCertificate: Bool = false, isNFCEnabled: Bool = false
    ) {
        self.uid = uid
        self.organizationalUnit = organizationalUnit
        self.orderTypeMarker = orderTypeMarker
        self.passTypeMarker = passTypeMarker
        self.isPassTypeCertificate = isPassTypeCertificate
        self.isOrderTypeCertificate = isOrderTypeCertificate
        self.isNFCEnabled = isNFCEnabled
    }

    package init(_ facts: X509Certificate.ProfileFacts, subject: DistinguishedName) {
        self.init(
            uid: subject["UID"], organizationalUnit: subject["OU"],
            orderTypeMarker: facts.extensionValue(OrderTypeCertificateProfile.orderTypeMarker).flatMap(OrderTypeCertificateProfile.markerText),
            passTypeMarker: facts.extensionValue(PassTypeCertificateProfile.passTypeMarker).flatMap(OrderTypeCertificateProfile.markerText),
            isPassTypeCertificate: OrderTypeCertificateProfile.isPassTypeCertificate(facts),
            isOrderTypeCertificate: PassTypeCertificateProfile.isOrderTypeCertificate(facts),
            isNFCEnabled: facts.extensionValue(PassTypeCertificateProfile.nfcMarker) != nil)
    }

    /// The order type the certificate was issued for, as people name it.
    package var orderType: String? { orderTypeMarker ?? uid }
    /// The pass type the certificate was issued for, as people name it.
    package var passType: String? { passTypeMarker ?? uid }
}
