/// A geographic location, such as the precise spot of a pickup.
public struct Location: Codable, Sendable, Hashable {
    /// The latitude in degrees, from -90 through 90.
    public var latitude: Double

    /// The longitude in degrees, from -180 through 180.
    public var longitude: Double

    /// The altitude in meters above mean sea level.
    public var altitude: Double?

    /// Creates a `Location`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - latitude: The latitude in degrees, from -90 through 90.
    ///   - longitude: The longitude in degrees, from -180 through 180.
    ///   - altitude: The altitude in meters above mean sea level.
    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}
