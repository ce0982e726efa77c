/// The error thrown when text doesn't have the format a value type requires.
///
/// ``DecimalAmount``'s string initializer and ``Timestamp/init(rfc3339:)`` throw it. When the text
/// comes from order.json, the decoder wraps ``description`` in a `DecodingError.dataCorrupted`
/// whose coding path tells where the value was.
public struct ValueFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of value the text should have been, such as `"decimal amount"` or
    /// `"RFC 3339 timestamp"`.
    public var kind: String

    /// The rejected text, exactly as given.
    public var text: String

    /// What is wrong with the text, as a phrase for people (may change between releases).
    public var reason: String

    /// Creates an error describing why `text` isn't a valid `kind` of value.
    ///
    /// - Parameters:
    ///   - kind: The kind of value the text should have been.
    ///   - text: The rejected text.
    ///   - reason: What is wrong with the text.
    public init(kind: String, text: String, reason: String) {
        self.kind = kind
        self.text = text
        self.reason = reason
    }

    /// A one-line message naming the kind of value, quoting the text and giving the reason.
    public var description: String {
        "Invalid \(kind) \"\(text)\": \(reason)"
    }
}
