/// A place in a source text: 1-based line and column, and the 0-based UTF-8 byte offset.
///
/// Columns count UTF-16 code units, as editors and SARIF (`columnKind: utf16CodeUnits`) do, so a
/// caret lines up in VS Code and on GitHub.
package struct SourcePosition: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The 1-based line.
    package var line: Int
    /// The 1-based column, in UTF-16 code units.
    package var column: Int
    /// The 0-based byte offset into the UTF-8 text.
    package var offset: Int

    /// Creates a position.
    package init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// Orders by offset.
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }

    package var description: String { "\(line):\(column)" }
}

/// A JSON value as written, with where it was written: numbers keep their exact text, object
/// members keep their order and any duplicate keys, and every value and key knows its position.
///
/// Made by ``JSONParser``; read by the schema evaluator and the validation rules.
package struct JSONNode: Sendable, Hashable {
    /// The value.
    package enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// A number, as its exact source text (`28.80`, `1e2`, `-0`).
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in source order; a duplicated key appears once per occurrence.
        case object([JSONMember])
    }

    /// The value.
    package var value: Value
    /// Where the value starts.
    package var position: SourcePosition

    /// Creates a node.
    package init(_ value: Value, at position: SourcePosition) {
        self.value = value
        self.position = position
    }
}

/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable, Hashable {
    /// The key, unescaped.
    package var key: String
    /// Where the key's opening quote is.
    package var keyPosition: SourcePosition
    /// The value.
    package var value: JSONNode

    /// Creates a member.
    package init(key: String, keyPosition: SourcePosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

extension JSONNode {
    /// The members when this is an object.
    package var members: [JSONMember]? {
        if case .object(let members) = value { return members }
        return nil
    }

    /// The elements when this is an array.
    package var elements: [JSONNode]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    /// The string when this is a string.
    package var stringValue: String? {
        if case .string(let string) = value { return string }
        return nil
    }

    /// The exact number text when this is a number.
    package var numberText: String? {
        if case .number(let text) = value { return text }
        return nil
    }

    /// The value of the first member named `key`, when this is an object.
    package subscript(key: String) -> JSONNode? {
        members?.first { $0.key == key }?.value
    }

    /// The JSON type name: `null`, `boolean`, `number`, `string`, `array` or `object`.
    package var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The node an RFC 6901 JSON Pointer names (`""` is the node itself), or `nil`.
    package func resolve(pointer: String) -> JSONNode? {
        guard !pointer.isEmpty else { return self }
        guard pointer.hasPrefix("/") else { return nil }
        var node = self
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = JSONPointer.unescape(rawToken)
            switch node.value {
            case .object(let members):
                guard let next = members.first(where: { $0.key == token })?.value else { return nil }
                node = next
            case .array(let elements):
                guard let index = Int(token), elements.indices.contains(index), String(index) == token else { return nil }
                node = elements[index]
            default:
                return nil
            }
        }
        return node
    }
}
