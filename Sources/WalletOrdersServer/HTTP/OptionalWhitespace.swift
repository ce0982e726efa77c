extension StringProtocol {
    /// The text without the spaces and horizontal tabs around it: a header field's optional
    /// whitespace (RFC 9110 §5.6.3), trimmed in Swift on the service's hot paths rather than by
    /// Foundation's `trimmingCharacters(in:)`, which bridges through `NSString`.
    var trimmingOptionalWhitespace: Substring {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, Self.isOptionalWhitespace(bytes[start]) { start = bytes.index(after: start) }
        while start < end, Self.isOptionalWhitespace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return text[start..<end]
    }

    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
