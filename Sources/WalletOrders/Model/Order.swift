public import Foundation

/// An order: the top-level object of an order archive's `order.json` (schema version 1).
///
/// Property names are the JSON keys. Required fields are non-optional; optional fields are
/// `nil` when absent and are left out when encoding. Dates are ``Timestamp``s and amounts are
/// ``DecimalAmount``s, which keep their exact text. URLs stay `String` so that they re-encode
/// exactly as written (Foundation's `URL` may normalize or reject what Wallet accepts).
///
/// Use ``decode(from:)`` and ``encodedJSON()`` to read and write `order.json`.
/// Available in Wallet since iOS 16.0 / macOS 13.0.
public struct Order: Codable, Sendable, Hashable {
    /// The schema version of this order; the current version is 1.
    public var schemaVersion: Int

    /// The order type identifier, a reverse-DNS identifier that must match the signing certificate
    /// and isn't shown to the user.
    public var orderTypeIdentifier: String

    /// The identifier that, together with ``orderTypeIdentifier``, uniquely identifies the order;
    /// it isn't shown to the user.
    public var orderIdentifier: String

    /// The type of order this archive represents.
    public var orderType: OrderType

    /// The high-level status of the order.
    public var status: Status

    /// When the customer created the order.
    public var createdAt: Timestamp

    /// When the order was last updated; must increase with every new version of the order.
    public var updatedAt: Timestamp

    /// The merchant for this order.
    public var merchant: Merchant

    /// A URL where the customer can manage the order (kept as written; use https).
    public var orderManagementURL: String

    /// The apps associated with the order, in order of preference; the device uses the first
    /// available one.
    public var associatedApplications: [Application]?

    /// The application identifiers associated with the order, used with
    /// ``changeNotifications`` (iOS 17.0+).
    public var associatedApplicationIdentifiers: [String]?

    /// The shared secret the device sends to the web service; at least 16 characters and
    /// required when ``webServiceURL`` is set.
    public var authenticationToken: String?

    /// A barcode with information about the order.
    public var barcode: Barcode?

    /// Whether the device notifies the user about relevant changes to the order; Wallet's default
    /// is ``ChangeNotifications/enabled``.
    public var changeNotifications: ChangeNotifications?

    /// The customer for this order.
    public var customer: Customer?

    /// The shipping and pickup fulfillments, displayed in the order given.
    public var fulfillments: [Fulfillment]?

    /// The items in the order, displayed in the order given.
    public var lineItems: [LineItem]?

    /// An order number or reference suitable for showing to the user.
    public var orderNumber: String?

    /// The third-party platform that provides the order data (iOS 17.4+ / macOS 14.4+).
    public var orderProvider: OrderProvider?

    /// The payment for this order.
    public var payment: Payment?

    /// The return policy and return details for the order (iOS 17.2+ / macOS 14.2+).
    public var returnInfo: ReturnInfo?

    /// The returns for the order, displayed in the order given (iOS 17.2+ / macOS 14.2+).
    public var returns: [OrderReturn]?

    /// A localizable message describing the order's status.
    public var statusDescription: String?

    /// The base URL of the order's web service; must begin with `https://` (kept as written).
    public var webServiceURL: String?

