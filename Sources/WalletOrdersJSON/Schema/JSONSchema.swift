/// A compiled JSON Schema (draft 2020-12) that validates ``JSONNode`` documents.
///
/// The schema document is evaluated, not restated in Swift: ``init(document:registry:)`` compiles it
/// once into an internal program (references resolved to indices, regular expressions compiled,
/// property names in dictionaries), and ``validate(_:)`` runs that program against an instance,
/// collecting every violation. A value is immutable and `Sendable`: compile once, share it, and
/// validate from any number of tasks at once.
///
/// ## What is evaluated
///
/// Every keyword of draft 2020-12's core, applicator, unevaluated, validation, meta-data, format
/// annotation and content vocabularies:
///
/// - Core: `$schema` (its value is ignored: every schema is read as 2020-12), `$id`, `$anchor`,
///   `$dynamicAnchor`, `$ref`, `$dynamicRef`, `$defs`, `$comment`. `$vocabulary` is accepted and
///   ignored: it only means something in a meta-schema, and meta-schemas are not read.
///   References are resolved against the `$id` base URIs and the `registry`; fragments are
///   JSON Pointers or anchors.
/// - Applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`,
///   `properties`, `patternProperties`, `additionalProperties`, `propertyNames`, `prefixItems`,
///   `items`, `contains`, `unevaluatedProperties`, `unevaluatedItems`; boolean schemas.
/// - Validation: `type` (`integer` is any number without a fractional part, so `1.0` is one),
///   `enum` and `const` (JSON equality: `1` equals `1.0`, object member order does not matter),
///   `required`, `dependentRequired`, `minProperties`, `maxProperties`, `minItems`, `maxItems`,
///   `uniqueItems`, `minContains`, `maxContains`, `minLength` and `maxLength` (in Unicode scalars),
///   `pattern` (an unanchored search with ECMA-262-style `\d` and `\w`), `minimum`, `maximum`,
///   `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf` (exact decimal arithmetic on the
///   number's text, whatever its size or exponent).
/// - `format` asserts `date-time` (RFC 3339 §5.6, leap seconds only at 23:59 UTC), `uri`
///   (an absolute RFC 3986 URI), `duration` (RFC 3339 appendix A) and, beyond the specification,
///   `iso8601-duration` (an ISO 8601-1 duration, which may leave components out and put a decimal
///   fraction on the lowest-order one); every other format is an annotation and always passes.
/// - Annotations with no assertion: `title`, `description`, `default`, `examples`, `deprecated`,
///   `readOnly`, `writeOnly`, `contentEncoding`, `contentMediaType`, `contentSchema`.
///
/// Keywords no vocabulary defines are ignored, as the specification requires. The draft 2019-09
/// and draft-07 keywords that 2020-12 replaced (``unsupportedKeywords``) make
/// ``init(document:registry:)`` throw, because ignoring them would silently drop a constraint the
/// author meant.
///
/// ```swift
/// let schema = try JSONSchema(document: schemaRoot)
/// for violation in schema.validate(orderRoot) {
///     print("\(violation.instancePosition) \(violation.instancePointer): \(violation.message)")
/// }
/// ```
package struct JSONSchema: Sendable {
    /// The compiled program.
    let program: SchemaProgram

    /// The keywords that make compilation throw ``JSONSchemaError/Kind-swift.struct/unsupportedKeyword``:
    /// `$recursiveRef`, `$recursiveAnchor` (draft 2019-09; 2020-12 has `$dynamicRef`),
    /// `dependencies` (draft-07; now `dependentRequired` and `dependentSchemas`) and
    /// `additionalItems` (draft 2019-09; now `items` after `prefixItems`).
    package static let unsupportedKeywords: [String] = SchemaCompiler.unsupportedKeywords

    /// Compiles a schema document once: resolves `$id`, `$anchor`, `$dynamicAnchor`, `$ref` and
    /// `$dynamicRef`, checks every keyword's value and precompiles `pattern` and
    /// `patternProperties`.
    ///
    /// - Parameters:
    ///   - document: the schema, a JSON object or `true`/`false`.
    ///   - registry: other schema documents by absolute URI, for `$ref`s that leave `document`
    ///     (`"$ref": "https://example.com/common.json#/$defs/Amount"`). A document's own `$id`
    ///     is honored too.
    /// - Throws: ``JSONSchemaError`` (always that type) naming the schema location (a JSON Pointer into `document`,
    ///   or `uri#pointer` for a registry document) when a keyword's value is not valid, a
    ///   reference can't be resolved, a regular expression does not compile, or a keyword of
    ///   ``unsupportedKeywords`` is used.
    package init(document: JSONNode, registry: [String: JSONNode] = [:]) throws {
        program = try SchemaCompiler.compile(document: document, registry: registry)
    }

    /// Validates `instance` and returns every violation (not just the first), in document order
    /// of the offending values; an empty array means the instance is valid.
    ///
    /// A failed `anyOf` or `oneOf` is one violation that names the closest alternative and its
    /// problem, rather than every problem of every alternative. A failed `then` or `else`
    /// reports that subschema's own violations.
    package func validate(_ instance: JSONNode) -> [SchemaViolation] {
        var evaluator = SchemaEvaluator(program: program, collecting: true)
        var annotations = Annotations()
        _ = evaluator.evaluate(program.root, instance, &annotations, inherited: -1)
        if evaluator.violations.count > 1 {
            // Stable: violations of one value keep the order of the schema's keywords.
            evaluator.violations = evaluator.violations.enumerated()
                .sorted { ($0.element.instancePosition.offset, $0.offset) < ($1.element.instancePosition.offset, $1.offset) }
                .map(\.element)
        }
        return evaluator.violations
    }

    /// Whether `instance` is valid: ``validate(_:)`` without the reports, stopping at the first
    /// violation.
    package func isValid(_ instance: JSONNode) -> Bool {
        var evaluator = SchemaEvaluator(program: program, collecting: false)
        var annotations = Annotations()
        return evaluator.evaluate(program.root, instance, &annotations, inherited: -1)
    }
}

