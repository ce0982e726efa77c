/// The merchant an order is from.
///
/// URLs are `String`s so that they re-encode exactly as written.
public struct Merchant: Codable, Sendable, Hashable {
    /// The localizable display name of the merchant.
    public var displayName: String

    /// The Apple Merchant Identifier for this merchant, from the same developer account as the
    /// signing certificate.
    public var merchantIdentifier: String

    /// The merchant's website or landing page (kept as written).
    public var url: String

    /// The merchant's contact address.
    public var address: Address?

    /// An Apple Messages for Business URL for the merchant (kept as written).
    public var businessChatURL: String?

    /// A URL where the customer can contact the merchant (kept as written).
    public var contactURL: String?

    /// The merchant's contact email address.
    public var emailAddress: String?

    /// The file name, within the archive, of an image of the merchant's logo.
    public var logo: String?

    /// The merchant's contact phone number.
    public var phoneNumber: String?

    /// Creates a `Merchant`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - displayName: The localizable display name of the merchant.
    ///   - merchantIdentifier: The Apple Merchant Identifier for this merchant, from the same
    ///     developer account as the signing certificate.
    ///   - url: The merchant's website or landing page (kept as written).
    ///   - address: The merchant's contact address.
    ///   - businessChatURL: An Apple Messages for Business URL for the merchant (kept as written).
    ///   - contactURL: A URL where the customer can contact the merchant (kept as written).
    ///   - emailAddress: The merchant's contact email address.
    ///   - logo: The file name, within the archive, of an image of the merchant's logo.
    ///   - phoneNumber: The merchant's contact phone number.
    public init(
        displayName: String,
        merchantIdentifier: String,
        url: String,
        address: Address? = nil,
        businessChatURL: String? = nil,
        contactURL: String? = nil,
        emailAddress: String? = nil,
        logo: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.displayName = displayName
        self.merchantIdentifier = merchantIdentifier
        self.url = url
        self.address = address
        self.businessChatURL = businessChatURL
        self.contactURL = contactURL
        self.emailAddress = emailAddress
        self.logo = logo
        self.phoneNumber = phoneNumber
    }
}
