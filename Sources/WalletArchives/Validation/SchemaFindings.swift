import Foundation
package import WalletOrdersJSON

/// A content file (`order.json`, `pass.json`) judged against its JSON Schema (`Schemas/`,
/// evaluated, not restated in Swift): each violation as a finding with a rule, the line and
/// column, and a fix taken from the schema itself (the nearest known key, the allowed values, the
/// property's description). One per kind of archive; immutable and `Sendable`.
package struct SchemaFindings: Sendable {
    /// The kind of archive whose content file this schema describes.
    package let kind: ArchiveKind
    /// The compiled schema.
    package let schema: JSONSchema
    /// The schema document, for descriptions and the keys allowed at a place.
    package let document: JSONNode

    /// Compiles the schema `name` (`order.schema`, `pass.schema`) compiled into the library.
    ///
    /// - Throws: ``WalletOrdersError`` when the bundled schema can't be loaded (a packaging error).
    package init(kind: ArchiveKind, schema name: String) throws {
        self.kind = kind
        let document = try Self.bundledSchema(name)
        self.document = document
        do {
            self.schema = try JSONSchema(document: document)
        } catch {
            throw WalletOrdersError(.invalidOrder, "The bundled schema \(name).json does not compile: \(error)", underlying: error)
        }
    }

    /// Every violation of `root`, one per value (``onePerValue(_:)``), as findings; `include`
    /// leaves out violations another rule reports.
    package func findings(
        _ root: JSONNode, context: ValidationContext, including include: (SchemaViolation) -> Bool = { _ in true }
    ) -> [Diagnostic] {
        Self.onePerValue(schema.validate(root)).filter(include).map { diagnostic(for: $0, context: context) }
    }

    /// The keywords that judge a value itself, most telling first: a value that fails several
    /// (a number where an enum's string belongs; `USA` too long and not two letters) is one
    /// problem, reported once, by the first of these it fails.
    package static let valueKeywords = [
        "type", "enum", "const", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    ]

    /// `violations` with one value finding per instance: see ``valueKeywords``. Findings about
    /// an object's keys (required, unknown, dependent) are each their own problem and all kept.
    package static func onePerValue(_ violations: [SchemaViolation]) -> [SchemaViolation] {
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

    /// The finding for a key the schema doesn't define, with the nearest known key and the keys
    /// allowed at that place.
    package func unknownKey(
        _ name: String, in pointer: String, position: SourcePosition?, known: [String], context: ValidationContext
    ) -> Diagnostic {
        let suggestion = NearestName.suggestion(for: name, among: known)
        var hint = suggestion.map { "Did you mean '\($0)'?" } ?? "Remove it, or check the spelling against the schema."
        if let allowed = Self.allowedKeysSentence(known, within: Self.hintLength - hint.count - 1) { hint += " " + allowed }
        return context.diagnostic(
            .schemaUnknownKey, "Unknown key '\(name)' in \(pointer.isEmpty ? "the \(kind.noun)" : pointer); Wallet ignores it.",
            pointer: pointer + "/" + JSONPointer.escape(name), position: position, hint: hint)
    }

    /// A hint is a line or two: at most this many characters.
    package static let hintLength = 240

    /// At most this many allowed keys are named in an unknown key's hint.
    package static let allowedKeysShown = 15

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
    package static func brief(_ description: String) -> String {
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
    package func diagnostic(for violation: SchemaViolation, context: ValidationContext) -> Diagnostic {
        let pointer = violation.instancePointer
        let field = pointer.isEmpty ? "the \(kind.noun)" : pointer
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
    package func parentPointer(_ pointer: String) -> String {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return "" }
        return String(pointer[..<slash.lowerBound])
    }

    /// The description of property `name` in the schema object that holds `…/required` (or
    /// `…/dependentRequired`).
    package func propertyDescription(_ name: String, atSchemaPointer pointer: String) -> String? {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return nil }
        let parent = String(pointer[..<slash.lowerBound])
        return document.resolve(pointer: parent)?["properties"]?[name]?["description"]?.stringValue
    }

    /// The property names the schema object that holds `…/additionalProperties` defines.
    package func allowedProperties(atSchemaPointer pointer: String) -> [String] {
        guard let slash = pointer.range(of: "/", options: .backwards) else { return [] }
        let parent = String(pointer[..<slash.lowerBound])
        return document.resolve(pointer: parent)?["properties"]?.members?.map(\.key) ?? []
    }
    /// Parses a schema compiled into the library (``EmbeddedResources``, from `Schemas/`).
    package static func bundledSchema(_ name: String) throws -> JSONNode {
        guard let bytes = EmbeddedResources.bytes("Schemas/\(name).json") else {
            throw WalletOrdersError(.fileAccess, "The schema \(name).json is not embedded; run `make resources`.")
        }
        let parsed = JSONParser.parse(bytes)
        guard let root = parsed.root else {
            throw WalletOrdersError(.invalidOrder, "The bundled schema \(name).json is not valid JSON: \(parsed.problems)")
        }
        return root
    }
}
