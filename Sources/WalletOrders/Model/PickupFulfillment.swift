/// A fulfillment the customer picks up in person (`"fulfillmentType": "pickup"`).
///
/// The `fulfillmentType` key is fixed: it is always encoded as `"pickup"`, decoding requires it,
/// and it can't be set. Orders hold fulfillments as ``Fulfillment`` values.
public struct PickupFulfillment: Codable, Sendable, Hashable {
    /// The `fulfillmentType` value of every pickup fulfillment: `"pickup"`.
    public static let fulfillmentType = "pickup"

    /// The localizable name of the pickup location.
    public var displayName: String

    /// The identifier of the fulfillment, unique within the order and used only to detect
    /// changes and notify the user.
    public var fulfillmentIdentifier: String

    /// The status of the pickup.
    public var status: Status

    /// The address of the pickup location.
    public var address: Address?

    /// The barcode to show when picking up.
    public var barcode: Barcode?

    /// The items to pick up, displayed in the order given.
    public var lineItems: [LineItem]?

    /// The precise coordinates of the pickup location, for example for indoor maps.
    public var location: Location?

    /// Localizable pickup instructions.
    public var notes: String?

    /// When the customer picked up the items.
    public var pickedUpAt: Timestamp?

    /// When the pickup window opens.
    public var pickupAt: Timestamp?

    /// How long the pickup window stays open, as an ISO 8601 duration such as
    /// `P0Y0M0DT0H30M0S`.
    ///
    /// Kept as a `String`, exactly as written; no Foundation type represents ISO 8601 durations.
    public var pickupWindowDuration: String?

    /// A localizable message describing the status of the pickup.
    public var statusDescription: String?

    /// The `fulfillmentType` of this fulfillment, always `"pickup"`.
    public var fulfillmentType: String { Self.fulfillmentType }

    /// Creates a pickup fulfillment; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - displayName: The name of the pickup location.
    ///   - fulfillmentIdentifier: The identifier of the fulfillment, unique within the order.
    ///   - status: The status of the pickup.
    ///   - address: The address of the pickup location.
    ///   - barcode: The barcode to show when picking up.
    ///   - lineItems: The items to pick up.
    ///   - location: The precise coordinates of the pickup location.
    ///   - notes: Pickup instructions.
    ///   - pickedUpAt: When the customer picked up the items.
    ///   - pickupAt: When the pickup window opens.
    ///   - pickupWindowDuration: How long the pickup window stays open, as an ISO 8601 duration.
    ///   - statusDescription: A message describing the status.
    public init(
        displayName: String,
        fulfillmentIdentifier: String,
        status: Status,
        address: Address? = nil,
        barcode: Barcode? = nil,
        lineItems: [LineItem]? = nil,
        location: Location? = nil,
        notes: String? = nil,
        pickedUpAt: Timestamp? = nil,
        pickupAt: Timestamp? = nil,
        pickupWindowDuration: String? = nil,
        statusDescription: String? = nil
    ) {
        self.displayName = displayName
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.status = status
        self.address = address
        self.barcode = barcode
        self.lineItems = lineItems
        self.location = location
        self.notes = notes
        self.pickedUpAt = pickedUpAt
        self.pickupAt = pickupAt
        self.pickupWindowDuration = pickupWindowDuration
        self.statusDescription = statusDescription
    }

    private enum CodingKeys: String, CodingKey {
        case fulfillmentType, displayName, fulfillmentIdentifier, status, address, barcode, lineItems
        case location, notes, pickedUpAt, pickupAt, pickupWindowDuration, statusDescription
    }

    /// Decodes a pickup fulfillment, requiring `"fulfillmentType": "pickup"`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` if a required field is missing, a value has the wrong type, or
    ///   `fulfillmentType` isn't `"pickup"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .fulfillmentType)
        guard type == Self.fulfillmentType else {
            throw DecodingError.dataCorruptedError(
                forKey: .fulfillmentType, in: container,
                debugDescription: "Expected fulfillmentType \"pickup\", found \"\(type)\""
            )
        }
        self.displayName = try container.decode(String.self, forKey: .displayName)
        self.fulfillmentIdentifier = try container.decode(String.self, forKey: .fulfillmentIdentifier)
        self.status = try container.decode(Status.self, forKey: .status)
        self.address = try container.decodeIfPresent(Address.self, forKey: .address)
        self.barcode = try container.decodeIfPresent(Barcode.self, forKey: .barcode)
        self.lineItems = try container.decodeIfPresent([LineItem].self, forKey: .lineItems)
        self.location = try container.decodeIfPresent(Location.self, forKey: .location)
        self.notes = try container.decodeIfPresent(String.self, forKey: .notes)
        self.pickedUpAt = try container.decodeIfPresent(Timestamp.self, forKey: .pickedUpAt)
        self.pickupAt = try container.decodeIfPresent(Timestamp.self, forKey: .pickupAt)
        self.pickupWindowDuration = try container.decodeIfPresent(String.self, forKey: .pickupWindowDuration)
        self.statusDescription = try container.decodeIfPresent(String.self, forKey: .statusDescription)
    }

    /// Encodes the fulfillment, including `"fulfillmentType": "pickup"` and leaving out `nil`
    /// fields.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.fulfillmentType, forKey: .fulfillmentType)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(fulfillmentIdentifier, forKey: .fulfillmentIdentifier)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(address, forKey: .address)
        try container.encodeIfPresent(barcode, forKey: .barcode)
        try container.encodeIfPresent(lineItems, forKey: .lineItems)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encodeIfPresent(pickedUpAt, forKey: .pickedUpAt)
        try container.encodeIfPresent(pickupAt, forKey: .pickupAt)
        try container.encodeIfPresent(pickupWindowDuration, forKey: .pickupWindowDuration)
        try container.encodeIfPresent(statusDescription, forKey: .statusDescription)
    }
}

// MARK: - Enumerations

extension PickupFulfillment {
    /// The status of a pickup fulfillment.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The order is placed but not yet being prepared.
        public static let open: Self = "open"

        /// The merchant is preparing the items.
        public static let processing: Self = "processing"

        /// The items are ready for pickup.
        public static let readyForPickup: Self = "readyForPickup"

        /// The customer picked up the items.
        public static let pickedUp: Self = "pickedUp"

        /// There is an issue with the pickup.
        public static let issue: Self = "issue"

        /// The pickup was cancelled.
        public static let cancelled: Self = "cancelled"

        /// The documented values: `open`, `processing`, `readyForPickup`, `pickedUp`, `issue`, `cancelled`.
        public static let knownValues: [Self] = [.open, .processing, .readyForPickup, .pickedUp, .issue, .cancelled]
    }
}
