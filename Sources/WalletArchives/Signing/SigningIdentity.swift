public import Foundation
package import WalletOrdersInterop

/// A Type ID certificate (Order Type ID or Pass Type ID, ``kind``), its private key and the Apple
/// WWDR intermediate that issued it: everything needed to sign orders or passes.
///
/// Load it once and sign any number of archives with it, from any number of tasks: it is an
/// immutable `Sendable` value, and parsing (the slow part of key loading) happens only here.
///
/// Loading checks, each with an error that says what to do:
/// - the key belongs to the certificate (``WalletOrdersError/Code/keyCertificateMismatch``);
/// - the certificate and the intermediate are valid at the given date
///   (``WalletOrdersError/Code/certificateNotValid``);
/// - the intermediate really issued the certificate, naming both issuers when not, as in a
///   G1/G4 mix-up (``WalletOrdersError/Code/intermediateMismatch``).
public struct SigningIdentity: Sendable {
    /// What the identity signs: orders (an Order Type ID certificate) or passes (a Pass Type ID one).
    public let kind: ArchiveKind
    package let certificate: X509Certificate
    package let privateKey: PrivateKey
    package let intermediate: X509Certificate
    /// The certificates, signer identifier and algorithms encoded once, for RSA keys (`nil` for
    /// other keys, which sign through OpenSSL's CMS functions).
    package let preparedSigner: PreparedCMSSigner?
    /// The order types the certificate names (subject `UID`, order-type marker), read once.
    package let signerNames: SignerNames
    /// Validity periods, read once: notBefore and notAfter of the certificate, then the intermediate.
    package let validity: [Date]

    /// The signing certificate.
    public var certificateSummary: CertificateSummary { CertificateSummary(certificate) }
    /// The intermediate certificate that goes into every signature next to the signing certificate.
    public var intermediateSummary: CertificateSummary { CertificateSummary(intermediate) }
    /// The order type identifier the certificate was issued for (its order-type marker, which
    /// the profile requires to agree with its subject `UID`).
    public var orderTypeIdentifier: String? { kind == .order ? signerNames.orderType : nil }
    /// The pass type identifier the certificate was issued for (its pass-type marker).
    public var passTypeIdentifier: String? { kind == .pass ? signerNames.passType : nil }
    /// The type identifier the certificate was issued for, of either kind.
    public var typeIdentifier: String? { orderTypeIdentifier ?? passTypeIdentifier }
    /// Whether the certificate is NFC-enabled (passes with `nfc` or `personalization.json` need one).
    public var isNFCEnabled: Bool { signerNames.isNFCEnabled }
    /// The Team ID (the subject `OU`), if present.
    public var teamIdentifier: String? { certificate.subject["OU"] }

    /// Loads an identity from a certificate and a private key in PEM (or DER), plus the intermediate.
    ///
    /// - Parameters:
    ///   - certificate: The Order Type ID certificate, PEM or DER. A PEM file holding the chain
    ///     (certificate first) also works; the next certificates serve as intermediate candidates.
    ///   - privateKey: The private key, PEM (PKCS #8 or PKCS #1, encrypted or not) or DER.
    ///   - passphrase: The key's passphrase, when it is encrypted.
    ///   - intermediate: The Apple WWDR intermediate (PEM or DER). `nil` to take it from `certificate`.
    ///   - date: The date at which the certificates must be valid (default: now).
    ///   - kind: What the certificate signs: orders (default) or passes; its profile is checked.
    public init(
        certificate: [UInt8], privateKey: [UInt8], passphrase: String? = nil, intermediate: [UInt8]?,
        validAt date: Date = Date(), for kind: ArchiveKind = .order
    ) throws {
        let certificates = try CertificateLoading.certificates(certificate, role: "signing certificate")
        let key: PrivateKey
        do {
            key = try PrivateKey(bytes: privateKey, passphrase: passphrase.map { Array($0.utf8) })
        } catch {
            if PrivateKey.isEncryptedPEM(privateKey) && passphrase == nil {
                throw WalletOrdersError(
                    .passphraseRequired, "The private key is encrypted and no passphrase was given.",
                    hint: "Give the passphrase that decrypts the key.",
                    underlying: error)
            }
            if error.isWrongPassphrase || PrivateKey.isEncryptedPEM(privateKey) {
                throw WalletOrdersError(
                    .wrongPassphrase, "The passphrase does not decrypt the private key.",
                    hint: "Check the passphrase; `openssl pkey -in KEY -noout` asks for it and says whether it works.",
                    underlying: error)
            }
            throw WalletOrdersError(
                .invalidPrivateKey, "The private key is not a PEM or DER private key.",
                hint: "Export the key as PEM (`openssl pkcs12 -in cert.p12 -nocerts -out key.pem`), or use the .p12 directly.",
                underlying: error)
        }
        let extra = try intermediate.map { bytes throws in
            try CertificateLoading.certificates(bytes, role: "WWDR intermediate certificate")
        }
        try self.init(
            certificate: certificates[0], privateKey: key,
            intermediateCandidates: (extra ?? []) + certificates.dropFirst(),
            validAt: date, for: kind)
    }

