/// The return policy of an order and where to start a return (iOS 17.2+ / macOS 14.2+).
public struct ReturnInfo: Codable, Sendable, Hashable {
    /// A URL of the return policy page (kept as written).
    public var returnPolicyURL: String

    /// Whether Wallet shows a countdown to the return deadline; Wallet treats a missing value as
    /// `false`.
    public var displayCountdown: Bool?

    /// The deadline for returns; the merchant can update a completed order until then.
    public var returnDeadline: Timestamp?

    /// A URL where the customer can start a return (kept as written).
    public var returnManagementURL: String?

    /// A short description of the return policy.
    public var returnPolicyDescription: String?

    /// Creates a `ReturnInfo`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - returnPolicyURL: A URL of the return policy page (kept as written).
    ///   - displayCountdown: Whether Wallet shows a countdown to the return deadline.
    ///   - returnDeadline: The deadline for returns.
    ///   - returnManagementURL: A URL where the customer can start a return (kept as written).
    ///   - returnPolicyDescription: A short description of the return policy.
    public init(
        returnPolicyURL: String,
        displayCountdown: Bool? = nil,
        returnDeadline: Timestamp? = nil,
        returnManagementURL: String? = nil,
        returnPolicyDescription: String? = nil
    ) {
        self.returnPolicyURL = returnPolicyURL
        self.displayCountdown = displayCountdown
        self.returnDeadline = returnDeadline
        self.returnManagementURL = returnManagementURL
        self.returnPolicyDescription = returnPolicyDescription
    }
}
