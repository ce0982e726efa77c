/// A string-valued enumeration that accepts values it doesn't know.
///
/// Apple adds values to order.json enumerations over time (`shippingType` arrived in iOS 17,
/// for example). A closed Swift `enum` would refuse to decode an order that uses a newer value,
/// so every enumerated field in this module is a struct wrapping its raw string instead:
///
/// - Decoding accepts any JSON string, and encoding writes the same string back unchanged.
/// - Each conforming type lists the documented values as `static let` constants and in
///   ``knownValues``; ``isKnown`` tells a validator whether a value is one of them.
/// - String literals convert directly: `let status: Order.Status = "open"`.
///
/// Values compare as exact, case-sensitive strings, like Wallet does.
///
/// Conforming types only store `rawValue`, implement ``init(rawValue:)`` and list
/// ``knownValues``; this protocol's extension supplies everything else.
public protocol OpenEnumeration: RawRepresentable<String>, Codable, Hashable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// Creates a value from its raw string, whether or not the string is a documented value.
    ///
    /// - Parameter rawValue: The exact string used in order.json.
    init(rawValue: String)

    /// The values documented in Apple's order.json schema, in the order Apple lists them.
    static var knownValues: [Self] { get }
}

extension OpenEnumeration {
    /// Creates a value from a string literal, whether or not it is a documented value.
    ///
    /// - Parameter value: The exact string used in order.json.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The raw string, exactly as it appears in order.json.
    public var description: String { rawValue }

    /// Whether this value is one of the documented ``knownValues``.
    ///
    /// An unknown value still decodes and re-encodes unchanged; validators report it.
    public var isKnown: Bool { Self.knownValues.contains(self) }

    /// Decodes a value from a JSON string; any string is accepted.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.typeMismatch` if the JSON value isn't a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(String.self))
    }

    /// Encodes the raw string as a JSON string.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
