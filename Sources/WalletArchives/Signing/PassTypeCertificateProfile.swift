package import WalletOrdersInterop

/// What a Pass Type ID certificate must be for Wallet to accept a pass it signed: Apple's device
/// policy for passes (`SecPolicyCreatePassbookCardSigner(cardIssuer, teamID)` in Security), as
/// the passes specification reads it, checked against real Apple-issued pass certificates.
///
/// The signing certificate:
/// - carries the extended key usage ``passTypeExtendedKeyUsage`` (`1.2.840.113635.100.4.14`);
/// - carries the pass-type marker ``passTypeMarker`` (`1.2.840.113635.100.6.1.16`), a UTF8String
///   that must equal `pass.json`'s `passTypeIdentifier` (the subject `UID` is not what the device
///   compares: a real certificate whose marker and UID disagree is refused);
/// - has the subject `OU` equal to `pass.json`'s `teamIdentifier`;
/// - is an end entity with a key Apple issues (shared with orders,
///   ``OrderTypeCertificateProfile/endEntityProblems(of:name:kind:)``);
/// - for a pass with `nfc` or `personalization.json`, carries the NFC marker ``nfcMarker``.
///
/// Unlike orders, the policy asks nothing of the intermediate (no marker, no chain length): any
/// chain to an Apple root verifies. Not checked here: revocation (Wallet asks OCSP after install).
package enum PassTypeCertificateProfile {
    /// Apple's extended key usage for Pass Type ID certificates ("Apple Passbook signing").
    package static let passTypeExtendedKeyUsage = OrderTypeCertificateProfile.passTypeExtendedKeyUsage
    /// Apple's extension naming the pass type (a UTF8String) on Pass Type ID certificates.
    package static let passTypeMarker = OrderTypeCertificateProfile.passTypeMarker
    /// The marker of NFC-enabled ("enhanced") Pass Type ID certificates.
    package static let nfcMarker = "1.2.840.113635.100.6.1.26"

    /// Whether the certificate is an Order Type ID certificate rather than a Pass Type ID one.
    package static func isOrderTypeCertificate(_ facts: X509Certificate.ProfileFacts) -> Bool {
        !facts.extendedKeyUsages.contains(passTypeExtendedKeyUsage)
            && (facts.extendedKeyUsages.contains(OrderTypeCertificateProfile.orderTypeExtendedKeyUsage)
                || facts.extensionValue(OrderTypeCertificateProfile.orderTypeMarker) != nil)
    }

    /// Every way a signing certificate (whose subject is `subject`) misses the pass profile.
    package static func problems(of facts: X509Certificate.ProfileFacts, subject: DistinguishedName) -> [CertificateProfileProblem] {
        let name = "'\(subject)'"
        var problems: [CertificateProfileProblem] = []
        if isOrderTypeCertificate(facts) {
            // One finding for one mistake: an order certificate also lacks the pass EKU and marker.
            problems.append(
                CertificateProfileProblem(
                    rule: .certificateOrderTypeCertificate,
                    message:
                        "The signing certificate \(name) is an Order Type ID certificate: it signs Wallet orders, and passes need a Pass Type ID certificate.",
                    hint:
                        "Create a Pass Type ID certificate for the pass type in Certificates, Identifiers & Profiles (Certificates → + → Pass Type ID Certificate) and sign with it."
                ))
        } else {
            if !facts.extendedKeyUsages.contains(passTypeExtendedKeyUsage) {
                let present = facts.extendedKeyUsages.isEmpty ? "none" : facts.extendedKeyUsages.joined(separator: ", ")
                problems.append(
                    CertificateProfileProblem(
                        rule: .certificateLeafPassTypeExtendedKeyUsage,
                        message:
                            "The signing certificate \(name) lacks the Pass Type ID extended key usage \(passTypeExtendedKeyUsage) (it has: \(present)).",
                        hint:
                            "Sign with a Pass Type ID certificate (Certificates, Identifiers & Profiles); TLS, code-signing and Apple Pay certificates can't sign passes."
                    ))
            }
            let marker = facts.extensionValue(passTypeMarker)
            if marker == nil || marker.flatMap(OrderTypeCertificateProfile.markerText) == nil {
                problems.append(
                    CertificateProfileProblem(
                        rule: .certificateLeafPassTypeMarker,
                        message: marker == nil
                            ? "The signing certificate \(name) lacks Apple's pass-type marker (extension \(passTypeMarker) naming the pass type)."
                            : "The signing certificate \(name) has a pass-type marker (\(passTypeMarker)) that is not a UTF8String.",
                        hint:
                            "Sign with the Pass Type ID certificate Apple issued for the pass type; for development, make certificates with `wallet-orders dev-certs --pass-type-id`."
                    ))
            }
        }
        problems += OrderTypeCertificateProfile.endEntityProblems(of: facts, name: name, kind: .pass)
        return problems
    }

    /// The device's one message for a pass whose certificate doesn't match it or doesn't chain
    /// (passes specification §2.2, php-pkpass#52).
    package static let deviceMismatchMessage =
        "The passTypeIdentifier or teamIdentifier provided may not match your certificate, or the certificate trust chain could not be verified."

    /// The problems when the certificate naming `signer` was not issued for `passTypeIdentifier`
    /// of `teamIdentifier`: its pass-type marker names another type
    /// (`signature.signer-pass-type-mismatch`), or its subject `OU` another team
    /// (`signature.signer-team-mismatch`). None for an Order Type ID certificate: one mistake,
    /// one finding (`certificate.order-type-certificate`).
    package static func bindingProblems(of signer: SignerNames, passTypeIdentifier: String?, teamIdentifier: String?)
        -> [CertificateProfileProblem]
    {
        guard !signer.isOrderTypeCertificate else { return [] }
        var problems: [CertificateProfileProblem] = []
        if let passTypeIdentifier, let marker = signer.passTypeMarker, marker != passTypeIdentifier {
            let uid = signer.uid.map { $0 == passTypeIdentifier ? " (its subject UID names '\($0)', but Wallet compares the marker)" : "" } ?? ""
            problems.append(
                CertificateProfileProblem(
                    rule: .signatureSignerPassTypeMismatch,
                    message:
                        "passTypeIdentifier '\(passTypeIdentifier)' is not the pass type of the signing certificate, whose pass-type marker names '\(marker)'\(uid). Wallet logs: '\(deviceMismatchMessage)'",
                    hint:
                        "Sign '\(passTypeIdentifier)' passes with the Pass Type ID certificate issued for '\(passTypeIdentifier)', or set passTypeIdentifier to '\(marker)'."
                ))
        }
        if let teamIdentifier, let team = signer.organizationalUnit, team != teamIdentifier {
            problems.append(
                CertificateProfileProblem(
                    rule: .signatureSignerTeamMismatch,
                    message:
                        "teamIdentifier '\(teamIdentifier)' is not the team of the signing certificate, whose subject OU is '\(team)'. Wallet logs: '\(deviceMismatchMessage)'",
                    hint: "Set teamIdentifier to '\(team)', the Team ID of the account that issued the certificate."))
        }
        return problems
    }
}
