/// The payment for an order.
public struct Payment: Codable, Sendable, Hashable {
    /// The total amount to be paid.
    public var total: CurrencyAmount

    /// The status of the payment.
    public var status: Status

    /// Identifiers of additional Apple Pay transactions to link to the order; Wallet links the
    /// original transaction by default.
    public var applePayTransactionIdentifiers: [String]?

    /// Descriptions of the payment methods used, such as `Visa 1234`.
    public var paymentMethods: [String]?

    /// A breakdown of the total, such as subtotal, shipping and taxes.
    public var summaryItems: [SummaryItem]?

    /// The payment transactions for the order (iOS 17.0+ / macOS 14.0+).
    public var transactions: [PaymentTransaction]?

    /// Creates a `Payment`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - total: The total amount to be paid.
    ///   - status: The status of the payment.
    ///   - applePayTransactionIdentifiers: Identifiers of additional Apple Pay transactions to link
    ///     to the order.
    ///   - paymentMethods: Descriptions of the payment methods used, such as `Visa 1234`.
    ///   - summaryItems: A breakdown of the total, such as subtotal, shipping and taxes.
    ///   - transactions: The payment transactions for the order (iOS 17.0+ / macOS 14.0+).
    public init(
        total: CurrencyAmount,
        status: Status,
        applePayTransactionIdentifiers: [String]? = nil,
        paymentMethods: [String]? = nil,
        summaryItems: [SummaryItem]? = nil,
        transactions: [PaymentTransaction]? = nil
    ) {
        self.total = total
        self.status = status
        self.applePayTransactionIdentifiers = applePayTransactionIdentifiers
        self.paymentMethods = paymentMethods
        self.summaryItems = summaryItems
        self.transactions = transactions
    }
}

// MARK: - Enumerations

extension Payment {
    /// The status of a payment.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The payment is pending.
        public static let pending: Self = "pending"

        /// The payment is authorized but not yet captured.
        public static let authorized: Self = "authorized"

        /// The payment is complete.
        public static let paid: Self = "paid"

        /// The payment was refunded.
        public static let refunded: Self = "refunded"

        /// The payment was declined.
        public static let declined: Self = "declined"

        /// The payment was voided.
        public static let voided: Self = "voided"

        /// The documented values: `pending`, `authorized`, `paid`, `refunded`, `declined`, `voided`.
        public static let knownValues: [Self] = [.pending, .authorized, .paid, .refunded, .declined, .voided]
    }
}
