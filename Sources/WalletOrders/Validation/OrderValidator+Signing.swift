package import Foundation
package import WalletOrdersJSON

// The order intake's way through: validate a source before anything is signed, then make the
// ``VerifiedOrderArchive`` from the builder's own parts, without opening the archive it just
// wrote or verifying its own signature again.

extension OrderValidator {
    /// Validates `source` as `identity` will sign it at `signingTime`, before any signature is
    /// made: the size and content (as ``validate(_:subject:now:)``), the identity's binding to the order's
    /// `orderTypeIdentifier`, and, with `checkingTrust`, what validating the signed archive would
    /// say about its signature that building doesn't make true by construction: the identity's
    /// certificate profile and its chain to this validator's trust anchors at `signingTime`
    /// (what a store that saves the archive relies on).
    ///
    /// Gives `order.json`'s parsed root too (when it parsed), for
    /// ``verifiedArchive(_:order:)``. `parsed` is `order.json` parsed already (with trailing
    /// commas allowed), when the caller read it to choose the identity.
    package func validate(
        _ source: OrderSource, signedBy identity: SigningIdentity, at signingTime: Date, subject: String,
        checkingTrust: Bool = true, parsed: JSONParseResult? = nil, now: Date = Date()
    ) -> (report: ValidationReport, order: JSONNode?) {
        let parsed = parsed ?? source.orderJSON.map { JSONParser.parse($0, allowingTrailingCommas: true) }
        var report = ValidationReport(subject: subject, diagnostics: validateSource(source.files, parsed: parsed, now: now), kind: .order)
        if checkingTrust { report.diagnostics += verifier.signingFindings(identity, at: signingTime, now: now) }
        if let orderTypeIdentifier = parsed?.root?["orderTypeIdentifier"]?.stringValue {
            report.diagnostics += OrderArchiveVerifier.bindingFindings(
                signer: identity.signerNames, orderTypeIdentifier: orderTypeIdentifier)
        }
        return (report, parsed?.root)
    }

    /// The verified archive for `built`, made from the builder's own parts: its bytes, its
    /// manifest's content digest and `order`, the root ``validate(_:signedBy:at:subject:checkingTrust:parsed:now:)``
    /// parsed from the same source (whose report had no errors).
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveRejected`` when `order` lacks a field a store
    ///   keeps (validation would have reported it).
    package func verifiedArchive(_ built: BuiltOrderArchive, order root: JSONNode) throws -> VerifiedOrderArchive {
        try VerifiedOrderArchive(bytes: built.bytes, order: root, contentDigest: built.manifest.contentDigest)
    }
}

extension OrderArchiveVerifier {
    /// The findings about `identity`'s certificates that verifying an archive it signs at
    /// `signingTime` would report: the certificate profile, the intermediate, the chain to this
    /// verifier's anchors (cached like every chain verdict) and expiry.
    func signingFindings(_ identity: SigningIdentity, at signingTime: Date, now: Date) -> [Diagnostic] {
        var report = ValidationReport(subject: "")
        let signer = cache.certificate(identity.certificate)
        let intermediate = cache.certificate(identity.intermediate)
        checkChain(signer: signer, certificates: [signer, intermediate], signingTime: signingTime, now: now, into: &report)
        return report.diagnostics
    }
}