    /// Loads an identity from a PKCS #12 (`.p12`) file as Keychain Access exports it, including
    /// legacy RC2/3DES-encrypted ones, plus the intermediate.
    ///
    /// - Parameters:
    ///   - pkcs12: The `.p12` bytes.
    ///   - passphrase: The export passphrase (may be empty).
    ///   - intermediate: The Apple WWDR intermediate (PEM or DER). `nil` to use one inside the `.p12`.
    ///   - date: The date at which the certificates must be valid (default: now).
    ///   - kind: What the certificate signs: orders (default) or passes; its profile is checked.
    public init(
        pkcs12: [UInt8], passphrase: String, intermediate: [UInt8]?, validAt date: Date = Date(), for kind: ArchiveKind = .order
    ) throws {
        let contents: PKCS12.Contents
        do {
            contents = try PKCS12.parse(pkcs12, passphrase: passphrase)
        } catch {
            if error.isWrongPassphrase {
                throw WalletOrdersError(
                    .wrongPassphrase, "The passphrase does not open the .p12 file.",
                    hint: "Use the passphrase chosen when exporting from Keychain Access (it may be empty).",
                    underlying: error)
            }
            throw WalletOrdersError(
                .invalidPKCS12, "The file is not a readable PKCS #12 (.p12) file: \(error.context).",
                hint: "Export the certificate with its private key from Keychain Access as 'Personal Information Exchange (.p12)'.",
                underlying: error)
        }
        let extra = try intermediate.map { bytes throws in
            try CertificateLoading.certificates(bytes, role: "WWDR intermediate certificate")
        }
        try self.init(
            certificate: contents.certificate, privateKey: contents.privateKey,
            intermediateCandidates: (extra ?? []) + contents.otherCertificates,
            validAt: date, for: kind)
    }

    /// Reads the files and loads an identity from a certificate and key.
    public static func load(
        certificateFile: URL, privateKeyFile: URL, passphrase: PassphraseSource? = nil, intermediateFile: URL?,
        validAt date: Date = Date(), for kind: ArchiveKind = .order
    ) throws -> SigningIdentity {
        let certificate = try CertificateLoading.readFile(certificateFile, role: "signing certificate")
        let key = try CertificateLoading.readFile(privateKeyFile, role: "private key")
        let intermediate = try intermediateFile.map { url throws in
            try CertificateLoading.readFile(url, role: "WWDR intermediate certificate")
        }
        let secret: String? =
            try (passphrase.map { source throws in try source.resolve() })
        return try SigningIdentity(
            certificate: certificate, privateKey: key, passphrase: secret, intermediate: intermediate, validAt: date, for: kind)
    }

    /// Reads the files and loads an identity from a `.p12`.
    public static func load(
        pkcs12File: URL, passphrase: PassphraseSource, intermediateFile: URL?, validAt date: Date = Date(),
        for kind: ArchiveKind = .order
    ) throws -> SigningIdentity {
        let p12 = try CertificateLoading.readFile(pkcs12File, role: ".p12 file")
        let intermediate = try intermediateFile.map { url throws in
            try CertificateLoading.readFile(url, role: "WWDR intermediate certificate")
        }
        return try SigningIdentity(
            pkcs12: p12, passphrase: try passphrase.resolve(), intermediate: intermediate, validAt: date, for: kind)
    }

    /// Whether `bytes` hold an encrypted PEM private key, so a passphrase will be needed.
    public static func isEncryptedPrivateKey(_ bytes: [UInt8]) -> Bool {
        PrivateKey.isEncryptedPEM(bytes)
    }

