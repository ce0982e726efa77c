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
    let orderSchema: JSONSchema
    let orderSchemaDocument: JSONNode
    /// Every key a shipping or a pickup fulfillment may have: what a fulfillment without a valid
    /// `fulfillmentType` (which the schema can't dispatch on) is checked against.
    let fulfillmentKeys: [String]

    /// Creates a validator.
    ///
    /// - Parameter verifier: The verifier for archives (default: Apple Root CA as the only anchor).
    /// - Throws: ``WalletOrdersError`` when the bundled schema can't be loaded (a packaging error).
    public init(verifier: OrderArchiveVerifier? = nil) throws {
        self.verifier = try verifier ?? OrderArchiveVerifier()
        let document = try Self.bundledSchema("order.schema")
        self.orderSchemaDocument = document
        var fulfillmentKeys = Set<String>()
        for definition in ["ShippingFulfillment", "PickupFulfillment"] {
            fulfillmentKeys.formUnion(document["$defs"]?[definition]?["properties"]?.members?.map(\.key) ?? [])
        }
        self.fulfillmentKeys = fulfillmentKeys.sorted()
        do {
            self.orderSchema = try JSONSchema(document: document)
        } catch {
            throw WalletOrdersError(.invalidOrder, "The bundled order schema does not compile: \(error)", underlying: error)
        }
    }

    /// Parses a schema compiled into the library (``EmbeddedResources``, from `Schemas/`).
    static func bundledSchema(_ name: String) throws -> JSONNode {
        guard let bytes = EmbeddedResources.bytes("Schemas/\(name).json") else {
            throw WalletOrdersError(.fileAccess, "The schema \(name).json is not embedded in WalletOrders; run `make resources`.")
        }
        let parsed = JSONParser.parse(bytes)
        guard let root = parsed.root else {
            throw WalletOrdersError(.invalidOrder, "The bundled schema \(name).json is not valid JSON: \(parsed.problems)")
        }
        return root
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
        ValidationReport(subject: subject, diagnostics: validateSource(source.files, now: now))
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
            for violation in Self.onePerValue(orderSchema.validate(root)) {
                findings.append(diagnostic(for: violation, context: context))
            }
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

    /// The keywords that judge a value itself, most telling first: a value that fails several
    /// (a number where an enum's string belongs; `USA` too long and not two letters) is one
    /// problem, reported once, by the first of these it fails.
    static let valueKeywords = [
        "type", "enum", "const", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    ]

    /// `violations` with one value finding per instance: see ``valueKeywords``. Findings about
    /// an object's keys (required, unknown, dependent) are each their own problem and all kept.
    static func onePerValue(_ violations: [SchemaViolation]) -> [SchemaViolation] {
        var best: [String: Int] = [:]  // instance pointer → rank of its most telling value keyword
        for violation in violations {
            guard let rank = valueKeywords.firstIndex(of: violation.keyword) else { continue }
            best[violation.instancePointer] = min(rank, best[violation.instancePointer] ?? rank)
        }
        guard !best.isEmpty else { return violations }
        var reported: Set<String> = []
        return violations.filter { violation in
            guard let rank = valueKeywords.firstIndex(of: violation.keyword) else { return true }
            return rank == best[violation.instancePointer] && reported.insert(violation.instancePointer).inserted
        }
    }

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
                    unknownKey(member.key, in: "/fulfillments/\(index)", position: member.keyPosition, known: fulfillmentKeys, context: context))
            }
        }
    }

    /// The finding for a key the schema doesn't define, with the nearest known key and the keys
    /// allowed at that place.
    func unknownKey(
        _ name: String, in pointer: String, position: SourcePosition?, known: [String], context: ValidationContext
    ) -> Diagnostic {
        let suggestion = NearestName.suggestion(for: name, among: known)
        var hint = suggestion.map { "Did you mean '\($0)'?" } ?? "Remove it, or check the spelling against the schema."
        if let allowed = Self.allowedKeysSentence(known, within: Self.hintLength - hint.count - 1) { hint += " " + allowed }
        return context.diagnostic(
            .schemaUnknownKey, "Unknown key '\(name)' in \(pointer.isEmpty ? "the order" : pointer); Wallet ignores it.",
            pointer: pointer + "/" + JSONPointer.escape(name), position: position, hint: hint)
    }

    /// A hint is a line or two: at most this many characters.
    static let hintLength = 240

    /// At most this many allowed keys are named in an unknown key's hint.
    static let allowedKeysShown = 15

    /// `Allowed here: a, b, c.`, the keys sorted; when they don't all fit in ``allowedKeysShown``
    /// keys and `length` characters, `Allowed here (24): a, b, …` with as many as fit. `nil`
    /// for no keys, or no room for one.
    package static func allowedKeysSentence(_ keys: [String], within length: Int) -> String? {
        let sorted = Set(keys).sorted()
        let whole = "Allowed here: \(sorted.joined(separator: ", "))."
        if !sorted.isEmpty, sorted.count <= allowedKeysShown, whole.count <= length { return whole }
        var shown: [String] = []
        let lead = "Allowed here (\(sorted.count)): "
        for key in sorted.prefix(allowedKeysShown) {
            guard lead.count + (shown + [key, "…"]).joined(separator: ", ").count <= length else { break }
            shown.append(key)
        }
        return shown.isEmpty ? nil : lead + (shown + ["…"]).joined(separator: ", ")
    }

    /// The first sentence of a schema description (or two short ones), for a hint: descriptions
    /// run to paragraphs, hints are a line.
    static func brief(_ description: String) -> String {
        var sentences: [Substring] = []
        var rest = description[...]
        while let end = rest.firstRange(of: ". ") ?? rest.firstRange(of: ".\n") {
            sentences.append(rest[..<rest.index(after: end.lowerBound)])
            rest = rest[end.upperBound...].drop { $0 == " " || $0 == "\n" }
        }
        if !rest.isEmpty { sentences.append(rest) }
        var text = String(sentences.first ?? "")
        if sentences.count > 1, text.count + sentences[1].count < 160 { text += " " + sentences[1] }
        guard text.count > 200 else { return text }
        let cut = text.prefix(199)
        return String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)]) + "…"
    }

    /// Turns a schema violation into a finding with a rule, a location and a fix.
    func diagnostic(for violation: SchemaViolation, context: ValidationContext) -> Diagnostic {
        let pointer = violation.instancePointer
        let field = pointer.isEmpty ? "the order" : pointer
        switch violation.keyword {
        case "additionalProperties":
            return unknownKey(
                violation.property ?? "?", in: pointer, position: violation.instancePosition,
                known: allowedProperties(atSchemaPointer: violation.schemaPointer), context: context)
        case "required":
            let name = violation.property ?? "?"
            // The missing key's own description says what it is; the object's would describe the parent.
            let description = propertyDescription(name, atSchemaPointer: violation.schemaPointer)
            return context.diagnostic(
                .schemaRequired, "\(field) is missing the required key '\(name)'.", pointer: pointer,
                position: violation.instancePosition, hint: description.map { "Add it. \(Self.brief($0))" } ?? "Add it.")
        case "dependentRequired":
            // Reported at the key that requires the missing one (`/webServiceURL`), where the fix is
            // decided: add the missing key beside it, or drop it.
            let missing = violation.property ?? "?"
            let requiring = violation.schemaPointer.split(separator: "/").last.map { JSONPointer.unescape($0) } ?? ""
            let member = context.root?.resolve(pointer: pointer)?.members?.first { $0.key == requiring }
            var hint = "Add \(missing), or remove \(requiring)."
            if let description = propertyDescription(missing, atSchemaPointer: parentPointer(violation.schemaPointer)) {
                let brief = Self.brief(description)
                if hint.count + 1 + brief.count <= Self.hintLength { hint += " " + brief }
            }
            return context.diagnostic(
                .schemaDependentRequired, "\(field): \(violation.message)", pointer: pointer + "/" + JSONPointer.escape(requiring),
                position: member?.keyPosition, hint: hint)
        case "enum", "const":
            let value = context.root?.resolve(pointer: pointer)?.stringValue
            let allowed = (violation.allowedValues ?? []).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            let suggestion = value.flatMap { NearestName.suggestion(for: $0, among: allowed) }
            let rule =
                pointer.hasSuffix("/fulfillmentType")
                ? ValidationRule.schemaFulfillment : violation.keyword == "enum" ? ValidationRule.schemaEnum : ValidationRule.schemaConst
            return context.diagnostic(
                rule, violation.message, pointer: pointer, position: violation.instancePosition,
                hint: suggestion.map {
                    violation.message.contains("did you mean") ? "Values are case-sensitive." : "Did you mean '\($0)'? Values are case-sensitive."
                }
                    ?? "Allowed: \(allowed.joined(separator: ", ")).")
        default:
            let rule: ValidationRule
            switch violation.keyword {
            case "type": rule = ValidationRule.schemaType
            case "format": rule = ValidationRule.schemaFormat
            case "pattern": rule = ValidationRule.schemaPattern
            case "minLength", "maxLength", "minItems", "maxItems": rule = ValidationRule.schemaLength
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum": rule = ValidationRule.schemaRange
            case "dependentRequired": rule = ValidationRule.schemaDependentRequired
            case "anyOf", "oneOf", "allOf", "if", "then":
                rule = pointer.hasPrefix("/fulfillments/") ? ValidationRule.schemaFulfillment : ValidationRule.schemaViolation
            default: rule = ValidationRule.schemaViolation
            }
            return context.diagnostic(
                rule, "\(field): \(violation.message)", pointer: pointer, position: violation.instancePosition,
                hint: violation.schemaDescription.map(Self.brief))
        }
    }

    /// `pointer` without its last token (`/a/b/c` → `/a/b`).
    func parentPointer(_ pointer: String) -> String {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return "" }
        return String(pointer[..<slash.lowerBound])
    }

    /// The description of property `name` in the schema object that holds `…/required` (or
    /// `…/dependentRequired`).
    func propertyDescription(_ name: String, atSchemaPointer pointer: String) -> String? {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return nil }
        let parent = String(pointer[..<slash.lowerBound])
        return orderSchemaDocument.resolve(pointer: parent)?["properties"]?[name]?["description"]?.stringValue
    }

    /// The property names the schema object that holds `…/additionalProperties` defines.
    func allowedProperties(atSchemaPointer pointer: String) -> [String] {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return [] }
        let parent = String(pointer[..<slash.lowerBound])
        return orderSchemaDocument.resolve(pointer: parent)?["properties"]?.members?.map(\.key) ?? []
    }
}
