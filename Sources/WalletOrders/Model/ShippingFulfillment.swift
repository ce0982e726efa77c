/// A fulfillment that ships or delivers items to the customer (`"fulfillmentType": "shipping"`).
///
/// The `fulfillmentType` key is fixed: it is always encoded as `"shipping"`, decoding requires
/// it, and it can't be set. Orders hold fulfillments as ``Fulfillment`` values.
public struct ShippingFulfillment: Codable, Sendable, Hashable {
    /// The `fulfillmentType` value of every shipping fulfillment: `"shipping"`.
    public static let fulfillmentType = "shipping"

    /// The identifier of the fulfillment, unique within the order and used only to detect
    /// changes and notify the user.
    public var fulfillmentIdentifier: String

    /// The status of the shipment.
    public var status: Status

    /// The shipping carrier; leave it unset for Wallet's default "Track Shipment" label.
    public var carrier: String?

    /// When the carrier delivered the shipment.
    public var deliveredAt: Timestamp?

    /// The estimated delivery date; Wallet ignores the time unless a window duration is set.
    public var estimatedDeliveryAt: Timestamp?

    /// The length of the estimated delivery window, as an ISO 8601 duration such as `PT2H`.
    ///
    /// Kept as a `String`, exactly as written; no Foundation type represents ISO 8601 durations.
    public var estimatedDeliveryWindowDuration: String?

    /// The items in this shipment, displayed in the order given.
    public var lineItems: [LineItem]?

    /// Localizable notes about the shipment, such as that a signature is required.
    public var notes: String?

    /// The person or organization receiving the shipment.
    public var recipient: Recipient?

    /// When the shipment was shipped.
    public var shippedAt: Timestamp?

    /// How Wallet presents the fulfillment; Wallet's default is ``ShippingType/shipping``
    /// (iOS 17.0+ / macOS 14.0+).
    public var shippingType: ShippingType?

    /// A localizable message describing the status of the shipment.
    public var statusDescription: String?

    /// The carrier's tracking number.
    public var trackingNumber: String?

    /// A URL where the customer can track the shipment (kept as written).
    public var trackingURL: String?

    /// The `fulfillmentType` of this fulfillment, always `"shipping"`.
    public var fulfillmentType: String { Self.fulfillmentType }

