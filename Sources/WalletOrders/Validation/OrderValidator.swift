public import Foundation

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

    /// Creates a validator.
    ///
    /// - Parameter verifier: The verifier for archives (default: Apple Root CA as the only anchor).
    /// - Throws: ``WalletOrdersError`` when the bundled schema can't be loaded (a packaging error).
    public init(verifier: OrderArchiveVerifier? = nil) throws {
        self.verifier = try verifier ?? OrderArchiveVerifier()
        let document = try Self.bundledSchema("order.schema")
        self.orderSchemaDocument = document
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
        // order.json is parsed once, for the verifier's signer UID check and the content checks;
        // the schema and rules judge it, so the verifier does not decode the model again.
        let parsed = archive.contents(of: OrderArchive.orderPath).map(Self.parseOrder)
        var report = verifier.verify(
            archive, subject: subject, now: now, notes: true, parsedOrder: parsed?.result, decodingOrder: false)
        var files: [String: [UInt8]] = [:]
        for path in archive.filePaths where !Manifest.excludedPaths.contains(path) {
            files[path] = archive.contents(of: path)
        }
        let content = validateContent(files: files, parsed: parsed?.result)
        // The schema findings explain order.json far better than the model's decoding error.
        if content.contains(where: { $0.location.file == OrderArchive.orderPath && $0.severity == .error }) {
            report.diagnostics.removeAll { $0.ruleID == "order.invalid" }
        }
        report.diagnostics += content
        return (report, parsed?.result.root)
    }

    /// Validates an order source before signing: `order.json`, its files and localizations.
    public func validate(_ source: OrderSource, subject: String) -> ValidationReport {
        ValidationReport(subject: subject, diagnostics: validateContent(files: source.files))
    }

    /// Parses order.json for the content checks: first with the depth fast decoding accepts
    /// (`decodable`), again with the parser's full depth when that is too shallow.
    static func parseOrder(_ bytes: [UInt8]) -> (result: JSONParseResult, decodable: Bool) {
        let shallow = JSONParser.parse(bytes, maxDepth: Order.fastDecodingMaxDepth)
        if shallow.problems.contains(where: { $0.kind == .tooDeep }) { return (JSONParser.parse(bytes), false) }
        return (shallow, true)
    }

    /// The content checks: JSON, schema, rules. `parsed` is `files["order.json"]` parsed, when
    /// the caller has it.
    func validateContent(files: [String: [UInt8]], parsed: JSONParseResult? = nil) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        guard let orderBytes = files[OrderArchive.orderPath] else {
            findings.append(
                Diagnostic(
                    "archive.missing-file", .error, "There is no order.json at the top level.", at: .init(file: OrderArchive.orderPath),
                    hint: "order.json sits at the root of the order."))
            return findings
        }
        let parsed = parsed ?? JSONParser.parse(orderBytes)
        let context = ValidationContext(files: files, root: parsed.root)
        for problem in parsed.problems {
            findings.append(
                context.diagnostic(
                    Self.ruleID(for: problem.kind), problem.message, pointer: problem.pointer ?? "", position: problem.position,
                    hint: Self.hint(for: problem.kind)))
        }
        if let root = parsed.root {
            for violation in orderSchema.validate(root) {
                findings.append(diagnostic(for: violation, context: context))
            }
        }
        DateRules.check(context, into: &findings)
        MoneyRules.check(context, into: &findings)
        NumberSizeRules.check(context, into: &findings)
        AddressRules.check(context, into: &findings)
        UniquenessRules.check(context, into: &findings)
        LocalizationRules.check(context, into: &findings)
        FileRules.check(context, into: &findings)
        CompatibilityRules.check(context, into: &findings)
        return findings
    }

    static func hint(for kind: JSONProblem.Kind) -> String {
        switch kind {
        case .syntax: "Fix the JSON here (strict JSON: no trailing commas or comments); `python3 -m json.tool order.json` agrees."
        case .tooDeep: "No order nests that deep; check for a generator bug."
        case .duplicateKey: "Keep one of the two; which one Wallet reads is undefined."
        case .byteOrderMark: "Save order.json as UTF-8 without a byte-order mark."
        case .invalidUTF8: "Save order.json as UTF-8."
        case .invalidUnicodeEscape: "Write the character itself, or a valid \\uD8xx\\uDCxx surrogate pair."
        }
    }

    static func ruleID(for kind: JSONProblem.Kind) -> String {
        switch kind {
        case .syntax: "json.syntax"
        case .tooDeep: "json.too-deep"
        case .duplicateKey: "json.duplicate-key"
        case .byteOrderMark: "json.byte-order-mark"
        case .invalidUTF8: "json.invalid-utf8"
        case .invalidUnicodeEscape: "json.invalid-unicode-escape"
        }
    }

    /// Turns a schema violation into a finding with a rule, a location and a fix.
    func diagnostic(for violation: SchemaViolation, context: ValidationContext) -> Diagnostic {
        let pointer = violation.instancePointer
        let field = pointer.isEmpty ? "the order" : pointer
        switch violation.keyword {
        case "additionalProperties":
            let name = violation.property ?? "?"
            let known = allowedProperties(atSchemaPointer: violation.schemaPointer)
            let suggestion = NearestName.suggestion(for: name, among: known)
            return context.diagnostic(
                "schema.unknown-key", "Unknown key '\(name)' in \(field); Wallet ignores it.",
                pointer: pointer + "/" + JSONPointer.escape(name), position: violation.instancePosition,
                hint: suggestion.map { "Did you mean '\($0)'?" } ?? "Remove it; known keys: \(known.sorted().joined(separator: ", ")).")
        case "required":
            return context.diagnostic(
                "schema.required", "\(field) is missing the required key '\(violation.property ?? "?")'.", pointer: pointer,
                position: violation.instancePosition, hint: violation.schemaDescription.map { "Add it. \($0)" } ?? "Add it.")
        case "enum", "const":
            let value = context.root?.resolve(pointer: pointer)?.stringValue
            let allowed = (violation.allowedValues ?? []).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            let suggestion = value.flatMap { NearestName.suggestion(for: $0, among: allowed) }
            let rule = pointer.hasSuffix("/fulfillmentType") ? "schema.fulfillment" : violation.keyword == "enum" ? "schema.enum" : "schema.const"
            return context.diagnostic(
                rule, violation.message, pointer: pointer, position: violation.instancePosition,
                hint: suggestion.map { violation.message.contains("did you mean") ? "Values are case-sensitive." : "Did you mean '\($0)'? Values are case-sensitive." }
                    ?? "Allowed: \(allowed.joined(separator: ", ")).")
        default:
            let rule: String
            switch violation.keyword {
            case "type": rule = "schema.type"
            case "format": rule = "schema.format"
            case "pattern": rule = "schema.pattern"
            case "minLength", "maxLength", "minItems", "maxItems": rule = "schema.length"
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum": rule = "schema.range"
            case "dependentRequired": rule = "schema.dependent-required"
            case "anyOf", "oneOf", "allOf", "if", "then":
                rule = pointer.hasPrefix("/fulfillments/") ? "schema.fulfillment" : "schema.violation"
            default: rule = "schema.violation"
            }
            return context.diagnostic(
                rule, "\(field): \(violation.message)", pointer: pointer, position: violation.instancePosition,
                hint: violation.schemaDescription)
        }
    }

    /// The property names the schema object that holds `…/additionalProperties` defines.
    func allowedProperties(atSchemaPointer pointer: String) -> [String] {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return [] }
        let parent = String(pointer[..<slash.lowerBound])
        return orderSchemaDocument.resolve(pointer: parent)?["properties"]?.members?.map(\.key) ?? []
    }
}
