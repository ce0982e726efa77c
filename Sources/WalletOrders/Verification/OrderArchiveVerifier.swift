public import Foundation
import WalletOrdersInterop

/// Checks everything about an archive that makes Wallet accept or refuse it at the container
/// level: zip safety, the required files, the manifest, the CMS signature and the certificate
/// chain with Apple's Order Type ID profile, then that `order.json` names the order type of its
/// signing certificate. It returns every finding, never just the first.
///
/// Build one verifier (it parses the trust anchors once) and reuse it for any number of
/// archives, from any number of tasks.
///
/// Rule identifiers are stable; see the `Validation` article for the full table.
public struct OrderArchiveVerifier: Sendable {
    /// The container stage, which orders share with passes.
    package var core: ArchiveVerifier

    /// Certificates, issuer checks and chain verdicts already worked out (shared by copies).
    package var cache: VerificationCache { core.cache }

    /// The limits used when opening archives from bytes.
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
    ///   - limits: Zip safety limits.
    /// - Throws: ``WalletOrdersError/Code/invalidTrustAnchor``.
    public init(
        additionalTrustAnchors: [[UInt8]] = [], trustAppleRootCA: Bool = true, limits: ArchiveLimits = .init()
    ) throws {
        core = try ArchiveVerifier(
            kind: .order, additionalTrustAnchors: additionalTrustAnchors, trustAppleRootCA: trustAppleRootCA, limits: limits)
    }

    /// Opens and verifies archive bytes; data that isn't a zip gives a one-finding report.
    ///
    /// - Parameters:
    ///   - bytes: The `.order` file.
    ///   - subject: The name the report uses (a path, usually).
    ///   - now: The current time, for the "certificate expired since" warning.
    public func verify(archiveBytes bytes: [UInt8], subject: String, now: Date = Date()) -> ValidationReport {
        switch core.open(bytes, subject: subject) {
        case .archive(let archive): verify(OrderArchive(archive), subject: subject, now: now)
        case .notAZip(let report): report
        }
    }

    /// Reads (within ``FileKind/archive``'s limit, checked before reading) and verifies the
    /// archive at `path`; a file that can't be read, or is too large to be an order, gives a
    /// one-finding report.
    public func verify(archiveAt path: String, subject: String? = nil, now: Date = Date()) -> ValidationReport {
        do {
            return verify(archiveBytes: try BoundedFile.read(path, as: .archive), subject: subject ?? path, now: now)
        } catch {
            return .unreadable(subject ?? path, error)
        }
    }

    /// Verifies an opened archive: the container (``verifyContainer(_:subject:now:)``), then
    /// that `order.json` decodes as an ``Order`` (`order.invalid`) whose `orderTypeIdentifier`
    /// is the signing certificate's.
    public func verify(_ archive: OrderArchive, subject: String = "archive", now: Date = Date()) -> ValidationReport {
        var (report, signer) = verifyContainer(archive, subject: subject, now: now)
        guard archive.contents(of: OrderArchive.orderPath) != nil else { return report }
        do {
            let order = try archive.order()
            if let signer {
                report.diagnostics += Self.bindingFindings(signer: signer, orderTypeIdentifier: order.orderTypeIdentifier)
            }
        } catch {
            report.add(
                .orderInvalid, WalletOrdersError.wrapping(error).message, at: .init(file: OrderArchive.orderPath),
                hint: "Fix order.json: validating the archive shows each problem in place.")
        }
        return report
    }

    /// The container stage, which every verification and validation starts with: the zip's
    /// findings, the three required files, the bundle size, the manifest against every file, and
    /// the signature with its certificate profile and chain. Gives the report and the order types
    /// the signing certificate names (what it may sign), when the signature carries one.
    func verifyContainer(_ archive: OrderArchive, subject: String, now: Date) -> (ValidationReport, signer: SignerNames?) {
        let (report, signer) = core.verifyContainer(archive.archive, subject: subject, now: now)
        return (report, signer?.signerNames)
    }

    /// The one `archive.missing-file` finding: `path` is not at the root (and was found at
    /// `nested`, when a wrapper folder holds it).
    static func missingRootFile(_ path: String, nestedAt nested: String?) -> Diagnostic {
        ArchiveVerifier.missingRootFile(path, kind: .order, nestedAt: nested)
    }

    /// The signature check through OpenSSL's CMS parser (``ArchiveVerifier/checkSignatureInGeneral(_:in:now:into:)``).
    package func checkSignatureInGeneral(
        _ bytes: [UInt8], in archive: OrderArchive, now: Date, into report: inout ValidationReport
    ) -> KnownCertificate? {
        core.checkSignatureInGeneral(bytes, in: archive.archive, now: now, into: &report)
    }

    /// The fast signature check (``ArchiveVerifier/checkWellFormedSignature(_:of:now:into:)``).
    package func checkWellFormedSignature(
        _ bytes: [UInt8], of manifest: [UInt8], now: Date, into report: inout ValidationReport
    ) -> KnownCertificate? {
        core.checkWellFormedSignature(bytes, of: manifest, now: now, into: &report)
    }

    /// The certificate findings of a signature (``ArchiveVerifier/checkChain(signer:certificates:signingTime:now:into:)``).
    package func checkChain(
        signer: KnownCertificate, certificates: [KnownCertificate], signingTime: Date?, now: Date,
        into report: inout ValidationReport
    ) {
        core.checkChain(signer: signer, certificates: certificates, signingTime: signingTime, now: now, into: &report)
    }

    // MARK: - Order

    /// The binding of order to certificate: `orderTypeIdentifier` must be the order type the
    /// signing certificate's order-type marker (`signature.signer-order-type-mismatch`) and
    /// subject UID (`signature.signer-uid-mismatch`) name.
    static func bindingFindings(signer: SignerNames, orderTypeIdentifier: String) -> [Diagnostic] {
        OrderTypeCertificateProfile.bindingProblems(of: signer, orderTypeIdentifier: orderTypeIdentifier).map { problem in
            Diagnostic(
                problem.rule, problem.message,
                at: .init(file: OrderArchive.orderPath, jsonPointer: "/orderTypeIdentifier"), hint: problem.hint)
        }
    }
}
