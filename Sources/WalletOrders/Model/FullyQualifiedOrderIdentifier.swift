/// The pair of identifiers that uniquely identifies an order: its order type identifier and its
/// order identifier.
///
/// Wallet and FinanceKit identify an order by (`orderTypeIdentifier`, `orderIdentifier`); a new
/// archive with the same pair updates the stored order. Both components compare as exact,
/// case-sensitive strings: equality, hashing and ordering use their UTF-8 bytes, so two
/// identifiers that Swift `String` would consider canonically equivalent (`"é"` written
/// precomposed or decomposed) are different here.
///
/// ``stringForm`` gives a stable single-string key, `<orderTypeIdentifier>/<orderIdentifier>`,
/// for file names, logs and database keys; ``init(stringForm:)`` parses it back. Encoding with
/// `Codable` writes a JSON object with the two keys `orderTypeIdentifier` and `orderIdentifier`.
public struct FullyQualifiedOrderIdentifier: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The order type identifier, such as `"order.com.example.shop"`.
    public var orderTypeIdentifier: String

    /// The order identifier, unique within ``orderTypeIdentifier``.
    public var orderIdentifier: String

    /// Creates an identifier from its two components, used exactly as given.
    ///
    /// - Parameters:
    ///   - orderTypeIdentifier: The order type identifier.
    ///   - orderIdentifier: The order identifier.
    public init(orderTypeIdentifier: String, orderIdentifier: String) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
    }

    /// Parses a string made by ``stringForm``.
    ///
    /// Returns `nil` unless the string has exactly one unescaped `/` and every `%` starts one of
    /// the two escapes `%25` or `%2F` (uppercase), so each identifier has exactly one string form.
    ///
    /// - Parameter stringForm: Text such as `"order.com.example.shop/A%2F1"`.
    public init?(stringForm: String) {
        guard let (orderTypeIdentifier, orderIdentifier) = IdentifierPair.parse(stringForm) else { return nil }
        self.init(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }

    /// The stable string form `<orderTypeIdentifier>/<orderIdentifier>`, with `%` written as
    /// `%25` and `/` as `%2F` inside each component.
    ///
    /// For example (`order.com.example.shop`, `A/1`) is `order.com.example.shop/A%2F1`.
    public var stringForm: String { IdentifierPair.stringForm(pair) }

    /// The stable string form, exactly as ``stringForm``.
    public var description: String { stringForm }

    private var pair: (String, String) { (orderTypeIdentifier, orderIdentifier) }

    /// Returns whether both components are byte-for-byte identical.
    public static func == (lhs: Self, rhs: Self) -> Bool { IdentifierPair.equal(lhs.pair, rhs.pair) }

    /// Hashes the UTF-8 bytes of both components, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { IdentifierPair.hash(pair, into: &hasher) }

    /// Orders by order type identifier, then order identifier, comparing UTF-8 bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool { IdentifierPair.less(lhs.pair, rhs.pair) }
}
