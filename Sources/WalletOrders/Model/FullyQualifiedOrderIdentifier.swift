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
        let parts = stringForm.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let orderTypeIdentifier = Self.unescape(parts[0]),
            let orderIdentifier = Self.unescape(parts[1])
        else { return nil }
        self.init(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }

    /// The stable string form `<orderTypeIdentifier>/<orderIdentifier>`, with `%` written as
    /// `%25` and `/` as `%2F` inside each component.
    ///
    /// For example (`order.com.example.shop`, `A/1`) is `order.com.example.shop/A%2F1`.
    public var stringForm: String {
        Self.escape(orderTypeIdentifier) + "/" + Self.escape(orderIdentifier)
    }

    /// The stable string form, exactly as ``stringForm``.
    public var description: String { stringForm }

    /// Returns whether both components are byte-for-byte identical.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.orderTypeIdentifier.utf8.elementsEqual(rhs.orderTypeIdentifier.utf8)
            && lhs.orderIdentifier.utf8.elementsEqual(rhs.orderIdentifier.utf8)
    }

    /// Hashes the UTF-8 bytes of both components, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        for component in [orderTypeIdentifier, orderIdentifier] {
            hasher.combine(component.utf8.count)
            for byte in component.utf8 { hasher.combine(byte) }
        }
    }

    /// Orders by order type identifier, then order identifier, comparing UTF-8 bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if !lhs.orderTypeIdentifier.utf8.elementsEqual(rhs.orderTypeIdentifier.utf8) {
            return lhs.orderTypeIdentifier.utf8.lexicographicallyPrecedes(rhs.orderTypeIdentifier.utf8)
        }
        return lhs.orderIdentifier.utf8.lexicographicallyPrecedes(rhs.orderIdentifier.utf8)
    }

    /// Escapes `%` as `%25` and `/` as `%2F`.
    private static func escape(_ component: String) -> String {
        var result = ""
        result.reserveCapacity(component.utf8.count)
        for character in component.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case "/": result += "%2F"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// Reverses ``escape(_:)``, or returns `nil` for a `%` that doesn't start `%25` or `%2F`.
    private static func unescape(_ component: Substring) -> String? {
        var result = ""
        var scalars = component.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            let escape = String(String.UnicodeScalarView(scalars.prefix(2)))
            switch escape {
            case "25": result += "%"
            case "2F": result += "/"
            default: return nil
            }
            scalars = scalars.dropFirst(2)
        }
        return result
    }
}
