import WalletOrdersInterop

/// What an Order Type ID certificate must be for Wallet to bind an order to it: the rules the
/// verifier applies to the signer of every archive and ``SigningIdentity`` to the certificate it
/// loads, so that we never sign what we would refuse.
///
/// - The subject `UID` names the order type (spec §2.2: Apple's type-ID certificates carry the
///   type identifier there), and it must equal `order.json`'s `orderTypeIdentifier` (checked
///   where the order is known: ``OrderTypeCertificateProfile/bindingProblem(signerUID:orderTypeIdentifier:)``).
///   Without this, any merchant's certificate issued by the same WWDR intermediate could sign,
///   and replace, another merchant's orders.
/// - The extended key usage includes Apple's type-ID signing purpose
///   (``OrderTypeCertificateProfile/extendedKeyUsage``, the purpose Apple's Security framework
///   requires of Wallet signers; spec §2.2). A TLS, code-signing or Apple Pay certificate lacks it.
/// - It is an end-entity certificate (no `basicConstraints cA: TRUE`), and when it has a key
///   usage extension, that includes digitalSignature.
/// - The key is one Apple issues: RSA of at least 2,048 bits (what Certificates, Identifiers &
///   Profiles issues today) or EC on P-256, P-384 or P-521.
///
/// A Pass Type ID certificate carries the same purpose; what keeps it from signing orders is its
/// `UID` (`pass.…`), which never equals an `orderTypeIdentifier` (`order.…`).
enum OrderTypeCertificateProfile {
    /// Apple's extended key usage for Wallet type-ID signing certificates.
    static let extendedKeyUsage = "1.2.840.113635.100.4.14"
    /// The smallest RSA key accepted.
    static let minimumRSABits = 2048
    /// The EC curves accepted, by OpenSSL's names.
    static let curves: Set<String> = ["prime256v1", "secp384r1", "secp521r1", "P-256", "P-384", "P-521"]

    /// One way a certificate misses the profile.
    struct Problem: Sendable, Hashable {
        var rule: ValidationRule
        var ruleID: String { rule.id }
        var message: String
        var hint: String
    }

    /// Every way `certificate` (whose subject is `subject` and `UID` `uid`) misses the profile.
    static func problems(of facts: X509Certificate.ProfileFacts, subject: DistinguishedName) -> [Problem] {
        let name = "'\(subject)'"
        var problems: [Problem] = []
        if subject["UID"] == nil {
            problems.append(
                Problem(
                    rule: .signatureSignerUIDMissing,
                    message: "The signing certificate \(name) has no subject UID, so no order type can be bound to it.",
                    hint: "Sign with the Order Type ID certificate Apple issued for the order's orderTypeIdentifier."))
        }
        if !facts.extendedKeyUsages.contains(extendedKeyUsage) {
            let present = facts.extendedKeyUsages.isEmpty ? "none" : facts.extendedKeyUsages.joined(separator: ", ")
            problems.append(
                Problem(
                    rule: .certificateLeafExtendedKeyUsage,
                    message: "The signing certificate \(name) lacks the Order Type ID extended key usage \(extendedKeyUsage) (it has: \(present)).",
                    hint: "Sign with an Order Type ID certificate (Certificates, Identifiers & Profiles); TLS, code-signing and Apple Pay certificates can't sign orders."))
        }
        if facts.isCertificateAuthority {
            problems.append(
                Problem(
                    rule: .certificateLeafIsCA,
                    message: "The signing certificate \(name) is a certificate authority (basicConstraints cA: TRUE).",
                    hint: "Orders are signed by an end-entity Order Type ID certificate, never by a CA certificate."))
        }
        if !facts.allowsDigitalSignature {
            problems.append(
                Problem(
                    rule: .certificateLeafKeyUsage,
                    message: "The signing certificate \(name) has a key usage extension without digitalSignature.",
                    hint: "An Order Type ID certificate's key usage allows digitalSignature; sign with one."))
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
                    hint: "Apple issues Order Type ID certificates with RSA (2,048 bits or more) or EC (P-256, P-384, P-521) keys."))
        }
        return problems
    }

    /// The problem when the signer's `UID` is not the order's `orderTypeIdentifier`.
    static func bindingProblem(signerUID: String, orderTypeIdentifier: String) -> Problem? {
        guard signerUID != orderTypeIdentifier else { return nil }
        return Problem(
            rule: .signatureSignerUIDMismatch,
            message: "orderTypeIdentifier '\(orderTypeIdentifier)' is not the order type of the signing certificate, which was issued for '\(signerUID)'.",
            hint: "Wallet binds an order to the certificate of its order type: sign '\(orderTypeIdentifier)' orders with the Order Type ID certificate issued for '\(orderTypeIdentifier)'.")
    }
}
