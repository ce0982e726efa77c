/// An app associated with an order, identified by its App Store identifier.
public struct Application: Codable, Sendable, Hashable {
    /// The App Store (ADAM) identifier of the app.
    public var storeIdentifier: Int

    /// The identifier of a custom App Store product page to link to (iOS 17.0+).
    public var customProductPageIdentifier: String?

    /// A URL passed to the app when it launches (kept as written).
    public var launchURL: String?

    /// Creates an `Application`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - storeIdentifier: The App Store (ADAM) identifier of the app.
    ///   - customProductPageIdentifier: The identifier of a custom App Store product page to link
    ///     to (iOS 17.0+).
    ///   - launchURL: A URL passed to the app when it launches (kept as written).
    public init(
        storeIdentifier: Int,
        customProductPageIdentifier: String? = nil,
        launchURL: String? = nil
    ) {
        self.storeIdentifier = storeIdentifier
        self.customProductPageIdentifier = customProductPageIdentifier
        self.launchURL = launchURL
    }
}
