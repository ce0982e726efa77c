/// A return of some or all of an order's items (JSON array `returns`; iOS 17.2+ / macOS 14.2+).
///
/// Apple's schema calls this object `Return`. This library names it `OrderReturn`: a bare
/// `Return` reads like the `return` keyword (and is one keystroke from needing backticks), is too
/// generic a name for a module-level type that users import next to their own code, and says less
/// than the domain noun `OrderReturn`. The JSON is unchanged: the order's key is still `returns`.
public struct OrderReturn: Codable, Sendable, Hashable {
    /// The identifier of the return, unique within the order and used to detect changes.
    public var returnIdentifier: String

    /// The status of the return.
    public var status: Status

    /// The carrier handling the return.
    public var carrier: String?

    /// The deadline for dropping off the return.
    public var dropOffBy: Timestamp?

    /// When the return was initiated.
    public var initiatedAt: Timestamp?

    /// The items being returned.
    public var lineItems: [LineItem]?

    /// Additional information about the return.
    public var notes: String?

    /// The file name, within the archive, of a printable return label (PDF, JPEG or PNG).
    public var returnLabel: String?

    /// A URL where the customer can manage the return (kept as written).
    public var returnManagementURL: String?

    /// The return number shown to the customer.
    public var returnNumber: String?

    /// When the items were returned.
    public var returnedAt: Timestamp?

    /// A localizable message describing the status of the return.
    public var statusDescription: String?

    /// Creates an `OrderReturn`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - returnIdentifier: The identifier of the return, unique within the order and used to
    ///     detect changes.
    ///   - status: The status of the return.
    ///   - carrier: The carrier handling the return.
    ///   - dropOffBy: The deadline for dropping off the return.
    ///   - initiatedAt: When the return was initiated.
    ///   - lineItems: The items being returned.
    ///   - notes: Additional information about the return.
    ///   - returnLabel: The file name, within the archive, of a printable return label (PDF, JPEG
    ///     or PNG).
    ///   - returnManagementURL: A URL where the customer can manage the return (kept as written).
    ///   - returnNumber: The return number shown to the customer.
    ///   - returnedAt: When the items were returned.
    ///   - statusDescription: A localizable message describing the status of the return.
    public init(
        returnIdentifier: String,
        status: Status,
        carrier: String? = nil,
        dropOffBy: Timestamp? = nil,
        initiatedAt: Timestamp? = nil,
        lineItems: [LineItem]? = nil,
        notes: String? = nil,
        returnLabel: String? = nil,
        returnManagementURL: String? = nil,
        returnNumber: String? = nil,
        returnedAt: Timestamp? = nil,
        statusDescription: String? = nil
    ) {
        self.returnIdentifier = returnIdentifier
        self.status = status
        self.carrier = carrier
        self.dropOffBy = dropOffBy
        self.initiatedAt = initiatedAt
        self.lineItems = lineItems
        self.notes = notes
        self.returnLabel = returnLabel
        self.returnManagementURL = returnManagementURL
        self.returnNumber = returnNumber
        self.returnedAt = returnedAt
        self.statusDescription = statusDescription
    }
}

// MARK: - Enumerations

extension OrderReturn {
    /// The status of a return.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The return is open.
        public static let open: Self = "open"

        /// The returned items are on their way back.
        public static let onTheWay: Self = "onTheWay"

        /// The merchant is processing the return.
        public static let processing: Self = "processing"

        /// There is an issue with the return.
        public static let issue: Self = "issue"

        /// The return is complete.
        public static let completed: Self = "completed"

        /// The return was cancelled.
        public static let cancelled: Self = "cancelled"

        /// The documented values: `open`, `onTheWay`, `processing`, `issue`, `completed`, `cancelled`.
        public static let knownValues: [Self] = [.open, .onTheWay, .processing, .issue, .completed, .cancelled]
    }
}
