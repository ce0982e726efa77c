// Why this file is long (about 600 lines): it is one compiler. `SchemaCompiler` turns every
// keyword of a schema document into a `SchemaNode`, resolving references as it goes; each
// keyword's compilation is short, and they share the compiler's registry and error handling.

import Foundation

/// A subschema's place: which document, and the JSON Pointer inside it.
///
/// Pointers compare by code points, as JSON keys do: `/properties/é` written as one code point
/// and as `e` + U+0301 are two places (`String`'s `==` would make them one).
struct SchemaLocation: Hashable, Sendable {
    var document: Int
    var pointer: String

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.document == rhs.document && sameScalars(lhs.pointer, rhs.pointer)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(document)
        hasher.combine(ExactString(string: pointer))
    }
}

/// Turns schema documents into a ``SchemaProgram``.
///
/// First every document is walked along the keywords that hold subschemas, registering each
/// `$id` (a schema resource and its base URI), `$anchor` and `$dynamicAnchor`. Then the root is
/// compiled, and with it every subschema it can reach (and every `$defs` entry, so a broken
/// definition is reported even when nothing uses it yet); a `$ref` becomes the index of its
/// target's node, compiled once however many references lead to it.
final class SchemaCompiler {
    /// Earlier drafts' keywords that 2020-12 replaced; see ``JSONSchema/unsupportedKeywords``.
    static let unsupportedKeywords = ["$recursiveRef", "$recursiveAnchor", "dependencies", "additionalItems"]

    /// The base URI of a root document without `$id`.
    static let defaultBase = "urn:x-wallet-orders:schema"

    private static let singleSchemaKeywords: Set<String> = [
        "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema",
    ]
    private static let schemaArrayKeywords: Set<String> = ["allOf", "anyOf", "oneOf", "prefixItems"]
    private static let schemaMapKeywords: Set<String> = ["$defs", "properties", "patternProperties", "dependentSchemas"]

    private struct Resource {
        var uri: String
        var dynamicAnchors: [String: SchemaLocation] = [:]
    }

    private var documents: [JSONNode] = []
    /// The URI each document was registered under (`nil` for the root document).
    private var documentNames: [String?] = []
    private var documentBases: [String] = []
    private var resources: [Resource] = []
    private var resourceLocations: [String: SchemaLocation] = [:]
    private var resourceIndices: [String: Int] = [:]
    private var anchors: [String: SchemaLocation] = [:]
    /// Base URI and resource of every subschema the walk saw.
    private var scopes: [SchemaLocation: (base: String, resource: Int)] = [:]
    /// Every subschema the walk saw, so compiling needs no JSON Pointer lookups.
    private var values: [SchemaLocation: JSONNode] = [:]

    private var nodeIndices: [SchemaLocation: Int] = [:]
    private var nodes: [SchemaNode?] = []
    private var tracksAnnotations = false
    private var dynamicAnchorNames: Set<String> = []

    static func compile(document: JSONNode, registry: [String: JSONNode]) throws(JSONSchemaError) -> SchemaProgram {
        let compiler = SchemaCompiler()
        try compiler.register(document, name: nil, base: defaultBase)
        for (uri, registered) in registry.sorted(by: { $0.key < $1.key }) {
            try compiler.register(registered, name: uri, base: URIReference(uri).textWithoutFragment)
        }
        let root = try compiler.compile(SchemaLocation(document: 0, pointer: ""), holder: "")
        return try compiler.finish(root: root)
    }

    // MARK: Registration

    private func register(_ document: JSONNode, name: String?, base: String) throws(JSONSchemaError) {
        let index = documents.count
        documents.append(document)
        documentNames.append(name)
        documentBases.append(base)
        let root = SchemaLocation(document: index, pointer: "")
        try walk(document, at: root, base: base, resource: addResource(base, at: root))
    }

    private func addResource(_ uri: String, at location: SchemaLocation) -> Int {
        if let existing = resourceIndices[uri] { return existing }
        resources.append(Resource(uri: uri))
        resourceIndices[uri] = resources.count - 1
        resourceLocations[uri] = location
        return resources.count - 1
    }

