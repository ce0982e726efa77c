public import Foundation
package import WalletOrdersJSON

/// Judges an order the way Wallet would, and says exactly why: the archive (zip, manifest,
/// signature, chain, through ``OrderArchiveVerifier``), `order.json` against
/// `Schemas/order.schema.json` (evaluated, not restated in Swift), and the rules beyond the schema
/// (dates, money, countries, files, localizations, uniqueness, compatibility).
///
/// Findings are values in a ``ValidationReport``, never thrown. A validator is an immutable
/// `Sendable` value: build it once (it compiles the schema and the trust store) and reuse it for
/// any number of archives from any number of tasks. ``ValidationRule/all`` lists every rule.
public struct OrderValidator: Sendable {
    /// The archive verifier used for container checks.
    public let verifier: OrderArchiveVerifier
    /// `order.json` against `Schemas/order.schema.json` (the schema engine passes share).
    let schema: SchemaFindings
    /// Every key a shipping or a pickup fulfillment may have: what a fulfillment without a valid
    /// `fulfillmentType` (which the schema can't dispatch on) is checked against.
    let fulfillmentKeys: [String]

    /// Creates a validator.
    ///
    /// - Parameter verifier: The verifier for archives (default: Apple Root CA as the only anchor).
    /// - Throws: ``WalletOrdersError`` when the bundled schema can't be loaded (a packaging error).
    public init(verifier: OrderArchiveVerifier? = nil) throws {
        self.verifier = try verifier ?? OrderArchiveVerifier()
        self.schema = try SchemaFindings(kind: .order, schema: "order.schema")
        var fulfillmentKeys = Set<String>()
        for definition in ["ShippingFulfillment", "PickupFulfillment"] {
            fulfillmentKeys.formUnion(schema.document["$defs"]?[definition]?["properties"]?.members?.map(\.key) ?? [])
        }
        self.fulfillmentKeys = fulfillmentKeys.sorted()
    }

    /// Reads (within ``FileKind/archive``'s limit, checked before reading) and validates the
    /// archive at `path`; a file that can't be read, or is too large to be an order, gives a
    /// one-finding report.
    public func validate(archiveAt path: String, subject: String? = nil, now: Date = Date()) -> ValidationReport {
        do {
            return validate(archiveBytes: try BoundedFile.read(path, as: .archive), subject: subject ?? path, now: now)
        } catch {
            return .unreadable(subject ?? path, error)
        }
    }

    /// Validates archive bytes fully: container, signature and chain, then content.
    public func validate(archiveBytes bytes: [UInt8], subject: String, now: Date = Date()) -> ValidationReport {
        do {
            return validate(try OrderArchive(bytes: bytes, limits: verifier.limits), subject: subject, now: now)
        } catch {
            return verifier.verify(archiveBytes: bytes, subject: subject, now: now)
        }
    }

    /// Validates an opened archive fully: container, signature and chain, then content.
    public func validate(_ archive: OrderArchive, subject: String, now: Date = Date()) -> ValidationReport {
        validateKeepingOrder(archive, subject: subject, now: now).report
    }

    /// ``validate(_:subject:now:)``, also giving `order.json`'s parsed root (when it parsed),
    /// for callers that read fields of a validated order without parsing it again.
    package func validateKeepingOrder(_ archive: OrderArchive, subject: String, now: Date = Date())
        -> (report: ValidationReport, order: JSONNode?)
    {
        // One way through: the container stage, then order.json parsed once, then the binding of
        // order type to certificate and the content stage on that parse. Each stage only adds.
        var (report, signer) = verifier.verifyContainer(archive, subject: subject, now: now)
        guard let orderBytes = archive.contents(of: OrderArchive.orderPath) else { return (report, nil) }
        let parsed = JSONParser.parse(orderBytes, allowingTrailingCommas: true)
        if let signer, let orderTypeIdentifier = parsed.root?["orderTypeIdentifier"]?.stringValue {
            report.diagnostics += OrderArchiveVerifier.bindingFindings(signer: signer, orderTypeIdentifier: orderTypeIdentifier)
        }
        var files: [String: [UInt8]] = [:]
        for path in archive.filePaths where !Manifest.excludedPaths.contains(path) {
            files[path] = archive.contents(of: path)
        }
        report.diagnostics += validateContent(files: files, parsed: parsed, now: now)
        return (report, parsed.root)
    }

