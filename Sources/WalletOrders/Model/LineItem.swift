/// An item in an order, a fulfillment or a return.
///
/// `quantity` is a `Double` because the schema types it as a JSON number without requiring an
/// integer; whole quantities encode without a fraction (`10`, not `10.0`).
public struct LineItem: Codable, Sendable, Hashable {
    /// The number of items ordered, a JSON number.
    public var quantity: Double

    /// The localizable title of the item.
    public var title: String

    /// The Global Trade Item Number of the item, such as an EAN or ISBN.
    public var gtin: String?

    /// The file name, within the archive, of an image of the item.
    public var image: String?

    /// The price of the line item.
    public var price: CurrencyAmount?

    /// The merchant's stock keeping unit for the item.
    public var sku: String?

    /// A localizable secondary title for the item.
    public var subtitle: String?

    /// Creates a `LineItem`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - quantity: The number of items ordered, a JSON number.
    ///   - title: The localizable title of the item.
    ///   - gtin: The Global Trade Item Number of the item, such as an EAN or ISBN.
    ///   - image: The file name, within the archive, of an image of the item.
    ///   - price: The price of the line item.
    ///   - sku: The merchant's stock keeping unit for the item.
    ///   - subtitle: A localizable secondary title for the item.
    public init(
        quantity: Double,
        title: String,
        gtin: String? = nil,
        image: String? = nil,
        price: CurrencyAmount? = nil,
        sku: String? = nil,
        subtitle: String? = nil
    ) {
        self.quantity = quantity
        self.title = title
        self.gtin = gtin
        self.image = image
        self.price = price
        self.sku = sku
        self.subtitle = subtitle
    }
}
