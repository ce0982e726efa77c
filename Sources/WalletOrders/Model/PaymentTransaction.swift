/// A single payment or refund transaction of an order (iOS 17.0+ / macOS 14.0+).
public struct PaymentTransaction: Codable, Sendable, Hashable {
    /// The amount of the transaction.
    public var amount: CurrencyAmount

    /// When the transaction was created.
    public var createdAt: Timestamp

    /// The pass or card used for the transaction.
    public var paymentMethod: PaymentMethod

    /// The status of the transaction.
    public var status: Status

    /// Whether the transaction is a purchase or a refund.
    public var transactionType: TransactionType

    /// The Apple Pay transaction identifier.
    public var applePayTransactionIdentifier: String?

    /// The file name, within the archive, of the receipt (PDF, JPEG or PNG).
    public var receipt: String?

    /// Creates a `PaymentTransaction`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - amount: The amount of the transaction.
    ///   - createdAt: When the transaction was created.
    ///   - paymentMethod: The pass or card used for the transaction.
    ///   - status: The status of the transaction.
    ///   - transactionType: Whether the transaction is a purchase or a refund.
    ///   - applePayTransactionIdentifier: The Apple Pay transaction identifier.
    ///   - receipt: The file name, within the archive, of the receipt (PDF, JPEG or PNG).
    public init(
        amount: CurrencyAmount,
        createdAt: Timestamp,
        paymentMethod: PaymentMethod,
        status: Status,
        transactionType: TransactionType,
        applePayTransactionIdentifier: String? = nil,
        receipt: String? = nil
    ) {
        self.amount = amount
        self.createdAt = createdAt
        self.paymentMethod = paymentMethod
        self.status = status
        self.transactionType = transactionType
        self.applePayTransactionIdentifier = applePayTransactionIdentifier
        self.receipt = receipt
    }
}

// MARK: - Enumerations

extension PaymentTransaction {
    /// The status of a payment transaction.
    public struct Status: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The transaction is pending.
        public static let pending: Self = "pending"

        /// The transaction is approved.
        public static let approved: Self = "approved"

        /// The transaction is complete.
        public static let completed: Self = "completed"

        /// The transaction was cancelled.
        public static let cancelled: Self = "cancelled"

        /// The transaction failed.
        public static let failed: Self = "failed"

        /// The documented values: `pending`, `approved`, `completed`, `cancelled`, `failed`.
        public static let knownValues: [Self] = [.pending, .approved, .completed, .cancelled, .failed]
    }

    /// The kind of a payment transaction.
    public struct TransactionType: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A purchase: money paid by the customer.
        public static let purchase: Self = "purchase"

        /// A refund: money returned to the customer.
        public static let refund: Self = "refund"

        /// The documented values: `purchase`, `refund`.
        public static let knownValues: [Self] = [.purchase, .refund]
    }
}