    /// Validates an order source before signing: its size (Apple's bundle limit, as building and
    /// validating the archive check it), `order.json`, its files and localizations. `now` is the
    /// time dates are compared with (an `updatedAt` far ahead of it is a warning).
    public func validate(_ source: OrderSource, subject: String, now: Date = Date()) -> ValidationReport {
        ValidationReport(subject: subject, diagnostics: validateSource(source.files, now: now), kind: .order)
    }

    /// What validating a source finds: the bundle size (``ArchiveLimits/BundleSize``; an archive
    /// has it checked in its container stage), then the content (``validateContent(files:parsed:now:)``).
    func validateSource(_ files: [String: [UInt8]], parsed: JSONParseResult? = nil, now: Date) -> [Diagnostic] {
        let size = ArchiveLimits.BundleSize(files: files).finding
        return (size.map { [$0] } ?? []) + validateContent(files: files, parsed: parsed, now: now)
    }

    /// The content checks: JSON, schema, rules. `parsed` is `files["order.json"]` parsed, when
    /// the caller has it; `now` is the time dates are compared with.
    func validateContent(files: [String: [UInt8]], parsed: JSONParseResult? = nil, now: Date = Date()) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        guard let orderBytes = files[OrderArchive.orderPath] else {
            return [OrderArchiveVerifier.missingRootFile(OrderArchive.orderPath, nestedAt: files.keys.first { $0.hasSuffix("/order.json") })]
        }
        let parsed = parsed ?? JSONParser.parse(orderBytes, allowingTrailingCommas: true)
        let context = ValidationContext(files: files, root: parsed.root, now: now)
        for problem in parsed.problems {
            findings.append(
                context.diagnostic(
                    Self.rule(for: problem.kind), problem.message, pointer: problem.pointer ?? "", position: problem.position,
                    hint: Self.hint(for: problem.kind)))
        }
        if let root = parsed.root {
            findings += schema.findings(root, context: context)
            checkUntypedFulfillments(root, context: context, into: &findings)
        }
        // The rules: one walk of the tree hands each rule what it looks at (ContentWalk); the
        // findings are listed area by area, in this order.
        let walk = ContentWalk(context: context)
        DateRules.check(context, into: &findings)
        findings += walk.money
        MoneyRules.checkPaymentCurrencies(context, into: &findings)
        findings += walk.numbers
        findings += walk.addresses
        UniquenessRules.check(context, into: &findings)
        LocalizationRules.check(context, used: walk.localizableStrings, into: &findings)
        FileRules.check(context, references: walk.fileReferences, into: &findings)
        CompatibilityRules.check(context, into: &findings)
        WebServiceRules.check(context, into: &findings)
        return findings
    }

    static func hint(for kind: JSONProblem.Kind) -> String { JSONFindings.hint(for: kind, in: OrderArchive.orderPath) }

    static func rule(for kind: JSONProblem.Kind) -> ValidationRule { JSONFindings.rule(for: kind) }

    /// A fulfillment whose `fulfillmentType` is missing or unknown matches neither branch of the
    /// schema, so its other keys go unchecked there; a misspelt one (`estimatedDeliveryDate`)
    /// would vanish silently. Each key no fulfillment of any type has is reported here instead.
    func checkUntypedFulfillments(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let fulfillments = root["fulfillments"]?.elements else { return }
        for (index, fulfillment) in fulfillments.enumerated() {
            guard let members = fulfillment.members,
                !["shipping", "pickup"].contains(fulfillment["fulfillmentType"]?.stringValue ?? "")
            else { continue }
            for member in members where member.key != "fulfillmentType" && !fulfillmentKeys.contains(member.key) {
                findings.append(
                    schema.unknownKey(
                        member.key, in: "/fulfillments/\(index)", position: member.keyPosition, known: fulfillmentKeys, context: context))
            }
        }
    }

}

extension OrderValidator {
    /// `Allowed here: a, b, c.` (``SchemaFindings/allowedKeysSentence(_:within:)``).
    package static func allowedKeysSentence(_ keys: [String], within length: Int) -> String? {
        SchemaFindings.allowedKeysSentence(keys, within: length)
    }
}
