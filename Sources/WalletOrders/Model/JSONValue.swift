public import Foundation

/// Any JSON value, used to keep parts of order.json that this model doesn't interpret.
///
/// ``UnknownFulfillment`` stores a fulfillment of a type this library doesn't know as a
/// `JSONValue` object, so it re-encodes unchanged.
///
/// Numbers are `Decimal`, not `Double`: `JSONDecoder` doesn't expose a number's original text,
/// but swift-foundation decodes `Decimal` from that text exactly (up to 38 significant digits),
/// so `0.1` stays `0.1` and large integers aren't rounded. The spelling may change on
/// re-encoding: `1e2` becomes `100` and `1.50` becomes `1.5`.
public enum JSONValue: Sendable, Hashable, Codable {
    /// JSON `null`.
    case null

    /// JSON `true` or `false`.
    case bool(Bool)

    /// A JSON number, held exactly as a decimal.
    case number(Decimal)

    /// A JSON string.
    case string(String)

    /// A JSON array.
    case array([JSONValue])

    /// A JSON object; key order isn't kept.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` if the value can't be read as JSON, for example a
    ///   number too large for `Decimal`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Expected a JSON value this library can hold (numbers must fit in Decimal)"
            )
        }
    }

    /// Encodes the value as the corresponding JSON value.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
