/// A postal address; every field is optional.
public struct Address: Codable, Sendable, Hashable {
    /// The street portion of the address, one line per element.
    public var addressLines: [String]?

    /// The state or other top-level administrative area.
    public var administrativeArea: String?

    /// The ISO 3166-1 alpha-2 country code, such as `US`.
    public var countryCode: String?

    /// The city or town.
    public var locality: String?

    /// The ZIP or postal code.
    public var postalCode: String?

    /// The county or other region below the administrative area.
    public var subAdministrativeArea: String?

    /// The district or neighborhood.
    public var subLocality: String?

    /// Creates an `Address`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - addressLines: The street portion of the address, one line per element.
    ///   - administrativeArea: The state or other top-level administrative area.
    ///   - countryCode: The ISO 3166-1 alpha-2 country code, such as `US`.
    ///   - locality: The city or town.
    ///   - postalCode: The ZIP or postal code.
    ///   - subAdministrativeArea: The county or other region below the administrative area.
    ///   - subLocality: The district or neighborhood.
    public init(
        addressLines: [String]? = nil,
        administrativeArea: String? = nil,
        countryCode: String? = nil,
        locality: String? = nil,
        postalCode: String? = nil,
        subAdministrativeArea: String? = nil,
        subLocality: String? = nil
    ) {
        self.addressLines = addressLines
        self.administrativeArea = administrativeArea
        self.countryCode = countryCode
        self.locality = locality
        self.postalCode = postalCode
        self.subAdministrativeArea = subAdministrativeArea
        self.subLocality = subLocality
    }
}
