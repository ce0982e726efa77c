extension Payment {
    /// One line of a payment breakdown, such as the subtotal or a tax (JSON key `summaryItems`).
    public struct SummaryItem: Codable, Sendable, Hashable {
        /// The localizable label of the line, such as `Tax`.
        public var label: String

        /// The monetary value of the line.
        public var value: CurrencyAmount

        /// Creates a `SummaryItem`.
        ///
        /// - Parameters:
        ///   - label: The localizable label of the line, such as `Tax`.
        ///   - value: The monetary value of the line.
        public init(
            label: String,
            value: CurrencyAmount
        ) {
            self.label = label
            self.value = value
        }
    }
}
