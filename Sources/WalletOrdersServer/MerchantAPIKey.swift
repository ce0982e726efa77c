import WalletOrders

/// The order types a merchant API key may act on: every type (`*`), or a list.
///
/// Several merchants can share one service: each gets keys scoped to its own order types, so one
/// merchant's key can't list, read, change, delete, link or sign another merchant's orders.
public struct MerchantScope: Sendable, Hashable, CustomStringConvertible {
    /// The order types, or `nil` for every type.
    public let orderTypeIdentifiers: Set<String>?

    /// Every order type (`*` in a key file): for the service's operator, or a service with one merchant.
    public static let allOrderTypes = MerchantScope(orderTypeIdentifiers: nil)

    /// Exactly these order types.
    public init(orderTypes: some Sequence<String>) {
        self.init(orderTypeIdentifiers: Set(orderTypes))
    }

    private init(orderTypeIdentifiers: Set<String>?) {
        self.orderTypeIdentifiers = orderTypeIdentifiers
    }

    /// Whether the scope includes `orderTypeIdentifier` (compared exactly, as the store does).
    public func permits(_ orderTypeIdentifier: String) -> Bool {
        orderTypeIdentifiers.map { types in types.contains { $0.utf8.elementsEqual(orderTypeIdentifier.utf8) } } ?? true
    }

    /// `*`, or the order types comma-separated in sorted order: the key file's notation.
    public var description: String { orderTypeIdentifiers.map { $0.sorted().joined(separator: ",") } ?? "*" }
}

/// A merchant API key and the order types it may act on.
///
/// Written one a line in a key file (`--api-key-file`), `WALLET_ORDERS_API_KEYS` and the config
/// file's `apiKeys`: the key, whitespace, then its order types comma-separated, or `*` for every
/// type; blank lines and lines starting with `#` are skipped, and `#` after the scope starts a comment:
///
/// ```
/// # Northwind Outfitters
/// 3f9c…e1 order.com.northwindoutfitters.shop,order.com.northwindoutfitters.returns
/// # the operator
/// 8a21…77 *
/// ```
///
/// The key never appears in ``description`` or in errors: they name the line instead.
public struct MerchantAPIKey: Sendable, Hashable, CustomStringConvertible {
    /// The shortest key accepted: a shorter one can be guessed.
    public static let minimumLength = 16

    /// The secret the client sends as `Authorization: Bearer <key>`.
    public var key: String
    /// The order types it may act on.
    public var scope: MerchantScope

    /// A key and its scope, as given (``parse(_:source:firstLine:)`` also checks the length).
    public init(_ key: String, scope: MerchantScope) {
        self.key = key
        self.scope = scope
    }

    /// The scope, never the key.
    public var description: String { "MerchantAPIKey(scope: \(scope))" }

    /// Reads keys in the key-file format (see the type's overview).
    ///
    /// - Parameters:
    ///   - text: The lines.
    ///   - source: Names the lines in errors, such as `the API key file keys.txt`.
    ///   - firstLine: The number of `text`'s first line in `source`.
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming `source` and the line (never
    ///   the key): a key without its order types, a bad scope, a key shorter than ``minimumLength``,
    ///   or one given twice.
    public static func parse(_ text: String, source: String, firstLine: Int = 1) throws -> [MerchantAPIKey] {
        var keys: [MerchantAPIKey] = []
        var lineOfKey: [String: Int] = [:]
        for (offset, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = firstLine + offset
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            let key = String(first)
            func refuse(_ problem: String, hint: String = formatHint) -> WalletOrdersError {
                WalletOrdersError(.invalidConfiguration, "\(source), line \(number): \(problem)", hint: hint)
            }
            let scopeText = fields.dropFirst().prefix { !$0.hasPrefix("#") }.joined()
            if scopeText.isEmpty {
                if key.contains(",") {
                    throw refuse(
                        "keys are no longer separated by commas: the comma separates a key's order types.",
                        hint: "Give each key its order types and separate the entries with ';' or newlines: "
                            + "WALLET_ORDERS_API_KEYS='KEY1 order.com.example.shop;KEY2 *'.")
                }
                throw refuse("the key has no list of the order types it may act on.")
            }
            guard key.count >= minimumLength else {
                throw refuse(
                    "the key is shorter than \(minimumLength) characters (\(key.count)); short keys can be guessed.",
                    hint: "Use long random keys, e.g. `openssl rand -hex 24`.")
            }
            let types = scopeText.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let scope: MerchantScope
            if types == ["*"] {
                scope = .allOrderTypes
            } else if types.contains(where: { $0.isEmpty || $0.contains("*") }) {
                throw refuse("the order types are not a comma-separated list of identifiers, or a single `*` for every type.")
            } else {
                scope = MerchantScope(orderTypes: types)
            }
            if let earlier = lineOfKey[key] {
                throw refuse(
                    "the key is given again (first on line \(earlier)).",
                    hint: "Give each key once, with every order type it may act on.")
            }
            lineOfKey[key] = number
            keys.append(MerchantAPIKey(key, scope: scope))
        }
        return keys
    }

    private static let formatHint =
        "Write the key, whitespace, then the order types it may act on, comma-separated, or * for every type: "
        + "`KEY order.com.example.shop,order.com.example.tickets`."
}