    private func walk(_ node: JSONNode, at location: SchemaLocation, base: String, resource: Int) throws(JSONSchemaError) {
        values[location] = node
        guard case .object(let members) = node.value else {
            scopes[location] = (base, resource)
            return
        }
        var base = base
        var resource = resource
        if let id = node["$id"]?.stringValue {
            let resolved = URIReference(id).resolved(against: URIReference(base))
            if let fragment = resolved.fragment, !fragment.isEmpty {
                throw JSONSchemaError(
                    .invalidSchema, at: display(location, "$id"),
                    "'$id' must not have a fragment ('\(id)'); use '$anchor' to name a subschema")
            }
            let uri = resolved.textWithoutFragment
            if let existing = resourceLocations[uri], existing != location {
                if existing.document == location.document {
                    throw JSONSchemaError(
                        .invalidSchema, at: display(location, "$id"),
                        "'\(uri)' is already the '$id' of \(display(existing, nil))")
                }
                // A registry document that repeats another document's $id: the first one wins.
            } else {
                resource = addResource(uri, at: location)
            }
            base = uri
        }
        scopes[location] = (base, resource)
        for keyword in ["$anchor", "$dynamicAnchor"] {
            guard let anchor = node[keyword]?.stringValue else { continue }
            guard Self.isAnchorName(anchor) else {
                throw JSONSchemaError(
                    .invalidSchema, at: display(location, keyword),
                    "'\(anchor)' is not an anchor name (a letter or '_', then letters, digits, '-', '_' or '.')")
            }
            let key = base + "#" + anchor
            if let existing = anchors[key], existing != location, keyword == "$anchor" {
                throw JSONSchemaError(
                    .invalidSchema, at: display(location, keyword),
                    "the anchor '\(anchor)' is already defined at \(display(existing, nil))")
            }
            anchors[key] = location
            if keyword == "$dynamicAnchor" { resources[resource].dynamicAnchors[anchor] = location }
        }
        for member in members {
            let childPointer = location.pointer + "/" + JSONPointer.escape(member.key)
            if Self.singleSchemaKeywords.contains(member.key) {
                try walk(member.value, at: SchemaLocation(document: location.document, pointer: childPointer), base: base, resource: resource)
            } else if Self.schemaArrayKeywords.contains(member.key), let elements = member.value.elements {
                for (index, element) in elements.enumerated() {
                    try walk(
                        element, at: SchemaLocation(document: location.document, pointer: childPointer + "/\(index)"),
                        base: base, resource: resource)
                }
            } else if Self.schemaMapKeywords.contains(member.key), let entries = member.value.members {
                for entry in entries {
                    try walk(
                        entry.value,
                        at: SchemaLocation(document: location.document, pointer: childPointer + "/" + JSONPointer.escape(entry.key)),
                        base: base, resource: resource)
                }
            }
        }
    }