    /// Creates a shipping fulfillment; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - fulfillmentIdentifier: The identifier of the fulfillment, unique within the order.
    ///   - status: The status of the shipment.
    ///   - carrier: The shipping carrier.
    ///   - deliveredAt: When the carrier delivered the shipment.
    ///   - estimatedDeliveryAt: The estimated delivery date.
    ///   - estimatedDeliveryWindowDuration: The delivery window, as an ISO 8601 duration.
    ///   - lineItems: The items in this shipment.
    ///   - notes: Notes about the shipment.
    ///   - recipient: The recipient.
    ///   - shippedAt: When the shipment was shipped.
    ///   - shippingType: How Wallet presents the fulfillment.
    ///   - statusDescription: A message describing the status.
    ///   - trackingNumber: The carrier's tracking number.
    ///   - trackingURL: Where the customer can track the shipment.
    public init(
        fulfillmentIdentifier: String,
        status: Status,
        carrier: String? = nil,
        deliveredAt: Timestamp? = nil,
        estimatedDeliveryAt: Timestamp? = nil,
        estimatedDeliveryWindowDuration: String? = nil,
        lineItems: [LineItem]? = nil,
        notes: String? = nil,
        recipient: Recipient? = nil,
        shippedAt: Timestamp? = nil,
        shippingType: ShippingType? = nil,
        statusDescription: String? = nil,
        trackingNumber: String? = nil,
        trackingURL: String? = nil
    ) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.status = status
        self.carrier = carrier
        self.deliveredAt = deliveredAt
        self.estimatedDeliveryAt = estimatedDeliveryAt
        self.estimatedDeliveryWindowDuration = estimatedDeliveryWindowDuration
        self.lineItems = lineItems
        self.notes = notes
        self.recipient = recipient
        self.shippedAt = shippedAt
        self.shippingType = shippingType
        self.statusDescription = statusDescription
        self.trackingNumber = trackingNumber
        self.trackingURL = trackingURL
    }

    private enum CodingKeys: String, CodingKey {
        case fulfillmentType, fulfillmentIdentifier, status, carrier, deliveredAt, estimatedDeliveryAt
        case estimatedDeliveryWindowDuration, lineItems, notes, recipient, shippedAt, shippingType
        case statusDescription, trackingNumber, trackingURL
    }

    /// Decodes a shipping fulfillment, requiring `"fulfillmentType": "shipping"`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if a required field is missing, a value has the wrong type, or
    ///   `fulfillmentType` isn't `"shipping"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .fulfillmentType)
        guard type == Self.fulfillmentType else {
            throw DecodingError.dataCorruptedError(
                forKey: .fulfillmentType, in: container,
                debugDescription: "Expected fulfillmentType \"shipping\", found \"\(type)\""
            )
        }
        self.fulfillmentIdentifier = try container.decode(String.self, forKey: .fulfillmentIdentifier)
        self.status = try container.decode(Status.self, forKey: .status)
        self.carrier = try container.decodeIfPresent(String.self, forKey: .carrier)
        self.deliveredAt = try container.decodeIfPresent(Timestamp.self, forKey: .deliveredAt)
        self.estimatedDeliveryAt = try container.decodeIfPresent(Timestamp.self, forKey: .estimatedDeliveryAt)
        self.estimatedDeliveryWindowDuration = try container.decodeIfPresent(
            String.self, forKey: .estimatedDeliveryWindowDuration)
        self.lineItems = try container.decodeIfPresent([LineItem].self, forKey: .lineItems)
        self.notes = try container.decodeIfPresent(String.self, forKey: .notes)
        self.recipient = try container.decodeIfPresent(Recipient.self, forKey: .recipient)
        self.shippedAt = try container.decodeIfPresent(Timestamp.self, forKey: .shippedAt)
        self.shippingType = try container.decodeIfPresent(ShippingType.self, forKey: .shippingType)
        self.statusDescription = try container.decodeIfPresent(String.self, forKey: .statusDescription)
        self.trackingNumber = try container.decodeIfPresent(String.self, forKey: .trackingNumber)
        self.trackingURL = try container.decodeIfPresent(String.self, forKey: .trackingURL)
    }

    /// Encodes the fulfillment, including `"fulfillmentType": "shipping"` and leaving out `nil`
    /// fields.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.fulfillmentType, forKey: .fulfillmentType)
        try container.encode(fulfillmentIdentifier, forKey: .fulfillmentIdentifier)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(carrier, forKey: .carrier)
        try container.encodeIfPresent(deliveredAt, forKey: .deliveredAt)
        try container.encodeIfPresent(estimatedDeliveryAt, forKey: .estimatedDeliveryAt)
        try container.encodeIfPresent(estimatedDeliveryWindowDuration, forKey: .estimatedDeliveryWindowDuration)
        try container.encodeIfPresent(lineItems, forKey: .lineItems)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encodeIfPresent(recipient, forKey: .recipient)
        try container.encodeIfPresent(shippedAt, forKey: .shippedAt)
        try container.encodeIfPresent(shippingType, forKey: .shippingType)
        try container.encodeIfPresent(statusDescription, forKey: .statusDescription)
        try container.encodeIfPresent(trackingNumber, forKey: .trackingNumber)
        try container.encodeIfPresent(trackingURL, forKey: .trackingURL)
    }
}

// MARK: - Enumerations

extension ShippingFulfillment {
    /// The status of a shipping fulfillment.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The order is placed but not yet processed for shipping.
        public static let open: Self = "open"

        /// The merchant is preparing the shipment.
        public static let processing: Self = "processing"

        /// The carrier has the shipment and it is on its way.
        public static let onTheWay: Self = "onTheWay"

        /// The shipment is out for delivery.
        public static let outForDelivery: Self = "outForDelivery"

        /// The carrier delivered the shipment.
        public static let delivered: Self = "delivered"

        /// The shipment has shipped; use it when carrier details aren't available.
        public static let shipped: Self = "shipped"

        /// There is an issue with the shipment.
        public static let issue: Self = "issue"

        /// The shipment was cancelled.
        public static let cancelled: Self = "cancelled"

        /// The documented values: `open`, `processing`, `onTheWay`, `outForDelivery`, `delivered`,
        /// `shipped`, `issue`, `cancelled`.
        public static let knownValues: [Self] = [
            .open, .processing, .onTheWay, .outForDelivery, .delivered, .shipped, .issue, .cancelled,
        ]
    }

    /// How Wallet presents a shipping fulfillment (iOS 17.0+ / macOS 14.0+).
    public struct ShippingType: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Presented as a shipment by a carrier (the default).
        public static let shipping: Self = "shipping"

        /// Presented as a delivery, such as by a local courier.
        public static let delivery: Self = "delivery"

        /// The documented values: `shipping`, `delivery`.
        public static let knownValues: [Self] = [.shipping, .delivery]
    }
}