/// One way an instance breaks its schema: which keyword, where in the instance and in the schema,
/// and a message a merchant can act on.
package struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// The schema keyword that failed: `required`, `type`, `additionalProperties`, `enum`,
    /// `format`, `anyOf`, … For a `false` subschema it is the keyword that holds it
    /// (`properties`, `items`, `allOf`, …), or `false` for a `false` root.
    package var keyword: String
    /// The RFC 6901 JSON Pointer of the offending value (`""` is the root). For `required`,
    /// `dependentRequired`, `additionalProperties`, `unevaluatedProperties` and `propertyNames`
    /// it is the object's pointer and ``property`` names the key.
    package var instancePointer: String
    /// Where the offending value starts. For `required` and `dependentRequired` that is the
    /// object; for `additionalProperties`, `unevaluatedProperties`, `propertyNames` and a `false`
    /// property schema it is the offending key.
    package var instancePosition: SourcePosition
    /// The failing keyword's location in its schema document as a JSON Pointer, such as
    /// `/$defs/Merchant/required`. A keyword of a registry document is `uri#pointer`.
    package var schemaPointer: String
    /// One line a merchant understands, such as `missing required key 'merchantIdentifier'`,
    /// `'OnTheWay' is not one of open, processing, onTheWay, …` or
    /// `expected a string, found a number`.
    package var message: String
    /// The missing or unexpected property name, for `required`, `dependentRequired`,
    /// `additionalProperties`, `unevaluatedProperties`, `propertyNames` and `false` property
    /// schemas.
    package var property: String?
    /// For `enum` and `const`: the allowed values as JSON text (`"\"open\""`, `1`, `null`).
    package var allowedValues: [String]?
    /// The `description` of the innermost subschema that holds the failing keyword; when that
    /// subschema has none, the description of the nearest one that applied it at the same
    /// instance location (through `$ref`, `allOf`, `then`, …). `nil` when neither exists.
    package var schemaDescription: String?

    /// Creates a violation.
    package init(
        keyword: String, instancePointer: String, instancePosition: SourcePosition, schemaPointer: String,
        message: String, property: String? = nil, allowedValues: [String]? = nil, schemaDescription: String? = nil
    ) {
        self.keyword = keyword
        self.instancePointer = instancePointer
        self.instancePosition = instancePosition
        self.schemaPointer = schemaPointer
        self.message = message
        self.property = property
        self.allowedValues = allowedValues
        self.schemaDescription = schemaDescription
    }

    /// `line:column pointer: message [keyword at schemaPointer]`.
    package var description: String {
        "\(instancePosition) \(instancePointer.isEmpty ? "(root)" : instancePointer): \(message) [\(keyword) at \(schemaPointer)]"
    }
}

/// Why a schema document could not be compiled, and where in it.
package struct JSONSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. Stable; safe to match on.
    package struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The stable text form, such as `unresolvable-reference`.
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// The stable text form.
        package var description: String { rawValue }

        /// A keyword's value is not what draft 2020-12 allows (`"minLength": -1`,
        /// `"type": "text"`, a pattern that does not compile, a duplicate `$id`, …).
        package static let invalidSchema = Kind("invalid-schema")
        /// A `$ref` or `$dynamicRef` names a document, anchor or JSON Pointer that is not there.
        package static let unresolvableReference = Kind("unresolvable-reference")
        /// The schema uses a keyword of ``JSONSchema/unsupportedKeywords``.
        package static let unsupportedKeyword = Kind("unsupported-keyword")
    }

    /// What kind of problem this is.
    package var kind: Kind
    /// The JSON Pointer of the offending keyword in the schema document (`uri#pointer` for a
    /// registry document), such as `/$defs/Merchant/properties/url/$ref`.
    package var schemaPointer: String
    /// What is wrong, in one sentence.
    package var message: String

    /// Creates an error.
    package init(_ kind: Kind, at schemaPointer: String, _ message: String) {
        self.kind = kind
        self.schemaPointer = schemaPointer
        self.message = message
    }

    /// `schema location: message`.
    package var description: String {
        "\(schemaPointer.isEmpty ? "(schema root)" : schemaPointer): \(message)"
    }
}
