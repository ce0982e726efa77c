/// Text that came (at least partly) from outside, cut to a size a terminal, a log line or a
/// JSON report can carry: a hostile archive's 1 MB file name or 5 MB JSON value is shown by its
/// start and end, with how much was left out between them.
package enum BoundedText {
    /// The most characters a finding's message or hint keeps.
    package static let findingLimit = 500
    /// The most characters an error's message or hint keeps (it may list several findings).
    package static let errorLimit = 4_000

    /// `text`, or its first two thirds and last third of `limit` characters with a note between.
    package static func excerpt(_ text: String, limit: Int) -> String {
        // Counting UTF-8 bytes first is O(1) for native strings; most text is short.
        guard text.utf8.count > limit, text.count > limit else { return text }
        let head = limit * 2 / 3
        let tail = limit / 3
        let leftOut = text.count - head - tail
        return "\(text.prefix(head))…(\(leftOut) characters left out)…\(text.suffix(tail))"
    }
}
