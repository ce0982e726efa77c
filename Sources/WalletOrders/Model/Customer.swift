/// The customer who placed an order; every field is optional.
public struct Customer: Codable, Sendable, Hashable {
    /// The customer's email address.
    public var emailAddress: String?

    /// The customer's family name.
    public var familyName: String?

    /// The customer's given name.
    public var givenName: String?

    /// The customer's organization name.
    public var organizationName: String?

    /// The customer's phone number.
    public var phoneNumber: String?

    /// Creates a `Customer`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - emailAddress: The customer's email address.
    ///   - familyName: The customer's family name.
    ///   - givenName: The customer's given name.
    ///   - organizationName: The customer's organization name.
    ///   - phoneNumber: The customer's phone number.
    public init(
        emailAddress: String? = nil,
        familyName: String? = nil,
        givenName: String? = nil,
        organizationName: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.emailAddress = emailAddress
        self.familyName = familyName
        self.givenName = givenName
        self.organizationName = organizationName
        self.phoneNumber = phoneNumber
    }
}
