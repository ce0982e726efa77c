public import Foundation
package import WalletOrdersJSON

/// Judges a pass the way Wallet would, and says exactly why: the archive (zip, manifest,
/// signature, chain and the Pass Type ID binding, through ``PassArchiveVerifier``), `pass.json`
/// against `Schemas/pass.schema.json` (evaluated, not restated in Swift, by the schema engine
/// orders use), and the rules beyond the schema (``PassRules``).
///
/// Findings are values in a ``ValidationReport``, never thrown. A validator is an immutable
/// `Sendable` value: build it once (it compiles the schema and the trust store) and reuse it.
public struct PassValidator: Sendable {
    /// The verifier used for the container and the binding.
    public let verifier: PassArchiveVerifier
    /// `pass.json` against `Schemas/pass.schema.json`.
    let schema: SchemaFindings

    /// Creates a validator.
    ///
    /// - Parameter verifier: The verifier for passes (default: Apple Root CA as the only anchor).
    /// - Throws: ``WalletOrdersError`` when the bundled schema can't be loaded (a packaging error).
    public init(verifier: PassArchiveVerifier? = nil) throws {
        self.verifier = try verifier ?? PassArchiveVerifier()
        self.schema = try SchemaFindings(kind: .pass, schema: "pass.schema")
    }

    /// Reads (within ``FileKind/passArchive``'s limit) and validates the pass at `path`.
    public func validate(archiveAt path: String, subject: String? = nil, now: Date = Date()) -> ValidationReport {
        do {
            return validate(archiveBytes: try BoundedFile.read(path, as: .passArchive), subject: subject ?? path, now: now)
        } catch {
            return .unreadable(subject ?? path, error)
        }
    }

    /// Validates pass bytes fully: container, signature, chain and binding, then content.
    public func validate(archiveBytes bytes: [UInt8], subject: String, now: Date = Date()) -> ValidationReport {
        do {
            return validate(try PassArchive(bytes: bytes, limits: verifier.limits), subject: subject, now: now)
        } catch {
            return verifier.verify(archiveBytes: bytes, subject: subject, now: now)
        }
    }

    /// Validates an opened pass fully: container, signature, chain and binding, then content.
    public func validate(_ pass: PassArchive, subject: String, now: Date = Date()) -> ValidationReport {
        var report = verifier.verify(pass, subject: subject, now: now, readingPassJSON: false)
        guard pass.contents(of: PassArchive.passPath) != nil else { return report }
        var files: [String: [UInt8]] = [:]
        for path in pass.filePaths where !Manifest.excludedPaths.contains(path) { files[path] = pass.contents(of: path) }
        report.diagnostics += validateContent(files: files, now: now)
        return report
    }

    /// Validates a pass source before signing: `pass.json`, its images and localizations.
    public func validate(_ source: PassSource, subject: String, now: Date = Date()) -> ValidationReport {
        ValidationReport(subject: subject, diagnostics: validateContent(files: source.files, now: now), kind: .pass)
    }

    /// The content checks: JSON, the keys Wallet requires, the schema, the rules.
    func validateContent(files: [String: [UInt8]], now: Date) -> [Diagnostic] {
        checkContent(files: files, now: now).findings
    }

    /// ``validateContent(files:now:)``, also giving what `pass.json` says of the pass's identity
    /// (when it is an object), read from the same parse, for a builder that signs it next.
    /// `parsed` is `pass.json` already parsed, when the caller has it (a batch's merge).
    package func checkContent(
        files: [String: [UInt8]], parsed known: JSONParseResult? = nil, now: Date
    ) -> (findings: [Diagnostic], identity: PassIdentity?) {
        guard let bytes = files[PassArchive.passPath] else {
            let nested = files.keys.first { $0.hasSuffix("/pass.json") }
            return ([ArchiveVerifier.missingRootFile(PassArchive.passPath, kind: .pass, nestedAt: nested)], nil)
        }
        let parsed = known ?? JSONParser.parse(bytes, maxDepth: 64, allowingTrailingCommas: true)
        let context = ValidationContext(files: files, root: parsed.root, now: now, kind: .pass)
        var findings = JSONFindings.findings(parsed.problems, in: PassArchive.passPath)
        guard let root = parsed.root else { return (findings, nil) }
        var identity: PassIdentity?
        if let members = root.members {
            let read = PassIdentity(root: root, members: members, problems: parsed.problems)
            identity = read
            findings += PassArchiveVerifier.identityFindings(read)
        }
        // The keys Wallet requires are pass.missing-key and a missing style pass.style-missing,
        // each with the device's message.
        findings += schema.findings(root, context: context) { violation in
            // A boarding pass without transitType is pass.missing-key, with the device's message.
            if violation.keyword == "required" && violation.property == "transitType" { return false }
            guard violation.instancePointer.isEmpty else { return true }
            // Apple's reserved keys are pass.reserved-key's, not unknown keys.
            if violation.keyword == "additionalProperties" { return PassRules.reservedKeys[violation.property ?? ""] == nil }
            if violation.keyword == "required" { return !PassIdentity.requiredKeys.contains(violation.property ?? "") }
            return violation.keyword != "anyOf"
        }
        findings += PassRules.check(context)
        return (findings, identity)
    }
}
