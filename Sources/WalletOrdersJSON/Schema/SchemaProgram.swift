import Foundation

/// A compiled schema: every reachable subschema as a ``SchemaNode``, references as node indices.
final class SchemaProgram: Sendable {
    /// The subschemas; `$ref`s and children are indices into this array.
    let nodes: [SchemaNode]
    /// The document's root schema.
    let root: Int
    /// Whether some subschema uses `unevaluatedProperties` or `unevaluatedItems`, so evaluation
    /// has to record which properties and items were evaluated.
    let tracksAnnotations: Bool
    /// Whether some `$dynamicRef` resolves dynamically, so evaluation keeps the dynamic scope.
    let usesDynamicScope: Bool
    /// Per schema resource: its `$dynamicAnchor`s as node indices (only names a `$dynamicRef` uses).
    let dynamicAnchors: [[String: Int]]

    init(nodes: [SchemaNode], root: Int, tracksAnnotations: Bool, usesDynamicScope: Bool, dynamicAnchors: [[String: Int]]) {
        self.nodes = nodes
        self.root = root
        self.tracksAnnotations = tracksAnnotations
        self.usesDynamicScope = usesDynamicScope
        self.dynamicAnchors = dynamicAnchors
    }
}

/// The JSON types a `type` keyword allows.
struct TypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = TypeSet(rawValue: 1)
    static let boolean = TypeSet(rawValue: 2)
    static let object = TypeSet(rawValue: 4)
    static let array = TypeSet(rawValue: 8)
    static let number = TypeSet(rawValue: 16)
    static let string = TypeSet(rawValue: 32)
    static let integer = TypeSet(rawValue: 64)

    /// The set for a `type` name, or `nil` for an unknown name.
    init?(name: String) {
        switch name {
        case "null": self = .null
        case "boolean": self = .boolean
        case "object": self = .object
        case "array": self = .array
        case "number": self = .number
        case "string": self = .string
        case "integer": self = .integer
        default: return nil
        }
    }

    init(rawValue: UInt8) { self.rawValue = rawValue }
}

/// One compiled subschema.
final class SchemaNode: Sendable {
    /// Where the subschema is: a JSON Pointer into the root document, or `uri#pointer` for a
    /// registry document.
    let location: String
    /// `true` or `false` for a boolean schema; `nil` for an object schema.
    let constant: Bool?
    /// The keyword that holds this subschema (`properties`, `items`, `$ref`, …), for reports
    /// about a `false` schema; empty for a root.
    let holder: String
    /// The subschema's `description`.
    let description: String?
    /// The subschema's `title`.
    let title: String?
    /// The `$defs` name the subschema is defined under, if any.
    let name: String?
    /// The schema resource the subschema belongs to (for `$dynamicRef`).
    let resource: Int
    /// The allowed types, or `nil` without a `type` keyword.
    let types: TypeSet?
    /// The `type` names as written, for messages.
    let typeNames: [String]
    /// The keywords that apply to any type of instance, in schema order.
    let keywords: [Keyword]
    /// The object keywords, when there are any.
    let object: Rules<ObjectRules>?
    /// The array keywords, when there are any.
    let array: Rules<ArrayRules>?
    /// The string keywords, when there are any.
    let string: Rules<StringRules>?
    /// The number keywords, when there are any.
    let number: Rules<NumberRules>?
    /// `unevaluatedProperties`.
    let unevaluatedProperties: Int?
    /// `unevaluatedItems`.
    let unevaluatedItems: Int?

    /// A boolean schema.
    init(constant: Bool, location: String, holder: String, resource: Int) {
        self.location = location
        self.constant = constant
        self.holder = holder
        self.description = nil
        self.title = nil
        self.name = nil
        self.resource = resource
        self.types = nil
        self.typeNames = []
        self.keywords = []
        self.object = nil
        self.array = nil
        self.string = nil
        self.number = nil
        self.unevaluatedProperties = nil
        self.unevaluatedItems = nil
    }

    /// An object schema.
    init(
        location: String, holder: String, description: String?, title: String?, name: String?, resource: Int,
        types: TypeSet?, typeNames: [String], keywords: [Keyword], object: Rules<ObjectRules>?, array: Rules<ArrayRules>?,
        string: Rules<StringRules>?, number: Rules<NumberRules>?, unevaluatedProperties: Int?, unevaluatedItems: Int?
    ) {
        self.location = location
        self.constant = nil
        self.holder = holder
        self.description = description
        self.title = title
        self.name = name
        self.resource = resource
        self.types = types
        self.typeNames = typeNames
        self.keywords = keywords
        self.object = object
        self.array = array
        self.string = string
        self.number = number
        self.unevaluatedProperties = unevaluatedProperties
        self.unevaluatedItems = unevaluatedItems
    }
}

/// A group of keyword rules, boxed so that evaluation reads them without copying the struct.
final class Rules<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A keyword that applies whatever the instance's type.
enum Keyword: Sendable {
    case ref(Int)
    /// `$dynamicRef`: the statically resolved node, and the anchor name when it resolves dynamically.
    case dynamicRef(Int, anchor: String?)
    case allOf([Int])
    case anyOf([Int])
    case oneOf([Int])
    case not(Int)
    case conditional(if: Int, then: Int?, else: Int?)
    case enumeration(AllowedValues)
    case constant(AllowedValues)
}

