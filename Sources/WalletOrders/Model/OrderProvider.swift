/// The third-party platform that provides an order on behalf of the merchant (iOS 17.4+ / macOS
/// 14.4+).
public struct OrderProvider: Codable, Sendable, Hashable {
    /// The localizable display name of the order provider platform.
    public var displayName: String

    /// The file name, within the archive, of the provider's logo for dark mode, shown with a
    /// shipment's tracking link.
    public var trackingLogoNameDarkColorScheme: String

    /// The file name, within the archive, of the provider's logo for light mode, shown with a
    /// shipment's tracking link.
    public var trackingLogoNameLightColorScheme: String

    /// The URL of the order provider platform (kept as written).
    public var url: String

    /// Creates an `OrderProvider`.
    ///
    /// - Parameters:
    ///   - displayName: The localizable display name of the order provider platform.
    ///   - trackingLogoNameDarkColorScheme: The file name, within the archive, of the provider's
    ///     logo for dark mode, shown with a shipment's tracking link.
    ///   - trackingLogoNameLightColorScheme: The file name, within the archive, of the provider's
    ///     logo for light mode, shown with a shipment's tracking link.
    ///   - url: The URL of the order provider platform (kept as written).
    public init(
        displayName: String,
        trackingLogoNameDarkColorScheme: String,
        trackingLogoNameLightColorScheme: String,
        url: String
    ) {
        self.displayName = displayName
        self.trackingLogoNameDarkColorScheme = trackingLogoNameDarkColorScheme
        self.trackingLogoNameLightColorScheme = trackingLogoNameLightColorScheme
        self.url = url
    }
}
