/// Something wrong with a JSON text, where it is, and (when known) which value it concerns.
///
/// Made by ``JSONParser``. A fatal problem (``Kind/syntax`` or ``Kind/tooDeep``) means there is
/// no document; every other kind is reported while parsing goes on.
package struct JSONProblem: Sendable, Hashable, CustomStringConvertible {
    /// What sort of problem it is.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// The text is not JSON (RFC 8259): the first place where the grammar breaks. Fatal.
        case syntax
        /// Arrays and objects are nested deeper than the parser's `maxDepth`. Fatal.
        case tooDeep
        /// An object has the same key more than once; both members are kept.
        case duplicateKey
        /// The text starts with a UTF-8 byte-order mark, which RFC 8259 forbids; it is skipped.
        case byteOrderMark
        /// A string holds bytes that are not UTF-8; each ill-formed sequence becomes U+FFFD.
        case invalidUTF8
        /// A string holds a `\u` escape of an unpaired UTF-16 surrogate; it becomes U+FFFD.
        case invalidUnicodeEscape
        /// A comma before the `]` or `}` that closes an array or object, which RFC 8259 forbids;
        /// reported only when the parse allows trailing commas (``JSONParser/parse(_:maxDepth:allowingTrailingCommas:)``),
        /// a syntax error otherwise.
        case trailingComma
    }

    /// What sort of problem it is.
    package var kind: Kind
    /// One line that says what is wrong and what was expected, e.g.
    /// `Expected ',' or '}' after an object member, found ']'`.
    package var message: String
    /// Where the problem is: the offending byte for a syntax error, the second key for a
    /// duplicate key, the bad byte or escape inside a string.
    package var position: SourcePosition
    /// The RFC 6901 JSON Pointer of the value concerned, when known (a duplicate key's is
    /// the object's pointer plus the key, e.g. `/merchant/url`).
    package var pointer: String?

    /// Creates a problem.
    package init(kind: Kind, message: String, position: SourcePosition, pointer: String? = nil) {
        self.kind = kind
        self.message = message
        self.position = position
        self.pointer = pointer
    }

    /// Whether the problem leaves no document: a syntax error or nesting that is too deep.
    package var isFatal: Bool { kind == .syntax || kind == .tooDeep }

    /// `line:column: kind: message`, then the pointer when there is one.
    package var description: String {
        var text = "\(position): \(kind.rawValue): \(message)"
        if let pointer { text += " (at \"\(pointer)\")" }
        return text
    }
}