    package init(
        certificate: X509Certificate, privateKey: PrivateKey, intermediateCandidates: [X509Certificate],
        validAt date: Date, for kind: ArchiveKind = .order
    ) throws {
        guard certificate.matches(privateKey) else {
            throw WalletOrdersError(
                .keyCertificateMismatch,
                "The private key does not belong to the certificate '\(certificate.subject)'.",
                hint: "Use the key generated with the certificate's signing request (both come out of the same .p12 export).")
        }
        let facts = certificate.profileFacts
        switch kind {
        case .order: try Self.refuse(OrderTypeCertificateProfile.problems(of: facts, subject: certificate.subject), kind: kind)
        case .pass: try Self.refuse(PassTypeCertificateProfile.problems(of: facts, subject: certificate.subject), kind: kind)
        }
        try Self.checkValidity(certificate, role: "signing certificate", at: date)
        guard let first = intermediateCandidates.first else {
            throw WalletOrdersError(
                .intermediateMissing, "No WWDR intermediate certificate was given.",
                hint: "Give Apple's WWDR intermediate that issued the certificate (issuer: \(certificate.issuer)), such as AppleWWDRCAG4.cer.")
        }
        guard let issuer = intermediateCandidates.first(where: { certificate.isIssued(by: $0) }) else {
            let given = first
            let sameName = given.subject == certificate.issuer
            throw WalletOrdersError(
                .intermediateMismatch,
                sameName
                    ? "The intermediate '\(given.subject)' has the right name but not the key that signed the signing certificate."
                    : "The intermediate '\(given.subject)' did not issue the signing certificate, whose issuer is '\(certificate.issuer)'.",
                hint: sameName
                    ? "Two different CAs carry this name; use the intermediate that came with the certificate (compare `openssl x509 -noout -ext authorityKeyIdentifier` of the certificate with the intermediate's subjectKeyIdentifier)."
                    : Self.generationHint(certificateIssuer: certificate.issuer, given: given.subject))
        }
        if kind == .order {
            try Self.refuse(
                OrderTypeCertificateProfile.intermediateProblem(of: issuer.profileFacts, subject: issuer.subject).map { [$0] } ?? [],
                kind: kind)
        }
        try Self.checkValidity(issuer, role: "WWDR intermediate certificate", at: date)
        self.kind = kind
        self.certificate = certificate
        self.privateKey = privateKey
        self.intermediate = issuer
        self.preparedSigner = PreparedCMSSigner(certificate: certificate, privateKey: privateKey, additionalCertificates: [issuer])
        self.signerNames = SignerNames(facts, subject: certificate.subject)
        self.validity = [certificate.notBefore, certificate.notAfter, issuer.notBefore, issuer.notAfter]
    }

    /// Throws ``WalletOrdersError/Code/certificateProfile`` naming each problem with its rule id:
    /// Wallet would refuse every archive of `kind` signed with such a certificate.
    private static func refuse(_ problems: [CertificateProfileProblem], kind: ArchiveKind) throws {
        guard let first = problems.first else { return }
        throw WalletOrdersError(
            .certificateProfile,
            problems.count == 1
                ? "\(first.message) Wallet would refuse every \(kind.noun) it signs (\(first.ruleID))."
                : "The signing certificate can't sign \(kind.plural):\n" + problems.map { "  \($0.ruleID): \($0.message)" }.joined(separator: "\n"),
            hint: first.hint)
    }

    /// Throws ``WalletOrdersError/Code/certificateNotValid`` unless both certificates are valid at `date`.
    package func checkValidity(at date: Date) throws {
        guard validity[0] <= date, date <= validity[1], validity[2] <= date, date <= validity[3] else {
            try Self.checkValidity(certificate, role: "signing certificate", at: date)
            try Self.checkValidity(intermediate, role: "WWDR intermediate certificate", at: date)
            return
        }
    }

    package static func checkValidity(_ certificate: X509Certificate, role: String, at date: Date) throws {
        if date > certificate.notAfter {
            let formatter = ISO8601DateFormatter()
            throw WalletOrdersError(
                .certificateNotValid,
                "The \(role) '\(certificate.subject)' expired on \(formatter.string(from: certificate.notAfter)).",
                hint: role.hasPrefix("WWDR")
                    ? "Download the current WWDR intermediate from https://www.apple.com/certificateauthority/."
                    : "Create a new Order Type ID certificate in Certificates, Identifiers & Profiles and export it again.")
        }
        if date < certificate.notBefore {
            let formatter = ISO8601DateFormatter()
            throw WalletOrdersError(
                .certificateNotValid,
                "The \(role) '\(certificate.subject)' is not valid until \(formatter.string(from: certificate.notBefore)).",
                hint: "Check the machine's clock, or the signing time you asked for.")
        }
    }

