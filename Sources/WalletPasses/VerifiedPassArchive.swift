public import Foundation
import WalletOrdersInterop
import WalletOrdersJSON

/// A signed pass that passed validation, with what a store keeps about it: the only thing a
/// store saves as a pass.
///
/// Only a ``PassValidator`` makes one (``checking(bytes:validator:)``), so a store holds no pass
/// that didn't verify and never validates again.
public struct VerifiedPassArchive: Sendable {
    /// The pass the archive holds.
    public let identifier: PassIdentifier
    /// The archive's SHA-256 (lowercase hex): the entity tag it is served with.
    public let sha256: String
    /// The manifest's ``Manifest/contentDigest``: equal for two signings of the same files.
    public let contentDigest: String?
    /// The archive's bytes.
    public let bytes: [UInt8]
    /// The pass's `authenticationToken`, the web service's shared secret for it, if it has one.
    public let authenticationToken: String?
    /// The pass's `webServiceURL`, if it has one.
    public let webServiceURL: String?
    /// Whether `pass.json` has `"voided": true`.
    public let voided: Bool

    /// Validates `bytes` with `validator` and reads the identity from `pass.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveRejected`` listing the error findings.
    public init(bytes: some Collection<UInt8>, validator: PassValidator) throws {
        self = try Self.checking(bytes: bytes, validator: validator).archive.get()
    }

    /// Validates `bytes` with `validator`: the verified pass, or the error that rejects it, with
    /// the whole report either way (a web service answers a rejected upload with it).
    public static func checking(bytes: some Collection<UInt8>, validator: PassValidator, now: Date = Date())
        -> (archive: Result<VerifiedPassArchive, WalletOrdersError>, report: ValidationReport)
    {
        let bytes = [UInt8](bytes)
        let pass = try? PassArchive(bytes: bytes, limits: validator.verifier.limits)
        let report =
            pass.map { validator.validate($0, subject: "archive", now: now) }
            ?? validator.validate(archiveBytes: bytes, subject: "archive", now: now)
        let errors = report.errors
        guard errors.isEmpty, let pass, let passJSON = pass.contents(of: PassArchive.passPath),
            let root = JSONParser.parse(passJSON, maxDepth: 64, allowingTrailingCommas: true).root,
            let type = root["passTypeIdentifier"]?.stringValue, let serial = root["serialNumber"]?.stringValue
        else {
            return (
                .failure(
                    WalletOrdersError(
                        .archiveRejected,
                        "The pass does not verify, so it was not stored (\(errors.count) error\(errors.count == 1 ? "" : "s")):\n"
                            + errors.map { "  \($0.ruleID): \($0.message)" }.joined(separator: "\n"),
                        hint: "Validate the pass for the full report.")), report
            )
        }
        let archive = VerifiedPassArchive(
            identifier: PassIdentifier(passTypeIdentifier: type, serialNumber: serial), sha256: SHA256.hexHash(bytes),
            contentDigest: try? pass.manifest().contentDigest, bytes: bytes,
            authenticationToken: root["authenticationToken"]?.stringValue, webServiceURL: root["webServiceURL"]?.stringValue,
            voided: { if case .bool(true) = root["voided"]?.value { true } else { false } }())
        return (.success(archive), report)
    }

    /// A verified pass from its parts, for a store reading back what it saved (`OrderStoreCopy`
    /// moving passes to another store) and for the intake that signed what it validated.
    package init(
        identifier: PassIdentifier, sha256: String, contentDigest: String?, bytes: [UInt8], authenticationToken: String?,
        webServiceURL: String?, voided: Bool
    ) {
        self.identifier = identifier
        self.sha256 = sha256
        self.contentDigest = contentDigest
        self.bytes = bytes
        self.authenticationToken = authenticationToken
        self.webServiceURL = webServiceURL
        self.voided = voided
    }

    /// Whether `other` holds the same content: the same bytes, or the same files signed again.
    public func hasSameContent(asSHA256 sha256: String, contentDigest: String?) -> Bool {
        if self.sha256 == sha256 { return true }
        guard let mine = self.contentDigest, let contentDigest else { return false }
        return mine == contentDigest
    }
}
