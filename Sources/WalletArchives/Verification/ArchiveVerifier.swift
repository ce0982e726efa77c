package import Foundation
package import WalletOrdersInterop
import WalletOrdersJSON

/// The container stage of verification, for either kind of archive (``ArchiveKind``): zip
/// safety, the required files, the manifest against every file, the CMS signature and the
/// certificate chain with the kind's certificate profile. It returns every finding, never just
/// the first. `OrderArchiveVerifier` and `PassArchiveVerifier` own one each and add what their
/// content file binds (the type identifier, the team, the NFC certificate).
///
/// Build one (it parses the trust anchors once) and reuse it for any number of archives, from
/// any number of tasks.
package struct ArchiveVerifier: Sendable {
    /// The kind of archive verified.
    package let kind: ArchiveKind
    package let trustStore: X509TrustStore
    /// Certificates, issuer checks and chain verdicts already worked out (shared by copies).
    package let cache = VerificationCache()
    /// The trust store's anchors as cache entries (their validity dates key chain verdicts).
    package let anchors: [KnownCertificate]
    /// The limits used when opening archives from bytes.
    package var limits: ArchiveLimits

    /// The trust anchors, Apple Root CA first when included.
    package var trustAnchors: [CertificateSummary] { trustStore.anchors.map(CertificateSummary.init) }

    /// Creates a verifier for archives of `kind`.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidTrustAnchor``.
    package init(
        kind: ArchiveKind, additionalTrustAnchors: [[UInt8]] = [], trustAppleRootCA: Bool = true, limits: ArchiveLimits? = nil
    ) throws {
        self.kind = kind
        var anchors: [X509Certificate] = trustAppleRootCA ? [BundledCertificates.appleRootCA] : []
        for bytes in additionalTrustAnchors {
            do {
                anchors += try X509Certificate.parse(bytes)
            } catch {
                throw WalletOrdersError(
                    .invalidTrustAnchor, "A trust anchor is not a PEM or DER certificate.",
                    hint: "Pass the root certificate file (for dev-certs: root-ca.pem).", underlying: error)
            }
        }
        do {
            trustStore = try X509TrustStore(anchors: anchors)
        } catch {
            throw WalletOrdersError(.invalidTrustAnchor, "Building the trust store failed: \(error)", underlying: error)
        }
        self.anchors = anchors.map(cache.certificate)
        self.limits = limits ?? .defaults(for: kind)
    }

    /// Archive bytes opened, or the one-finding report of data that is not a zip.
    package enum Opened {
        case archive(SignedArchive)
        case notAZip(ValidationReport)
    }

    /// Opens archive bytes as this verifier's kind.
    package func open(_ bytes: [UInt8], subject: String) -> Opened {
        do {
            return .archive(try SignedArchive(bytes: bytes, kind: kind, limits: limits))
        } catch {
            var report = ValidationReport(subject: subject)
            let failure = WalletOrdersError.wrapping(error)
            report.add(.zipUnreadable, failure.message, hint: failure.hint)
            return .notAZip(report)
        }
    }

    /// The container stage, which every verification and validation starts with: the zip's
    /// findings, the three required files, the bundle size, the manifest against every file, and
    /// the signature with its certificate profile and chain. Gives the report and the order types
    /// the signing certificate names (what it may sign), when the signature carries one.
    package func verifyContainer(_ archive: SignedArchive, subject: String, now: Date)
        -> (ValidationReport, signer: KnownCertificate?)
    {
        var report = ValidationReport(subject: subject, diagnostics: archive.readingDiagnostics, kind: kind)
        let entryPaths = Set(archive.entries.map(\.path))
        for required in kind.requiredPaths where archive.contents(of: required) == nil && !entryPaths.contains(required) {
            report.diagnostics.append(
                Self.missingRootFile(required, kind: kind, nestedAt: archive.entries.first { $0.path.hasSuffix("/" + required) }?.path))
        }
        if kind == .order { checkBundleSize(archive, into: &report) }
        checkManifest(archive, into: &report)
        let signer = checkSignature(archive, now: now, into: &report)
        return (report, signer)
    }

    /// The one `archive.missing-file` finding: `path` is not at the root (and was found at
    /// `nested`, when a wrapper folder holds it).
    package static func missingRootFile(_ path: String, kind: ArchiveKind, nestedAt nested: String?) -> Diagnostic {
        // The device's words for a pass without its signature (node-passbook#23).
        let device = kind == .pass && path == ArchiveKind.signaturePath ? " Wallet logs: 'Signature is missing'." : ""
        return Diagnostic(
            .archiveMissingFile, "There is no '\(path)' at the root of the \(kind.noun).\(device)", at: .init(file: path),
            hint: nested.map {
                "Found '\($0)': zip the folder's contents, not the folder itself, so '\(path)' sits at the root."
            } ?? "\(kind.contentPath), manifest.json and signature sit at the top level; building the \(kind.noun) writes all three.")
    }

    private func checkBundleSize(_ archive: SignedArchive, into report: inout ValidationReport) {
        var sizes: [String: Int] = [:]
        for path in archive.filePaths { sizes[path] = archive.contents(of: path)?.count ?? 0 }
        if let finding = ArchiveLimits.BundleSize(sizes).finding { report.diagnostics.append(finding) }
    }

    // MARK: - Manifest

    private func checkManifest(_ archive: SignedArchive, into report: inout ValidationReport) {
        guard let bytes = archive.contents(of: ArchiveKind.manifestPath) else { return }
        let file = ArchiveKind.manifestPath
        let algorithm = kind.manifestHash
        let manifest: Manifest
        do {
            manifest = try Manifest(jsonBytes: bytes)
        } catch {
            report.add(
                .manifestInvalidJSON, "manifest.json is not a JSON object of strings: \(DecodingErrorText.describe(error)).",
                at: .init(file: file), hint: "Write a JSON object mapping each path to its \(algorithm.rawValue) hex digest (no trailing commas).")
            return
        }
        let readable = Set(archive.filePaths)
        let present = Set(archive.entries.filter { !$0.isDirectory }.map(\.path))
        for path in manifest.hashes.keys.sorted() {
            let hash = manifest.hashes[path] ?? ""
            let location = Diagnostic.Location(file: file, jsonPointer: "/" + JSONPointer.escape(path))
            if Manifest.excludedPaths.contains(path) {
                report.add(
                    .manifestListsExcludedFile, "manifest.json lists '\(path)', which it must not hash.",
                    at: location, hint: "Leave manifest.json and signature out of the manifest.")
                continue
            }
            guard algorithm.isLowercaseHex(hash) else {
                checkUnusualHash(hash, for: path, algorithm: algorithm, in: archive, at: location, into: &report)
                continue
            }
            if readable.contains(path) {
                compare(hash, with: algorithm, for: path, in: archive, at: location, into: &report)
            } else if !present.contains(path) {
                report.add(
                    .manifestExtraEntry, "manifest.json lists '\(path)', which is not in the archive.",
                    at: location, hint: "Add the file or remove it from the manifest, and sign again.")
            }
        }
        for path in readable.sorted() where !Manifest.excludedPaths.contains(path) && manifest.hashes[path] == nil {
            // The device's words for a pass (passkit-generator#207).
            let device = kind == .pass ? " Wallet logs: 'No entry in manifest for file \(path)'." : ""
            report.add(
                .manifestMissingEntry, "'\(path)' is in the archive but not in manifest.json.\(device)",
                at: .init(file: path), hint: "Every file except manifest.json and signature must be hashed; rebuild the manifest.")
        }
    }

    /// A manifest value that is not a lowercase hex digest of the kind's algorithm: the other
    /// algorithm's length, upper case, or no digest at all.
    private func checkUnusualHash(
        _ hash: String, for path: String, algorithm: Manifest.HashAlgorithm, in archive: SignedArchive, at location: Diagnostic.Location,
        into report: inout ValidationReport
    ) {
        let isHex = hash.allSatisfy(\.isHexDigit)
        if kind == .order, hash.count == 40, isHex {
            report.add(
                .manifestSHA1Hash, "The hash for '\(path)' has 40 hex digits (SHA-1); orders use SHA-256.",
                at: location, hint: "Hash every file with SHA-256 (64 lowercase hex digits); Apple's example manifest is wrong.")
        } else if kind == .pass, hash.count == 64, isHex {
            report.add(
                .manifestSHA256Hash,
                "The hash for '\(path)' has 64 hex digits (SHA-256); Apple documents SHA-1 for passes, and no pass with a SHA-256 manifest is known to install.",
                at: location, hint: "Hash every file with SHA-1 (40 lowercase hex digits), as Apple's own pass builder does.")
            compare(hash.lowercased(), with: .sha256, for: path, in: archive, at: location, into: &report)
        } else if hash.count == algorithm.hexLength, isHex {
            report.add(
                .manifestUppercaseHash, "The hash for '\(path)' uses uppercase hex digits.",
                at: location, hint: "Write hashes in lowercase hex, as every known implementation does.")
            compare(hash.lowercased(), with: algorithm, for: path, in: archive, at: location, into: &report)
        } else {
            report.add(
                .manifestInvalidHash, "The value for '\(path)' is not a\(algorithm == .sha1 ? "n" : "") \(algorithm.rawValue) hex digest: '\(hash)'.",
                at: location, hint: "Each value must be \(algorithm.hexLength) lowercase hex digits.")
        }
    }

    private func compare(
        _ expected: String, with algorithm: Manifest.HashAlgorithm, for path: String, in archive: SignedArchive,
        at location: Diagnostic.Location, into report: inout ValidationReport
    ) {
        guard let bytes = archive.contents(of: path) else { return }
        let actual = algorithm.hexHash(bytes)
        if actual != expected {
            report.add(
                .manifestHashMismatch, "'\(path)' does not match its manifest hash (manifest \(expected.prefix(12))…, file \(actual.prefix(12))…).",
                at: .init(file: path),
                hint:
                    "The file changed after the manifest was written (a common cause: re-serializing \(kind.contentPath) after hashing). Rebuild the archive."
            )
        }
    }

    // MARK: - Signature and chain

    /// Checks the signature and chain; returns the signer certificate when it was found.
    private func checkSignature(_ archive: SignedArchive, now: Date, into report: inout ValidationReport) -> KnownCertificate? {
        guard let bytes = archive.contents(of: ArchiveKind.signaturePath) else { return nil }
        if let manifestBytes = archive.contents(of: ArchiveKind.manifestPath),
            let signer = checkWellFormedSignature(bytes, of: manifestBytes, now: now, into: &report)
        {
            return signer
        }
        return checkSignatureInGeneral(bytes, in: archive, now: now, into: &report)
    }

    /// Where the certificates sit in a SignedData signature: the tags of the elements around each
    /// one (ContentInfo, its `[0]`, SignedData, `certificates [0]`).
    static let certificatesPath: [UInt8] = [0x30, 0xA0, 0x30, 0xA0]

    /// The general path: OpenSSL's CMS parser judges any signature, well formed or not, and each
    /// problem is its own finding. Returns the signer certificate when it was found.
    /// (`SignaturePathAgreementTests` runs this and the fast path on the same archives.)
    package func checkSignatureInGeneral(
        _ bytes: [UInt8], in archive: SignedArchive, now: Date, into report: inout ValidationReport
    ) -> KnownCertificate? {
        let file = Diagnostic.Location(file: ArchiveKind.signaturePath)
        // OpenSSL's parser takes BER and ignores trailing bytes. BER in the CMS structure
        // (BouncyCastle's default encoding, openssl cms -stream) is a warning and the signature is
        // then checked as any other; bytes after the structure, a length no reader can take, and
        // BER inside a certificate (which its issuer's signature doesn't pin down) are refused
        // before OpenSSL sees them. (Data that doesn't start as a SEQUENCE, such as PEM text, is
        // named below.)
        if bytes.first == 0x30 {
            let encoding = DERReader.encoding(of: bytes, derRegion: (under: Self.certificatesPath, name: "a certificate"))
            if let violation = encoding.error {
                report.add(
                    .signatureNotDER, "The signature is not DER: \(violation).", at: file,
                    hint:
                        "Store the signature exactly as the signer wrote it, with nothing appended, and carry each certificate as its issuer encoded it."
                )
                return nil
            }
            if let form = encoding.berForm {
                report.add(
                    .signatureBEREncoding,
                    "The signature is BER, not DER: \(form). OpenSSL reads and verifies it, but Apple documents Wallet's signature only as DER.",
                    at: file,
                    hint:
                        "Write the signature as DER: with BouncyCastle, CMSSignedData.getEncoded(\"DER\") instead of getEncoded(); with openssl, cms -sign without -stream."
                )
            }
        }
        let cms: CMSSignedData
        do {
            cms = try CMSSignedData(derBytes: bytes)
        } catch {
            let isPEM = PEMText.looksLikePEM(bytes) || String(decoding: bytes.prefix(200), as: UTF8.self).contains("MIME-Version")
            report.add(
                .signatureInvalidEncoding,
                isPEM ? "The signature is PEM or S/MIME text; Wallet needs DER." : "The signature is not a DER-encoded CMS structure.",
                at: file,
                hint: isPEM
                    ? "Sign with `-outform DER` (openssl) or convert: openssl cms -in sig.pem -inform PEM -outform DER -out signature."
                    : "Sign manifest.json with a detached PKCS #7 / CMS signature in DER.")
            return nil
        }
        guard cms.isSignedData else {
            report.add(
                .signatureNotSignedData, "The signature's content type is \(cms.contentType), not signedData.",
                at: file, hint: "Produce a CMS SignedData structure (openssl cms -sign).")
            return nil
        }
        if !cms.isDetached {
            report.add(
                .signatureNotDetached, "The signature embeds its content; Wallet expects a detached signature.",
                at: file, hint: "Sign detached (openssl cms -sign without -nodetach; smime -sign without -nodetach).")
        }
        if !cms.encapsulatesData {
            report.add(
                .signatureContentType, "The signed content type is \(cms.encapsulatedContentType), not id-data.", at: file)
        }
        let signerInfos = cms.signerInfos
        guard signerInfos.count == 1, let signerInfo = signerInfos.first else {
            report.add(
                .signatureSignerCount, "The signature has \(signerInfos.count) signers; Wallet expects exactly one.",
                at: file, hint: "Sign once, with the \(kind.certificateName) certificate.")
            return nil
        }
        let digest = signerInfo.digestAlgorithm
        // Passes: SHA-1 (pass-js, passkit-generator) and SHA-256 (Apple's pass-builder) both install.
        let accepted: Set<String> = kind == .order ? ["SHA256", "sha256"] : ["SHA256", "sha256", "SHA1", "sha1"]
        if !accepted.contains(digest) {
            report.add(
                .signatureDigestAlgorithm,
                "The signature uses \(digest); \(kind.plural) are signed with SHA-256\(kind == .pass ? " (or SHA-1)" : "").",
                at: file, hint: "Sign with -md sha256.")
        }
        let attributes = signerInfo.signedAttributeOIDs
        if attributes.isEmpty {
            report.add(
                .signatureMissingSignedAttributes, "The signature has no signed attributes (no signing time).",
                at: file, hint: "Don't sign with -noattr; Wallet rejects signatures without a signing date.")
        } else {
            if signerInfo.signingTime == nil {
                report.add(
                    .signatureMissingSigningTime, "The signature has no signingTime attribute.",
                    at: file, hint: "Wallet rejects signatures without a signing date; sign with openssl cms/smime without -noattr.")
            }
            if !signerInfo.contentTypeAttributeIsData {
                report.add(
                    .signatureContentTypeAttribute, "The contentType signed attribute is missing or not id-data.",
                    at: file)
            }
            if let manifestBytes = archive.contents(of: ArchiveKind.manifestPath) {
                let actual = signerInfo.digest(of: manifestBytes)
                if signerInfo.messageDigest == nil || actual == nil || signerInfo.messageDigest != actual {
                    report.add(
                        .signatureDigestMismatch, "The signature covers different bytes than the stored manifest.json.", at: file,
                        hint: "Sign the exact manifest.json bytes that go into the archive (no re-encoding, line-ending or BOM change).")
                }
            }
        }

        let parsedCertificates = cms.certificates
        guard let parsedSigner = parsedCertificates.first(where: signerInfo.identifies) else {
            report.add(
                .signatureSignerCertificateMissing, "The signature does not carry the signing certificate.",
                at: file, hint: "Include the \(kind.certificateName) certificate in the signature (don't sign with -nocerts).")
            return nil
        }
        if !attributes.isEmpty && !signerInfo.verifySignature(with: parsedSigner) {
            report.add(
                .signatureInvalid, "The signature does not verify with the signing certificate's key.",
                at: file, hint: "The signature was made with another key or altered; sign again.")
        }
        let signer = cache.certificate(parsedSigner)
        let certificates = parsedCertificates.map(cache.certificate)
        checkChain(signer: signer, certificates: certificates, signingTime: signerInfo.signingTime, now: now, into: &report)
        return signer
    }

    /// The signature check for a signature of the shape every known producer writes (DER,
    /// one RSA signer, SHA-256, the usual signed attributes; ``StrictSignedData``) that is
    /// intact: it reads the structure with a small DER reader, takes the certificates from the
    /// cache, compares the manifest digest and verifies the RSA signature over the signed
    /// attributes, then checks the chain.
    ///
    /// Returns `nil`, having reported nothing, for any other signature, or when any check
    /// fails: the general path (OpenSSL's CMS parser) then reports each problem, so findings
    /// are the same whichever path runs.
    package func checkWellFormedSignature(
        _ bytes: [UInt8], of manifest: [UInt8], now: Date, into report: inout ValidationReport
    ) -> KnownCertificate? {
        guard let signed = StrictSignedData(bytes),
            signed.bytes[signed.messageDigest].elementsEqual(SHA256.hash(manifest))
        else { return nil }
        var certificates: [KnownCertificate] = []
        certificates.reserveCapacity(signed.certificates.count)
        for range in signed.certificates {
            guard let certificate = cache.certificate(in: bytes, range: range) else { return nil }
            certificates.append(certificate)
        }
        // OpenSSL takes the first certificate whose serial and issuer (compared canonically)
        // match; byte-equal DER is an exact match, anything subtler goes the general way.
        let serial = bytes[signed.signerSerial]
        guard let signer = certificates.first(where: { $0.serial?.elementsEqual(serial) ?? false }),
            signer.issuerNameDER?.elementsEqual(bytes[signed.signerIssuer]) ?? false,
            signer.certificate.verifiesRSASHA256(signature: bytes[signed.signature], over: signed.signedAttributesDER) == true
        else { return nil }
        checkChain(signer: signer, certificates: certificates, signingTime: signed.signingTime, now: now, into: &report)
        return signer
    }

    /// A certificate name as people say it: its CN with the generation (OU), or the whole name.
    static func name(of name: DistinguishedName) -> String {
        guard let common = name["CN"] else { return "'\(name)'" }
        return "'\(common)'" + (name["OU"].map { " (\($0))" } ?? "")
    }

    /// The certificate findings of a signature: the signer against the kind's profile, the
    /// certificates carried, the intermediate that issued the signer, and the chain to a trusted
    /// root at the signing time (``VerificationCache`` keeps every verdict).
    package func checkChain(
        signer: KnownCertificate, certificates: [KnownCertificate], signingTime: Date?, now: Date,
        into report: inout ValidationReport
    ) {
        let file = Diagnostic.Location(file: ArchiveKind.signaturePath)
        for problem in signer.profileProblems(for: kind) {
            report.add(problem.rule, problem.message, at: file, hint: problem.hint)
        }
        let others = certificates.filter { $0 != signer }
        for certificate in others where certificate.subject == certificate.issuer {
            report.add(
                .signatureRootIncluded, "The signature carries the self-signed certificate '\(certificate.subject)'.", at: file,
                hint: "Include only the \(kind.certificateName) certificate and the WWDR intermediate, not the root.")
        }
        // Each isIssued is a signature verification: compute the issuers once.
        let issuers = others.filter { cache.isIssued(signer, by: $0) }
        if let issuer = issuers.first {
            let subject = issuer.subject
            report.add(
                .certificateWWDRGeneration,
                "Signed through '\(subject["CN"] ?? subject.description)'\(subject["OU"].map { " (generation \($0))" } ?? ""), valid until \(issuer.notAfter.formatted(.iso8601)).",
                at: file)
            // Wallet's pass policy asks nothing of the intermediate (SecPolicyCreatePassbookCardSigner).
            if kind == .order, let problem = issuer.intermediateProblem {
                report.add(problem.rule, problem.message, at: file, hint: problem.hint)
            }
        }
        var helpers = others
        if issuers.isEmpty, kind == .order, let root = anchors.first(where: { cache.isIssued(signer, by: $0) }) {
            // The order policy requires a chain of three; the pass policy has no length requirement.
            report.add(
                .certificateLeafIssuedByRoot,
                "The signing certificate '\(signer.subject)' is issued directly by the root '\(root.subject)', not by a WWDR intermediate.",
                at: file,
                hint:
                    "Wallet trusts Order Type ID certificates issued by Apple's WWDR intermediate; sign with one (for development, a test CA with an intermediate)."
            )
        } else if issuers.isEmpty, signer.subject != signer.issuer, !anchors.contains(where: { cache.isIssued(signer, by: $0) }) {
            // (A self-signed signer has no intermediate to include: the chain check says it
            // leads to no trusted root, with its own hint.)
            // Name what is there: a WWDR intermediate of another generation (G3 carried, the
            // signer issued by G4) is the usual mistake, and the fix is to swap it.
            let carried = others.filter { $0.subject != $0.issuer }.map { Self.name(of: $0.subject) }
            let needed = Self.name(of: signer.issuer)
            let what =
                carried.isEmpty
                ? "The signature does not carry the intermediate that issued the signing certificate (\(needed))."
                : "The signature carries \(carried.joined(separator: ", ")), but the signing certificate was issued by \(needed)."
            let bundled = cache.certificate(BundledCertificates.appleWWDRG4)
            if kind == .pass, cache.isIssued(signer, by: bundled) {
                // Evidence both ways: 2012-2022 reports of refusals (frozon/passbook#5, jpasskit#312,
                // dotnet-passbook#152) and Apple-signed passes of 2023-2026 that ship this way.
                report.add(
                    .signatureIntermediateNotIncluded,
                    "\(what) The chain closes only with the WWDR G4 intermediate from outside the pass; older reports say Wallet refused such passes, recent passes ship this way, and no device test settles it.",
                    at: file, hint: "Include \(needed) when signing, in place of any other intermediate.")
            } else {
                report.add(.signatureIntermediateMissing, what, at: file, hint: "Include \(needed) when signing, in place of any other intermediate.")
            }
            helpers.append(bundled)
        }
        let when = signingTime ?? now
        let chain = cache.verifyChain(trustStore, anchors: anchors, leaf: signer, helpers: helpers, at: when)
        if !chain.isValid {
            let subject = chain.errorCertificate?.subject.description ?? signer.subject.description
            // The device's one message for every chain failure of a pass (php-pkpass#52).
            let device =
                kind == .pass
                ? " Wallet logs: 'The passTypeIdentifier or teamIdentifier provided may not match your certificate, or the certificate trust chain could not be verified.'"
                : ""
            if chain.isValidityError {
                let expired = chain.errorCode == 10  // X509_V_ERR_CERT_HAS_EXPIRED
                report.add(
                    expired ? ValidationRule.certificateExpiredAtSigning : .certificateNotYetValidAtSigning,
                    "'\(subject)' was \(expired ? "expired" : "not yet valid") at the signing time \(when.formatted(.iso8601)).\(device)",
                    at: file, hint: "Sign with a certificate that is valid when signing.")
            } else if chain.isUntrustedError, signer.subject == signer.issuer {
                report.add(
                    .certificateUntrusted,
                    "The signing certificate '\(signer.subject)' is self-signed, so its chain leads to no trusted root (\(chain.errorText)).\(device)",
                    at: file,
                    hint:
                        "Sign with the \(kind.certificateName) certificate Apple issues, which chains to Apple Root CA through a WWDR intermediate; for development, with a certificate issued by a test CA's intermediate."
                )
            } else if chain.isUntrustedError {
                report.add(
                    .certificateUntrusted,
                    "The certificate chain of '\(signer.subject)' does not lead to a trusted root (\(chain.errorText)).\(device)",
                    at: file,
                    hint:
                        "Genuine \(kind.plural) chain to Apple Root CA through a WWDR intermediate; development certificates chain to their own test root, which must be trusted explicitly."
                )
            } else {
                report.add(
                    .certificateChainInvalid, "The certificate chain is invalid at '\(subject)': \(chain.errorText).\(device)", at: file)
            }
        }
        for certificate in [signer] + issuers where now > certificate.notAfter {
            report.add(
                .certificateExpiredNow,
                "'\(certificate.subject)' expired on \(certificate.notAfter.formatted(.iso8601)); the archive was signed before that, but new \(kind.plural) need a valid certificate.",
                at: file, hint: "Renew the certificate before signing more \(kind.plural).")
        }
    }
}