    private static func generationHint(certificateIssuer: DistinguishedName, given: DistinguishedName) -> String {
        let wanted = certificateIssuer["OU"].map { " (generation \($0))" } ?? ""
        let have = given["OU"].map { " (generation \($0))" } ?? ""
        if certificateIssuer["CN"] == given["CN"], wanted != have {
            return
                "The WWDR generations differ: the certificate needs\(wanted), you gave\(have). Download the right one from https://www.apple.com/certificateauthority/."
        }
        return "Pass the intermediate whose subject is '\(certificateIssuer)'."
    }

    /// Throws ``WalletOrdersError/Code/orderTypeMismatch`` unless this identity's certificate was
    /// issued for `orderTypeIdentifier` (its order-type marker and subject `UID`): Wallet binds an
    /// order to the certificate of its order type, so an archive signed otherwise would be refused.
    public func checkCanSign(orderTypeIdentifier: String) throws {
        guard kind == .order else {
            throw WalletOrdersError(
                .orderTypeMismatch,
                "The signing certificate '\(certificate.subject)' is a Pass Type ID certificate: it signs passes, not orders.",
                hint: "Sign orders with the Order Type ID certificate issued for '\(orderTypeIdentifier)'.")
        }
        let problems = OrderTypeCertificateProfile.bindingProblems(of: signerNames, orderTypeIdentifier: orderTypeIdentifier)
        guard let first = problems.first else { return }
        throw WalletOrdersError(
            .orderTypeMismatch, problems.map { "\($0.message) (\($0.ruleID))" }.joined(separator: " "), hint: first.hint)
    }

    /// Throws ``WalletOrdersError/Code/passTypeMismatch`` unless this identity's certificate was
    /// issued for `passTypeIdentifier` (its pass-type marker) of the team `teamIdentifier` (its
    /// subject `OU`): Wallet refuses a pass signed otherwise.
    public func checkCanSign(passTypeIdentifier: String, teamIdentifier: String?) throws {
        guard kind == .pass else {
            throw WalletOrdersError(
                .passTypeMismatch,
                "The signing certificate '\(certificate.subject)' is an Order Type ID certificate: it signs orders, not passes.",
                hint: "Sign passes with the Pass Type ID certificate issued for '\(passTypeIdentifier)'.")
        }
        let problems = PassTypeCertificateProfile.bindingProblems(
            of: signerNames, passTypeIdentifier: passTypeIdentifier, teamIdentifier: teamIdentifier)
        guard let first = problems.first else { return }
        throw WalletOrdersError(
            .passTypeMismatch, problems.map { "\($0.message) (\($0.ruleID))" }.joined(separator: " "), hint: first.hint)
    }

    /// The `signature` file for `manifest`: a detached CMS signature (DER, SHA-256, RSA PKCS #1
    /// v1.5) of exactly these bytes, with the signingTime attribute and the certificate and
    /// intermediate embedded, as ``OrderArchiveBuilder`` writes it.
    ///
    /// For pipelines that assemble archives themselves; the builder is simpler otherwise.
    ///
    /// - Throws: ``WalletOrdersError/Code/signingFailed``.
    public func detachedSignature(of manifest: [UInt8], signingTime: Date = Date()) throws -> [UInt8] {
        try sign(manifest, signingTime: signingTime)
    }

    /// Signs `content` (the exact `manifest.json` bytes): detached CMS, DER, SHA-256, with signingTime.
    package func sign(_ content: [UInt8], signingTime: Date) throws -> [UInt8] {
        do {
            if let preparedSigner, let signature = try preparedSigner.sign(content, signingTime: signingTime) {
                return signature
            }
            return try CMSSigner.signDetached(
                content, certificate: certificate, privateKey: privateKey, additionalCertificates: [intermediate],
                signingTime: signingTime)
        } catch {
            throw WalletOrdersError(.signingFailed, "Signing the manifest failed: \(error)", underlying: error)
        }
    }
}
