/// One element of an order's `fulfillments` array: a shipping fulfillment, a pickup fulfillment,
/// or a fulfillment of a type this library doesn't know.
///
/// Elements are discriminated by their `fulfillmentType` key. An object whose `fulfillmentType`
/// is missing, isn't a string, or is neither `"shipping"` nor `"pickup"` decodes as
/// ``unknown(_:)``, which keeps the whole JSON object and re-encodes it unchanged, so an order
/// using a fulfillment type added in a later Wallet release still round-trips and a validator can
/// report it.
public enum Fulfillment: Codable, Sendable, Hashable {
    /// A fulfillment shipped or delivered to the customer (`"fulfillmentType": "shipping"`).
    case shipping(ShippingFulfillment)

    /// A fulfillment the customer picks up (`"fulfillmentType": "pickup"`).
    case pickup(PickupFulfillment)

    /// A fulfillment whose `fulfillmentType` this library doesn't know, kept as raw JSON.
    case unknown(UnknownFulfillment)

    /// The `fulfillmentType` of the element, or `nil` for an unknown one without a string value.
    public var fulfillmentType: String? {
        switch self {
        case .shipping(let fulfillment): fulfillment.fulfillmentType
        case .pickup(let fulfillment): fulfillment.fulfillmentType
        case .unknown(let fulfillment): fulfillment.fulfillmentType
        }
    }

    /// The `fulfillmentIdentifier` of the element, or `nil` for an unknown one without a string
    /// value.
    public var fulfillmentIdentifier: String? {
        switch self {
        case .shipping(let fulfillment): fulfillment.fulfillmentIdentifier
        case .pickup(let fulfillment): fulfillment.fulfillmentIdentifier
        case .unknown(let fulfillment): fulfillment.fulfillmentIdentifier
        }
    }

    private enum DiscriminatorKey: String, CodingKey {
        case fulfillmentType
    }

    /// Decodes a fulfillment, choosing the case from the object's `fulfillmentType`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if the value isn't a JSON object, or if a shipping or pickup
    ///   fulfillment is missing a required field or has a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DiscriminatorKey.self)
        let type = try? container.decodeIfPresent(String.self, forKey: .fulfillmentType)
        switch type {
        case ShippingFulfillment.fulfillmentType:
            self = .shipping(try ShippingFulfillment(from: decoder))
        case PickupFulfillment.fulfillmentType:
            self = .pickup(try PickupFulfillment(from: decoder))
        default:
            self = .unknown(try UnknownFulfillment(from: decoder))
        }
    }

    /// Encodes the wrapped fulfillment as a JSON object.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .shipping(let fulfillment): try fulfillment.encode(to: encoder)
        case .pickup(let fulfillment): try fulfillment.encode(to: encoder)
        case .unknown(let fulfillment): try fulfillment.encode(to: encoder)
        }
    }
}