/// The values of `enum` or `const`.
///
/// A class, so that ``Keyword`` holds one reference, not eight: a wide payload gave the enum's
/// case tag to the spare bits of pointers inside it, which LeakSanitizer (the fuzz targets) then
/// no longer recognized as pointers and reported their arrays as leaked.
final class AllowedValues: Sendable {
    /// For lookups under JSON equality.
    let values: Set<CanonicalValue>
    /// The string values, for the usual lookup (a string instance equals only a string value).
    let strings: ExactKeyTable
    /// Each value as compact JSON text, in schema order.
    let texts: [String]
    /// Each value for a message: strings bare, everything else as JSON text.
    let display: [String]

    init(values: Set<CanonicalValue>, strings: ExactKeyTable, texts: [String], display: [String]) {
        self.values = values
        self.strings = strings
        self.texts = texts
        self.display = display
    }

    /// Whether `instance` equals one of the values (JSON equality).
    func contains(_ instance: JSONNode) -> Bool {
        if case .string(let string) = instance.value { return strings.index(of: string) != nil }
        return values.contains(CanonicalValue(instance))
    }
}

/// `properties`, `patternProperties`, `additionalProperties`, `propertyNames`, `required`,
/// `dependentRequired`, `dependentSchemas`, `minProperties` and `maxProperties`.
struct ObjectRules: Sendable {
    /// `properties`: the names, in schema order; a name's index there (its slot) is also its
    /// subschema's index in ``propertyNodes``.
    var properties = ExactKeyTable()
    var propertyNodes: [Int] = []
    /// The `properties` names in schema order.
    var propertyOrder: [String] { properties.keys }
    /// For each `required` name, its slot in ``properties`` when it has one and there are at most
    /// 64 properties (so a `UInt64` can record which were seen); otherwise -1.
    var requiredSlots: [Int] = []
    var patternProperties: [(pattern: SchemaPattern, node: Int)] = []
    var additionalProperties: Int?
    var propertyNames: Int?
    var required: [String] = []
    var dependentRequired: [(key: String, required: [String])] = []
    var dependentSchemas: [(key: String, node: Int)] = []
    var minProperties: Int?
    var maxProperties: Int?
}

/// `prefixItems`, `items`, `contains`, `minContains`, `maxContains`, `minItems`, `maxItems` and
/// `uniqueItems`.
struct ArrayRules: Sendable {
    var prefixItems: [Int] = []
    var items: Int?
    var contains: Int?
    var minContains: Int?
    var maxContains: Int?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
}

/// `minLength`, `maxLength`, `pattern` and `format`.
struct StringRules: Sendable {
    var minLength: Int?
    var maxLength: Int?
    var pattern: SchemaPattern?
    var format: AssertedFormat?
}

/// A number bound: the exact value and its text as written.
struct NumberBound: Sendable {
    var value: ExactDecimal
    var text: String
}

/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`.
struct NumberRules: Sendable {
    var minimum: NumberBound?
    var maximum: NumberBound?
    var exclusiveMinimum: NumberBound?
    var exclusiveMaximum: NumberBound?
    var multipleOf: NumberBound?
}

/// A string compared and hashed by its Unicode scalars, as JSON compares strings (`String`'s `==`
/// also equates canonically equivalent text).
struct ExactString: Hashable, Sendable {
    let string: String

    static func == (lhs: Self, rhs: Self) -> Bool { sameScalars(lhs.string, rhs.string) }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Whether two strings have the same Unicode scalars: `==` (canonical equivalence) rejects almost
/// every other pair quickly, and equal UTF-8 bytes confirm.
@inline(__always)
func sameScalars(_ lhs: String, _ rhs: String) -> Bool {
    guard lhs == rhs else { return false }
    var left = lhs
    var right = rhs
    return left.withUTF8 { leftBytes in
        right.withUTF8 { rightBytes in
            leftBytes.count == rightBytes.count
                && (leftBytes.isEmpty || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0)
        }
    }
}

/// A JSON value under JSON equality: numbers by exact value, strings by scalars, objects as
/// unordered maps (a duplicated key counts once, with its first value).
enum CanonicalValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(ExactDecimal)
    /// A number whose text is not a JSON number (never made by the parser).
    case malformedNumber(String)
    case string(ExactString)
    case array([CanonicalValue])
    case object([ExactString: CanonicalValue])

    init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let text): self = ExactDecimal(text).map(CanonicalValue.number) ?? .malformedNumber(text)
        case .string(let text): self = .string(ExactString(string: text))
        case .array(let elements): self = .array(elements.map(CanonicalValue.init))
        case .object(let members):
            var map: [ExactString: CanonicalValue] = [:]
            for member in members where map[ExactString(string: member.key)] == nil {
                map[ExactString(string: member.key)] = CanonicalValue(member.value)
            }
            self = .object(map)
        }
    }
}

/// Compact JSON text for a value, for `allowedValues` and messages.
func jsonText(_ node: JSONNode) -> String {
    var text = ""
    writeJSON(node, to: &text)
    return text
}

private func writeJSON(_ node: JSONNode, to text: inout String) {
    switch node.value {
    case .null: text += "null"
    case .bool(let value): text += value ? "true" : "false"
    case .number(let number): text += number
    case .string(let string): writeJSONString(string, to: &text)
    case .array(let elements):
        text += "["
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            writeJSON(element, to: &text)
        }
        text += "]"
    case .object(let members):
        text += "{"
        for (index, member) in members.enumerated() {
            if index > 0 { text += "," }
            writeJSONString(member.key, to: &text)
            text += ":"
            writeJSON(member.value, to: &text)
        }
        text += "}"
    }
}

/// `string` as a JSON string literal.
package func writeJSONString(_ string: String, to text: inout String) {
    text += "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": text += "\\\""
        case "\\": text += "\\\\"
        case "\n": text += "\\n"
        case "\r": text += "\\r"
        case "\t": text += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: text.unicodeScalars.append(scalar)
        }
    }
    text += "\""
}
