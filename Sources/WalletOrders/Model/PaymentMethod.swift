/// The pass or card used for a payment transaction (iOS 17.0+ / macOS 14.0+).
public struct PaymentMethod: Codable, Sendable, Hashable {
    /// The name of the payment method, such as a specific pass or card.
    public var displayName: String

    /// Creates a `PaymentMethod`.
    ///
    /// - Parameters:
    ///   - displayName: The name of the payment method, such as a specific pass or card.
    public init(
        displayName: String
    ) {
        self.displayName = displayName
    }
}