    private static func isAnchorName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic && first.isASCII || first == "_" else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == ".")
        }
    }

    // MARK: Locations

    /// `pointer` for the root document, `uri#pointer` for a registry document, plus `/keyword`.
    private func display(_ location: SchemaLocation, _ keyword: String?) -> String {
        var pointer = location.pointer
        if let keyword { pointer += "/" + JSONPointer.escape(keyword) }
        guard let name = documentNames[location.document] else { return pointer }
        return name + "#" + pointer
    }

    private func value(at location: SchemaLocation) -> JSONNode? {
        values[location] ?? documents[location.document].resolve(pointer: location.pointer)
    }

    /// The base URI and resource of a subschema the walk did not see (a `$ref` into an unknown
    /// keyword): the `$id`s along its pointer.
    private func scope(of location: SchemaLocation) -> (base: String, resource: Int) {
        if let known = scopes[location] { return known }
        var base = documentBases[location.document]
        var resource = resourceIndices[base] ?? 0
        var node = documents[location.document]
        var tokens = location.pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().makeIterator()
        while true {
            if let id = node["$id"]?.stringValue {
                base = URIReference(id).resolved(against: URIReference(base)).textWithoutFragment
                resource = resourceIndices[base] ?? resource
            }
            guard let token = tokens.next() else { break }
            let key = JSONPointer.unescape(token)
            if let next = node[key] {
                node = next
            } else if let elements = node.elements, let index = Int(key), elements.indices.contains(index) {
                node = elements[index]
            } else {
                break
            }
        }
        return (base, resource)
    }

    /// Resolves a `$ref` / `$dynamicRef` value against `base`.
    private func resolve(_ reference: String, base: String, at keyword: String) throws(JSONSchemaError) -> (SchemaLocation, fragment: String) {
        let target = URIReference(reference).resolved(against: URIReference(base))
        let uri = target.textWithoutFragment
        guard let resource = resourceLocations[uri] else {
            throw JSONSchemaError(
                .unresolvableReference, at: keyword,
                "cannot resolve '\(reference)': no schema has the URI '\(uri)' (not an '$id' here, not in the registry)")
        }
        let fragment = URIReference.percentDecoded(target.fragment ?? "")
        let document = uri == Self.defaultBase ? "this schema" : "'\(uri)'"
        if fragment.isEmpty { return (resource, fragment) }
        if fragment.hasPrefix("/") {
            let location = SchemaLocation(document: resource.document, pointer: resource.pointer + fragment)
            guard value(at: location) != nil else {
                throw JSONSchemaError(
                    .unresolvableReference, at: keyword,
                    "cannot resolve '\(reference)': the JSON Pointer '\(fragment)' names nothing in \(document)")
            }
            return (location, fragment)
        }
        guard let location = anchors[uri + "#" + fragment] else {
            throw JSONSchemaError(
                .unresolvableReference, at: keyword,
                "cannot resolve '\(reference)': \(document) has no '$anchor' or '$dynamicAnchor' named '\(fragment)'")
        }
        return (location, fragment)
    }

    // MARK: Compilation

    private func finish(root: Int) throws(JSONSchemaError) -> SchemaProgram {
        // Compile the dynamic anchors that some `$dynamicRef` may land on.
        var dynamicAnchors = [[String: Int]](repeating: [:], count: resources.count)
        var done: Set<String> = []
        while done.count < dynamicAnchorNames.count {
            for name in dynamicAnchorNames.subtracting(done) {
                done.insert(name)
                for (index, resource) in resources.enumerated() {
                    if let location = resource.dynamicAnchors[name] {
                        dynamicAnchors[index][name] = try compile(location, holder: "$dynamicRef")
                    }
                }
            }
        }
        return SchemaProgram(
            nodes: nodes.map { $0! }, root: root, tracksAnnotations: tracksAnnotations,
            usesDynamicScope: !dynamicAnchorNames.isEmpty, dynamicAnchors: dynamicAnchors)
    }

    /// The node index of the subschema at `location`, compiling it (and what it reaches) once.
    private func compile(_ location: SchemaLocation, holder: String) throws(JSONSchemaError) -> Int {
        if let index = nodeIndices[location] { return index }
        guard let schema = value(at: location) else {
            throw JSONSchemaError(.unresolvableReference, at: display(location, nil), "there is no subschema here")
        }
        let index = nodes.count
        nodes.append(nil)
        nodeIndices[location] = index
        nodes[index] = try build(schema, at: location, holder: holder)
        return index
    }

    private func build(_ schema: JSONNode, at location: SchemaLocation, holder: String) throws(JSONSchemaError) -> SchemaNode {
        let (base, resource) = scope(of: location)
        let here = display(location, nil)
        let members: [JSONMember]
        switch schema.value {
        case .bool(let constant):
            return SchemaNode(constant: constant, location: here, holder: holder, resource: resource)
        case .object(let objectMembers):
            members = objectMembers
        default:
            throw JSONSchemaError(
                .invalidSchema, at: here, "a schema must be an object or a boolean, found \(article(schema.typeName))")
        }

        var types: TypeSet?
        var typeNames: [String] = []
        var keywords: [Keyword] = []
        var object = ObjectRules()
        var hasObject = false
        var array = ArrayRules()
        var hasArray = false
        var string = StringRules()
        var hasString = false
        var number = NumberRules()
        var hasNumber = false
        var unevaluatedProperties: Int?
        var unevaluatedItems: Int?
        var description: String?
        var title: String?
        var seen: Set<String> = []

        func pointer(_ keyword: String) -> String { display(location, keyword) }
        func child(_ keyword: String, _ suffix: String? = nil) -> SchemaLocation {
            var pointer = location.pointer + "/" + JSONPointer.escape(keyword)
            if let suffix { pointer += "/" + JSONPointer.escape(suffix) }
            return SchemaLocation(document: location.document, pointer: pointer)
        }
        func invalid(_ keyword: String, _ message: String) -> JSONSchemaError {
            JSONSchemaError(.invalidSchema, at: pointer(keyword), message)
        }
        func nonNegativeInteger(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> Int {
            guard let text = value.numberText, let integer = ExactDecimal(text)?.nonNegativeInteger else {
                throw invalid(keyword, "'\(keyword)' must be a non-negative integer, found \(jsonText(value))")
            }
            return integer
        }
        func bound(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> NumberBound {
            guard let text = value.numberText, let decimal = ExactDecimal(text) else {
                throw invalid(keyword, "'\(keyword)' must be a number, found \(jsonText(value))")
            }
            return NumberBound(value: decimal, text: text)
        }
        func subschema(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> Int {
            try compile(child(keyword), holder: keyword)
        }
        func subschemas(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> [Int] {
            guard let elements = value.elements, !elements.isEmpty else {
                throw invalid(keyword, "'\(keyword)' must be a non-empty array of schemas")
            }
            var indices: [Int] = []
            for position in elements.indices {
                indices.append(try compile(child(keyword, String(position)), holder: keyword))
            }
            return indices
        }
        func schemaMap(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> [(String, Int)] {
            guard let entries = value.members else { throw invalid(keyword, "'\(keyword)' must be an object of schemas") }
            var result: [(String, Int)] = []
            for entry in entries {
                result.append((entry.key, try compile(child(keyword, entry.key), holder: keyword)))
            }
            return result
        }
        func stringArray(_ keyword: String, _ value: JSONNode) throws(JSONSchemaError) -> [String] {
            guard let elements = value.elements else {
                throw invalid(keyword, "'\(keyword)' must be an array of strings")
            }
            var strings: [String] = []
            var unique: Set<ExactString> = []
            for element in elements {
                guard let string = element.stringValue else {
                    throw invalid(keyword, "'\(keyword)' must be an array of strings, found \(jsonText(element))")
                }
                guard unique.insert(ExactString(string: string)).inserted else {
                    throw invalid(keyword, "'\(keyword)' lists '\(string)' twice")
                }
                strings.append(string)
            }
            return strings
        }
        func allowedValues(_ values: [JSONNode]) -> AllowedValues {
            var strings = ExactKeyTable()
            for value in values { if let string = value.stringValue { strings.insert(string) } }
            return AllowedValues(
                values: Set(values.map(CanonicalValue.init)), strings: strings, texts: values.map(jsonText),
                display: values.map { $0.stringValue ?? jsonText($0) })
        }

        for member in members {
            let keyword = member.key
            let value = member.value
            guard seen.insert(keyword).inserted else { continue }  // a duplicated keyword: the first one counts
            switch keyword {
            // Core
            case "$schema", "$vocabulary", "$comment", "$id", "$anchor", "$dynamicAnchor":
                guard keyword == "$vocabulary" || value.stringValue != nil else {
                    throw invalid(keyword, "'\(keyword)' must be a string")
                }
            case "$defs":
                _ = try schemaMap(keyword, value)
            case "$ref":
                guard let reference = value.stringValue else { throw invalid(keyword, "'$ref' must be a string") }
                let (target, _) = try resolve(reference, base: base, at: pointer(keyword))
                keywords.append(.ref(try compile(target, holder: "$ref")))
            case "$dynamicRef":
                guard let reference = value.stringValue else { throw invalid(keyword, "'$dynamicRef' must be a string") }
                let (target, fragment) = try resolve(reference, base: base, at: pointer(keyword))
                let initial = try compile(target, holder: "$dynamicRef")
                var anchor: String?
                if !fragment.isEmpty, !fragment.hasPrefix("/"),
                    self.value(at: target)?["$dynamicAnchor"]?.stringValue == fragment
                {
                    anchor = fragment
                    dynamicAnchorNames.insert(fragment)
                }
                keywords.append(.dynamicRef(initial, anchor: anchor))
            // Applicators
            case "allOf": keywords.append(.allOf(try subschemas(keyword, value)))
            case "anyOf": keywords.append(.anyOf(try subschemas(keyword, value)))
            case "oneOf": keywords.append(.oneOf(try subschemas(keyword, value)))
            case "not": keywords.append(.not(try subschema(keyword, value)))
            case "if":
                let condition = try subschema(keyword, value)
                let then = schema["then"] == nil ? nil : try compile(child("then"), holder: "then")
                let otherwise = schema["else"] == nil ? nil : try compile(child("else"), holder: "else")
                keywords.append(.conditional(if: condition, then: then, else: otherwise))
            case "then", "else":
                _ = try subschema(keyword, value)  // checked; applied through `if`
            case "dependentSchemas":
                hasObject = true
                object.dependentSchemas = try schemaMap(keyword, value).map { (key: $0.0, node: $0.1) }
            case "properties":
                hasObject = true
                for (name, node) in try schemaMap(keyword, value) where object.properties.insert(name).inserted {
                    object.propertyNodes.append(node)
                }
            case "patternProperties":
                hasObject = true
                for (source, node) in try schemaMap(keyword, value) {
                    guard let pattern = SchemaPattern(source) else {
                        throw JSONSchemaError(
                            .invalidSchema, at: pointer(keyword) + "/" + JSONPointer.escape(source),
                            "'\(source)' is not a regular expression")
                    }
                    object.patternProperties.append((pattern, node))
                }
            case "additionalProperties":
                hasObject = true
                object.additionalProperties = try subschema(keyword, value)
            case "propertyNames":
                hasObject = true
                object.propertyNames = try subschema(keyword, value)
            case "prefixItems":
                hasArray = true
                array.prefixItems = try subschemas(keyword, value)
            case "items":
                guard value.elements == nil else {
                    throw invalid(keyword, "'items' must be a schema; for a tuple use 'prefixItems' (draft 2020-12)")
                }
                hasArray = true
                array.items = try subschema(keyword, value)
            case "contains":
                hasArray = true
                array.contains = try subschema(keyword, value)
            case "unevaluatedProperties":
                tracksAnnotations = true
                unevaluatedProperties = try subschema(keyword, value)
            case "unevaluatedItems":
                tracksAnnotations = true
                unevaluatedItems = try subschema(keyword, value)
            // Validation
            case "type":
                var names: [String] = []
                if let name = value.stringValue {
                    names = [name]
                } else if let elements = value.elements, !elements.isEmpty {
                    names = try elements.map { element throws(JSONSchemaError) in
                        guard let name = element.stringValue else {
                            throw invalid(keyword, "'type' must be a type name or an array of them")
                        }
                        return name
                    }
                } else {
                    throw invalid(keyword, "'type' must be a type name or a non-empty array of them")
                }
                var set: TypeSet = []
                for name in names {
                    guard let type = TypeSet(name: name) else {
                        throw invalid(
                            keyword,
                            "'\(name)' is not a JSON Schema type (null, boolean, object, array, number, string, integer)")
                    }
                    guard !set.contains(type) else { throw invalid(keyword, "'type' lists '\(name)' twice") }
                    set.insert(type)
                }
                types = set
                typeNames = names
            case "enum":
                guard let elements = value.elements else { throw invalid(keyword, "'enum' must be an array") }
                keywords.append(.enumeration(allowedValues(elements)))
            case "const":
                keywords.append(.constant(allowedValues([value])))
            case "multipleOf":
                hasNumber = true
                let divisor = try bound(keyword, value)
                guard !divisor.value.isZero, ExactDecimal.compare(divisor.value, ExactDecimal("0")!) > 0 else {
                    throw invalid(keyword, "'multipleOf' must be greater than 0, found \(divisor.text)")
                }
                number.multipleOf = divisor
            case "maximum":
                hasNumber = true
                number.maximum = try bound(keyword, value)
            case "exclusiveMaximum":
                hasNumber = true
                number.exclusiveMaximum = try bound(keyword, value)
            case "minimum":
                hasNumber = true
                number.minimum = try bound(keyword, value)
            case "exclusiveMinimum":
                hasNumber = true
                number.exclusiveMinimum = try bound(keyword, value)
            case "maxLength":
                hasString = true
                string.maxLength = try nonNegativeInteger(keyword, value)
            case "minLength":
                hasString = true
                string.minLength = try nonNegativeInteger(keyword, value)
            case "pattern":
                hasString = true
                guard let source = value.stringValue else { throw invalid(keyword, "'pattern' must be a string") }
                guard let pattern = SchemaPattern(source) else {
                    throw invalid(keyword, "'\(source)' is not a regular expression")
                }
                string.pattern = pattern
            case "maxItems":
                hasArray = true
                array.maxItems = try nonNegativeInteger(keyword, value)
            case "minItems":
                hasArray = true
                array.minItems = try nonNegativeInteger(keyword, value)
            case "uniqueItems":
                guard case .bool(let unique) = value.value else { throw invalid(keyword, "'uniqueItems' must be a boolean") }
                hasArray = hasArray || unique
                array.uniqueItems = unique
            case "maxContains":
                hasArray = true
                array.maxContains = try nonNegativeInteger(keyword, value)
            case "minContains":
                hasArray = true
                array.minContains = try nonNegativeInteger(keyword, value)
            case "maxProperties":
                hasObject = true
                object.maxProperties = try nonNegativeInteger(keyword, value)
            case "minProperties":
                hasObject = true
                object.minProperties = try nonNegativeInteger(keyword, value)
            case "required":
                hasObject = true
                object.required = try stringArray(keyword, value)
            case "dependentRequired":
                hasObject = true
                guard let entries = value.members else {
                    throw invalid(keyword, "'dependentRequired' must be an object of string arrays")
                }
                for entry in entries {
                    object.dependentRequired.append((entry.key, try stringArray(keyword, entry.value)))
                }
            // Format, content and meta-data: annotations (format asserts three formats)
            case "format":
                guard let name = value.stringValue else { throw invalid(keyword, "'format' must be a string") }
                if let asserted = AssertedFormat(rawValue: name) {
                    hasString = true
                    string.format = asserted
                }
            case "contentSchema":
                _ = try subschema(keyword, value)
            case "contentEncoding", "contentMediaType":
                guard value.stringValue != nil else { throw invalid(keyword, "'\(keyword)' must be a string") }
            case "title":
                guard let text = value.stringValue else { throw invalid(keyword, "'title' must be a string") }
                title = text
            case "description":
                guard let text = value.stringValue else { throw invalid(keyword, "'description' must be a string") }
                description = text
            case "deprecated", "readOnly", "writeOnly":
                guard case .bool = value.value else { throw invalid(keyword, "'\(keyword)' must be a boolean") }
            case "default", "examples":
                break
            default:
                if Self.unsupportedKeywords.contains(keyword) {
                    throw JSONSchemaError(
                        .unsupportedKeyword, at: pointer(keyword),
                        "'\(keyword)' is not supported: it belongs to an earlier draft; \(Self.replacement(for: keyword))")
                }
            // Any other keyword is unknown to 2020-12 and, as the specification says, ignored.
            }
        }

        if hasObject {
            object.requiredSlots = object.required.map { name in
                guard object.properties.count <= 64, let slot = object.properties.index(of: name) else { return -1 }
                return slot
            }
        }
        var name: String?
        let tokens = location.pointer.split(separator: "/", omittingEmptySubsequences: false)
        if tokens.count >= 3, tokens[tokens.count - 2] == "$defs" { name = JSONPointer.unescape(tokens[tokens.count - 1]) }

        return SchemaNode(
            location: here, holder: holder, description: description, title: title, name: name, resource: resource,
            types: types, typeNames: typeNames, keywords: keywords, object: hasObject ? Rules(object) : nil,
            array: hasArray ? Rules(array) : nil, string: hasString ? Rules(string) : nil,
            number: hasNumber ? Rules(number) : nil,
            unevaluatedProperties: unevaluatedProperties, unevaluatedItems: unevaluatedItems)
    }

    private static func replacement(for keyword: String) -> String {
        switch keyword {
        case "$recursiveRef", "$recursiveAnchor": "use '$dynamicRef' and '$dynamicAnchor'"
        case "dependencies": "use 'dependentRequired' (arrays) or 'dependentSchemas' (schemas)"
        case "additionalItems": "use 'prefixItems' for the tuple and 'items' for the rest"
        default: "see draft 2020-12"
        }
    }
}

/// `a string`, `an object`, …
func article(_ typeName: String) -> String {
    switch typeName.first {
    case "a", "e", "i", "o", "u": "an \(typeName)"
    default: "a \(typeName)"
    }
}
