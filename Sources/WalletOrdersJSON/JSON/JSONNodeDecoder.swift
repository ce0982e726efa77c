import Foundation

/// A `Decoder` over a parsed ``JSONNode``: the fast path for decoding `order.json` into ``Order``
/// without Foundation's `JSONDecoder` (which costs more than everything else around one build).
///
/// It is deliberately stricter than `JSONDecoder` and never more lenient: it succeeds only where
/// `JSONDecoder` succeeds with the same value (strings from strings, booleans from booleans,
/// integers from plain integer text that fits, `Double` from finite number text, which both
/// round correctly), and throws for everything else, including types `JSONDecoder` treats
/// specially (`Decimal`, `Date`, `Data`, `URL`). Callers then ask `JSONDecoder`, so results and
/// error messages stay exactly `JSONDecoder`'s. See ``Order/decodeFast(_:)``.
package struct JSONNodeDecoder: Decoder {
    /// Thrown where `JSONDecoder` might decide differently or would fail; never shown to anyone.
    struct Unsupported: Error {}

    /// Only the value (one word, so `any Decoder` holds it without allocating); no coding path
    /// is kept, since this decoder's errors are never shown.
    let node: JSONNode.Value
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package init(_ node: JSONNode) {
        self.node = node.value
    }

    init(value: JSONNode.Value) {
        self.node = value
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw Unsupported() }
        return KeyedDecodingContainer(Keyed<Key>(members: members))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw Unsupported() }
        return Unkeyed(elements: elements)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(node: node)
    }

    // MARK: - Values

    static func decodeString(_ node: JSONNode.Value) throws -> String {
        guard case .string(let string) = node else { throw Unsupported() }
        return string
    }

    static func decodeBool(_ node: JSONNode.Value) throws -> Bool {
        guard case .bool(let bool) = node else { throw Unsupported() }
        return bool
    }

    /// Plain integer text (`-?digits`, no fraction or exponent) that fits `T`.
    static func decodeInteger<T: FixedWidthInteger>(_ node: JSONNode.Value, as type: T.Type) throws -> T {
        guard case .number(let text) = node,
            text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }),
            let value = T(text, radix: 10)
        else { throw Unsupported() }
        return value
    }

    static func decodeDouble(_ node: JSONNode.Value) throws -> Double {
        guard case .number(let text) = node, let value = Double(text), value.isFinite else { throw Unsupported() }
        return value
    }

    static func decode<T: Decodable>(_ type: T.Type, from node: JSONNode.Value) throws -> T {
        if T.self == String.self { return try decodeString(node) as! T }
        if T.self == Int.self { return try decodeInteger(node, as: Int.self) as! T }
        if T.self == Bool.self { return try decodeBool(node) as! T }
        if T.self == Double.self { return try decodeDouble(node) as! T }
        // Types JSONDecoder decodes its own way (and Float, whose rounding it does its own way).
        if T.self == Decimal.self || T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Float.self {
            throw Unsupported()
        }
        return try T(from: JSONNodeDecoder(value: node))
    }

    // MARK: - Containers

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [JSONMember]
        var codingPath: [any CodingKey] { [] }

        var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

        func value(_ key: Key) throws -> JSONNode.Value {
            let name = key.stringValue
            guard let member = members.first(where: { $0.key == name }) else { throw Unsupported() }
            return member.value.value
        }

        func contains(_ key: Key) -> Bool {
            let name = key.stringValue
            return members.contains { $0.key == name }
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try value(key) { return true }
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONNodeDecoder.decodeBool(value(key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONNodeDecoder.decodeString(value(key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try JSONNodeDecoder.decodeDouble(value(key)) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw Unsupported() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try JSONNodeDecoder.decodeInteger(value(key), as: Int.self) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try JSONNodeDecoder.decodeInteger(value(key), as: Int8.self) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try JSONNodeDecoder.decodeInteger(value(key), as: Int16.self) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try JSONNodeDecoder.decodeInteger(value(key), as: Int32.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try JSONNodeDecoder.decodeInteger(value(key), as: Int64.self) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try JSONNodeDecoder.decodeInteger(value(key), as: UInt.self) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try JSONNodeDecoder.decodeInteger(value(key), as: UInt8.self) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try JSONNodeDecoder.decodeInteger(value(key), as: UInt16.self) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try JSONNodeDecoder.decodeInteger(value(key), as: UInt32.self) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try JSONNodeDecoder.decodeInteger(value(key), as: UInt64.self) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONNodeDecoder.decode(type, from: value(key))
        }

        // decodeIfPresent: absent or null is nil (what JSONDecoder and the protocol's default do),
        // with one lookup instead of three.
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            guard let member = member(key) else { return nil }
            if case .null = member { return nil }
            return try JSONNodeDecoder.decodeString(member)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let member = member(key) else { return nil }
            if case .null = member { return nil }
            return try JSONNodeDecoder.decode(type, from: member)
        }

        private func member(_ key: Key) -> JSONNode.Value? {
            let name = key.stringValue
            return members.first(where: { $0.key == name })?.value.value
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try JSONNodeDecoder(value: value(key)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONNodeDecoder(value: value(key)).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { throw Unsupported() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Unsupported() }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONNode]
        var codingPath: [any CodingKey] { [] }
        var currentIndex = 0

        init(elements: [JSONNode]) {
            self.elements = elements
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element, advancing only on success (as JSONDecoder does).
        mutating func next<T>(_ read: (JSONNode.Value) throws -> T) throws -> T {
            guard !isAtEnd else { throw Unsupported() }
            let value = try read(elements[currentIndex].value)
            currentIndex += 1
            return value
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw Unsupported() }
            if case .null = elements[currentIndex].value {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(JSONNodeDecoder.decodeBool) }
        mutating func decode(_ type: String.Type) throws -> String { try next(JSONNodeDecoder.decodeString) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(JSONNodeDecoder.decodeDouble) }
        mutating func decode(_ type: Float.Type) throws -> Float { throw Unsupported() }
        mutating func decode(_ type: Int.Type) throws -> Int { try next { try JSONNodeDecoder.decodeInteger($0, as: Int.self) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try JSONNodeDecoder.decodeInteger($0, as: Int8.self) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try JSONNodeDecoder.decodeInteger($0, as: Int16.self) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try JSONNodeDecoder.decodeInteger($0, as: Int32.self) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try JSONNodeDecoder.decodeInteger($0, as: Int64.self) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try JSONNodeDecoder.decodeInteger($0, as: UInt.self) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try JSONNodeDecoder.decodeInteger($0, as: UInt8.self) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try JSONNodeDecoder.decodeInteger($0, as: UInt16.self) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try JSONNodeDecoder.decodeInteger($0, as: UInt32.self) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try JSONNodeDecoder.decodeInteger($0, as: UInt64.self) } }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try next { try JSONNodeDecoder.decode(type, from: $0) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next { try JSONNodeDecoder(value: $0).container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next { try JSONNodeDecoder(value: $0).unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder { throw Unsupported() }
    }

    struct Single: SingleValueDecodingContainer {
        let node: JSONNode.Value
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool {
            if case .null = node { return true }
            return false
        }

        func decode(_ type: Bool.Type) throws -> Bool { try JSONNodeDecoder.decodeBool(node) }
        func decode(_ type: String.Type) throws -> String { try JSONNodeDecoder.decodeString(node) }
        func decode(_ type: Double.Type) throws -> Double { try JSONNodeDecoder.decodeDouble(node) }
        func decode(_ type: Float.Type) throws -> Float { throw Unsupported() }
        func decode(_ type: Int.Type) throws -> Int { try JSONNodeDecoder.decodeInteger(node, as: Int.self) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONNodeDecoder.decodeInteger(node, as: Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try JSONNodeDecoder.decodeInteger(node, as: Int16.self) }
        func decode(_ type: Int32.Type) throws -> Int32 { try JSONNodeDecoder.decodeInteger(node, as: Int32.self) }
        func decode(_ type: Int64.Type) throws -> Int64 { try JSONNodeDecoder.decodeInteger(node, as: Int64.self) }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONNodeDecoder.decodeInteger(node, as: UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONNodeDecoder.decodeInteger(node, as: UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONNodeDecoder.decodeInteger(node, as: UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONNodeDecoder.decodeInteger(node, as: UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONNodeDecoder.decodeInteger(node, as: UInt64.self) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONNodeDecoder.decode(type, from: node)
        }
    }
}