    /// Creates an order; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - schemaVersion: The schema version; defaults to 1, the current version.
    ///   - orderTypeIdentifier: The order type identifier.
    ///   - orderIdentifier: The order identifier, unique within the order type identifier.
    ///   - orderType: The type of order; defaults to ``OrderType/ecommerce``.
    ///   - status: The high-level status.
    ///   - createdAt: When the customer created the order.
    ///   - updatedAt: When the order was last updated.
    ///   - merchant: The merchant.
    ///   - orderManagementURL: Where the customer can manage the order.
    ///   - associatedApplications: The associated apps, in order of preference.
    ///   - associatedApplicationIdentifiers: The associated application identifiers.
    ///   - authenticationToken: The web service's shared secret.
    ///   - barcode: A barcode for the order.
    ///   - changeNotifications: Whether the device notifies about changes.
    ///   - customer: The customer.
    ///   - fulfillments: The fulfillments.
    ///   - lineItems: The items in the order.
    ///   - orderNumber: An order number for display.
    ///   - orderProvider: The third-party order provider.
    ///   - payment: The payment.
    ///   - returnInfo: Return policy information.
    ///   - returns: The returns.
    ///   - statusDescription: A message describing the status.
    ///   - webServiceURL: The web service's base URL.
    public init(
        schemaVersion: Int = 1,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        orderType: OrderType = .ecommerce,
        status: Status,
        createdAt: Timestamp,
        updatedAt: Timestamp,
        merchant: Merchant,
        orderManagementURL: String,
        associatedApplications: [Application]? = nil,
        associatedApplicationIdentifiers: [String]? = nil,
        authenticationToken: String? = nil,
        barcode: Barcode? = nil,
        changeNotifications: ChangeNotifications? = nil,
        customer: Customer? = nil,
        fulfillments: [Fulfillment]? = nil,
        lineItems: [LineItem]? = nil,
        orderNumber: String? = nil,
        orderProvider: OrderProvider? = nil,
        payment: Payment? = nil,
        returnInfo: ReturnInfo? = nil,
        returns: [OrderReturn]? = nil,
        statusDescription: String? = nil,
        webServiceURL: String? = nil
    ) {
        self.schemaVersion = schemaVersion
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.orderType = orderType
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.merchant = merchant
        self.orderManagementURL = orderManagementURL
        self.associatedApplications = associatedApplications
        self.associatedApplicationIdentifiers = associatedApplicationIdentifiers
        self.authenticationToken = authenticationToken
        self.barcode = barcode
        self.changeNotifications = changeNotifications
        self.customer = customer
        self.fulfillments = fulfillments
        self.lineItems = lineItems
        self.orderNumber = orderNumber
        self.orderProvider = orderProvider
        self.payment = payment
        self.returnInfo = returnInfo
        self.returns = returns
        self.statusDescription = statusDescription
        self.webServiceURL = webServiceURL
    }

    /// The identifier pair that uniquely identifies this order in Wallet.
    public var fullyQualifiedIdentifier: FullyQualifiedOrderIdentifier {
        FullyQualifiedOrderIdentifier(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }

    /// Decodes an order from the contents of an `order.json` file.
    ///
    /// Amounts may be JSON strings or numbers; unknown enumeration values and fulfillment types
    /// are kept so that a validator can report them.
    ///
    /// - Parameter data: The UTF-8 JSON text.
    /// - Returns: The decoded order.
    /// A comma before a closing bracket is read as Apple's readers read it, as if it weren't
    /// there (validation warns about it: `json.trailing-comma`).
    ///
    /// - Throws: `DecodingError` when the JSON is malformed, a required field is missing, or a
    ///   value has the wrong type or format; its coding path and message say which.
    public static func decode(from data: Data) throws -> Order {
        try decodeFast(Array(data))
    }

    /// Encodes the order as `order.json` text: pretty-printed, keys sorted, slashes unescaped.
    ///
    /// `nil` optional fields are left out, amounts are written as JSON strings, and timestamps
    /// are written exactly as they were read or created. The output is deterministic.
    ///
    /// - Returns: The UTF-8 JSON text.
    /// - Throws: `EncodingError` if a value can't be encoded.
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

// MARK: - Enumerations

extension Order {
    /// The high-level status of an order.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a status from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The order is open: not yet completed or cancelled.
        public static let open: Self = "open"

        /// The order is completed; the system considers it closed.
        public static let completed: Self = "completed"

        /// The order is cancelled; the system considers it closed.
        public static let cancelled: Self = "cancelled"

        /// The documented statuses: `open`, `completed`, `cancelled`.
        public static let knownValues: [Self] = [.open, .completed, .cancelled]

        /// Whether the system considers an order with this status closed (`completed` or
        /// `cancelled`).
        public var isClosed: Bool { self == .completed || self == .cancelled }
    }

    /// The type of order an archive represents.
    public struct OrderType: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates an order type from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An e-commerce order, the only documented order type.
        public static let ecommerce: Self = "ecommerce"

        /// The documented order types: `ecommerce`.
        public static let knownValues: [Self] = [.ecommerce]
    }

    /// Whether the device notifies the user about relevant changes to an order.
    public struct ChangeNotifications: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a setting from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The device notifies the user about changes (Wallet's default).
        public static let enabled: Self = "enabled"

        /// The device doesn't notify when one of the associated apps is installed, leaving
        /// notifications to the app.
        public static let disabledIfAppInstalled: Self = "disabledIfAppInstalled"

        /// The documented settings: `enabled`, `disabledIfAppInstalled`.
        public static let knownValues: [Self] = [.enabled, .disabledIfAppInstalled]
    }
}
