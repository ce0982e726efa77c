/// The pair that identifies a pass: its `passTypeIdentifier` and its `serialNumber`.
///
/// Wallet keeps one pass per pair: adding a pass with the same pair replaces the one it has, and
/// an update is a newer pass with the same pair. Both halves compare as exact, case-sensitive
/// UTF-8 bytes, as an order's identifiers do.
///
/// ``stringForm`` is `<passTypeIdentifier>/<serialNumber>`, with `%` written `%25` and `/` written
/// `%2F` inside each half (`pass.com.example.ticket/A%2F1`); ``init(stringForm:)`` reads it back.
/// `Codable` as an object with the two keys `passTypeIdentifier` and `serialNumber`.
public struct PassIdentifier: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The pass type identifier, such as `"pass.com.example.ticket"`.
    public var passTypeIdentifier: String
    /// The serial number, unique within ``passTypeIdentifier``.
    public var serialNumber: String

    /// Creates an identifier from its two halves, used exactly as given.
    public init(passTypeIdentifier: String, serialNumber: String) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
    }

    /// Parses a string made by ``stringForm``; `nil` unless it has exactly one unescaped `/` and
    /// every `%` starts `%25` or `%2F`.
    public init?(stringForm: String) {
        guard let (type, serial) = IdentifierPair.parse(stringForm) else { return nil }
        self.init(passTypeIdentifier: type, serialNumber: serial)
    }

    /// `<passTypeIdentifier>/<serialNumber>`, each half escaped.
    public var stringForm: String { IdentifierPair.stringForm(pair) }

    /// The stable string form, exactly as ``stringForm``.
    public var description: String { stringForm }

    private var pair: (String, String) { (passTypeIdentifier, serialNumber) }

    /// Whether both halves are byte-for-byte identical.
    public static func == (lhs: Self, rhs: Self) -> Bool { IdentifierPair.equal(lhs.pair, rhs.pair) }

    /// Hashes the UTF-8 bytes of both halves, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { IdentifierPair.hash(pair, into: &hasher) }

    /// By pass type identifier, then serial number, comparing UTF-8 bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool { IdentifierPair.less(lhs.pair, rhs.pair) }
}
