public import Foundation
import WalletOrdersJSON

/// Checks everything about a `.pkpass` that makes Wallet accept or refuse it: zip safety, the
/// required files, the SHA-1 manifest against every file, the CMS signature and the certificate
/// chain with Apple's Pass Type ID profile (the container stage orders share), then what
/// `pass.json` binds: the pass type the certificate's marker names, the team its subject `OU`
/// names, the NFC-enabled certificate for a pass with `nfc` or `personalization.json`, and the
/// keys the device requires. It returns every finding, never just the first; where the device's
/// message is known, the finding quotes it.
///
/// Build one (it parses the trust anchors once) and reuse it for any number of passes, from any
/// number of tasks.
public struct PassArchiveVerifier: Sendable {
    /// The container stage, which passes share with orders.
    package var core: ArchiveVerifier

    /// The limits used when opening passes from bytes.
    public var limits: ArchiveLimits {
        get { core.limits }
        set { core.limits = newValue }
    }

    /// The trust anchors, Apple Root CA first when included.
    public var trustAnchors: [CertificateSummary] { core.trustAnchors }

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - additionalTrustAnchors: More root certificates (PEM or DER), for example the root made
    ///     by `wallet-orders dev-certs`.
    ///   - trustAppleRootCA: Whether Apple's root (bundled) is an anchor (default `true`).
    ///   - limits: Zip safety limits (by default ``ArchiveLimits/defaults(for:)``'s for passes).
    /// - Throws: ``WalletOrdersError/Code/invalidTrustAnchor``.
    public init(additionalTrustAnchors: [[UInt8]] = [], trustAppleRootCA: Bool = true, limits: ArchiveLimits? = nil) throws {
        core = try ArchiveVerifier(
            kind: .pass, additionalTrustAnchors: additionalTrustAnchors, trustAppleRootCA: trustAppleRootCA, limits: limits)
    }

    /// Opens and verifies pass bytes; data that isn't a zip gives a one-finding report.
    ///
    /// - Parameters:
    ///   - bytes: The `.pkpass` file.
    ///   - subject: The name the report uses (a path, usually).
    ///   - now: The current time, for the "certificate expired since" warning.
    public func verify(archiveBytes bytes: [UInt8], subject: String, now: Date = Date()) -> ValidationReport {
        switch core.open(bytes, subject: subject) {
        case .archive(let archive): verify(PassArchive(archive), subject: subject, now: now)
        case .notAZip(let report): report
        }
    }

    /// Reads (within ``FileKind/passArchive``'s limit, checked before reading) and verifies the
    /// pass at `path`; a file that can't be read gives a one-finding report.
    public func verify(archiveAt path: String, subject: String? = nil, now: Date = Date()) -> ValidationReport {
        do {
            return verify(archiveBytes: try BoundedFile.read(path, as: .passArchive), subject: subject ?? path, now: now)
        } catch {
            return .unreadable(subject ?? path, error)
        }
    }

    /// Verifies an opened pass: the container, then what `pass.json` binds.
    public func verify(_ pass: PassArchive, subject: String = "pass", now: Date = Date()) -> ValidationReport {
        verify(pass, subject: subject, now: now, readingPassJSON: true)
    }

    /// The container, then what `pass.json` binds; with `readingPassJSON`, also what reading
    /// `pass.json` finds (its JSON problems, the keys Wallet requires), which validation reports
    /// from its own reading otherwise.
    package func verify(_ pass: PassArchive, subject: String, now: Date, readingPassJSON: Bool) -> ValidationReport {
        var (report, signer) = core.verifyContainer(pass.archive, subject: subject, now: now)
        guard let bytes = pass.contents(of: PassArchive.passPath) else { return report }
        let file = PassArchive.passPath
        switch PassIdentity.read(bytes) {
        case .unreadable where !readingPassJSON:
            break
        case .unreadable(let problem):
            report.add(
                .passInvalid, "pass.json is not a JSON object Wallet can read: \(problem.message).",
                at: .init(file: file, jsonPointer: problem.pointer, line: problem.position.line, column: problem.position.column),
                hint: "Fix pass.json: validating the pass shows each problem in place.")
        case .identity(let identity):
            if readingPassJSON {
                report.diagnostics += JSONFindings.findings(identity.problems, in: file)
                report.diagnostics += Self.identityFindings(identity)
            }
            if let signer {
                report.diagnostics += Self.bindingFindings(
                    signer: signer.signerNames, identity: identity,
                    hasPersonalization: pass.contents(of: PassArchive.personalizationPath) != nil)
            }
        }
        return report
    }

    /// The keys the device requires (`pass.missing-key`), each with the device's message.
    static func identityFindings(_ identity: PassIdentity) -> [Diagnostic] {
        identity.missingKeys.map { key in
            Diagnostic(
                .passMissingKey, "pass.json has no '\(key)'. Wallet logs: 'Pass dictionary must contain key '\(key)'.'",
                at: .init(file: PassArchive.passPath, jsonPointer: ""),
                hint: "Add '\(key)' at the top level of pass.json; Wallet requires \(PassIdentity.requiredKeys.joined(separator: ", ")).")
        }
    }

    /// The binding of pass to certificate: the pass-type marker must name `passTypeIdentifier`
    /// (`signature.signer-pass-type-mismatch`), the subject `OU` `teamIdentifier`
    /// (`signature.signer-team-mismatch`), and a pass with `nfc` or `personalization.json` needs
    /// the NFC-enabled certificate (`certificate.nfc-certificate-required`).
    static func bindingFindings(signer: SignerNames, identity: PassIdentity, hasPersonalization: Bool) -> [Diagnostic] {
        let file = PassArchive.passPath
        var findings = PassTypeCertificateProfile.bindingProblems(
            of: signer, passTypeIdentifier: identity.passTypeIdentifier, teamIdentifier: identity.teamIdentifier
        ).map { problem in
            let key = problem.rule == .signatureSignerTeamMismatch ? "teamIdentifier" : "passTypeIdentifier"
            let position = identity.keyPosition(of: key)
            return Diagnostic(
                problem.rule, problem.message,
                at: .init(file: file, jsonPointer: "/" + key, line: position?.line, column: position?.column), hint: problem.hint)
        }
        if (identity.hasNFC || hasPersonalization) && !signer.isNFCEnabled && !signer.isOrderTypeCertificate {
            let what = identity.hasNFC ? "an nfc dictionary" : "a personalization.json"
            let position = identity.keyPosition(of: "nfc")
            findings.append(
                Diagnostic(
                    .certificateNFCRequired,
                    "The pass has \(what), but its signing certificate is not NFC-enabled (no extension \(PassTypeCertificateProfile.nfcMarker)). Wallet logs: 'Passes with an NFC dictionary or a Personalization JSON file must be signed with an enhanced Passbook certificate.'",
                    at: identity.hasNFC
                        ? .init(file: file, jsonPointer: "/nfc", line: position?.line, column: position?.column)
                        : .init(file: PassArchive.personalizationPath),
                    hint:
                        "Sign with the NFC-enabled Pass Type ID certificate Apple issues once it grants the NFC entitlement, or remove nfc and personalization.json."
                ))
        }
        return findings
    }
}
