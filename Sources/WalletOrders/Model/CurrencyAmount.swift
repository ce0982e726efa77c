/// A monetary amount in a given currency.
///
/// The amount is a ``DecimalAmount``, never a `Double`, so that no cent is ever lost to binary
/// rounding.
public struct CurrencyAmount: Codable, Sendable, Hashable {
    /// The exact amount; encoded as a JSON string, decoded from a JSON string or number.
    public var amount: DecimalAmount

    /// The ISO 4217 alphabetic currency code, such as `USD` (exactly three characters).
    public var currency: String

    /// Creates a `CurrencyAmount`.
    ///
    /// - Parameters:
    ///   - amount: The exact amount.
    ///   - currency: The ISO 4217 alphabetic currency code, such as `USD` (exactly three
    ///     characters).
    public init(
        amount: DecimalAmount,
        currency: String
    ) {
        self.amount = amount
        self.currency = currency
    }
}
