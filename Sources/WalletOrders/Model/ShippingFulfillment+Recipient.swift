extension ShippingFulfillment {
    /// The person or organization receiving a shipment; every field is optional.
    public struct Recipient: Codable, Sendable, Hashable {
        /// The recipient's address.
        public var address: Address?

        /// The recipient's family name.
        public var familyName: String?

        /// The recipient's given name.
        public var givenName: String?

        /// The recipient's organization name.
        public var organizationName: String?

        /// Creates a `Recipient`; optional fields default to `nil`.
        ///
        /// - Parameters:
        ///   - address: The recipient's address.
        ///   - familyName: The recipient's family name.
        ///   - givenName: The recipient's given name.
        ///   - organizationName: The recipient's organization name.
        public init(
            address: Address? = nil,
            familyName: String? = nil,
            givenName: String? = nil,
            organizationName: String? = nil
        ) {
            self.address = address
            self.familyName = familyName
            self.givenName = givenName
            self.organizationName = organizationName
        }
    }
}
