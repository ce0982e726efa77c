/// A fulfillment whose `fulfillmentType` this library doesn't know, kept as its whole JSON object.
///
/// Wallet may add fulfillment types in later releases. Keeping the object lets such an order
/// decode, re-encode unchanged, and be reported by a validator instead of failing to load.
public struct UnknownFulfillment: Codable, Sendable, Hashable {
    /// The fulfillment's JSON object, every key included.
    public var object: [String: JSONValue]

    /// Creates an unknown fulfillment from its JSON object.
    ///
    /// - Parameter object: The fulfillment's JSON object.
    public init(object: [String: JSONValue]) {
        self.object = object
    }

    /// The object's `fulfillmentType`, or `nil` if it is missing or not a string.
    public var fulfillmentType: String? {
        if case .string(let value)? = object["fulfillmentType"] { value } else { nil }
    }

    /// The object's `fulfillmentIdentifier`, or `nil` if it is missing or not a string.
    public var fulfillmentIdentifier: String? {
        if case .string(let value)? = object["fulfillmentIdentifier"] { value } else { nil }
    }

    /// Decodes any JSON object.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if the value isn't a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.object = try container.decode([String: JSONValue].self)
    }

    /// Encodes the JSON object unchanged.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(object)
    }
}
