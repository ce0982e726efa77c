/// Text from a peer (an HTTP client's header, a server's answer) made safe for a log line or a
/// terminal: quotes and backslashes escaped (`\"`, `\\`); control characters (C0, DEL, C1), line
/// and paragraph separators and bidi controls (U+202A–U+202E, U+2066–U+2069) escaped as `\u{…}`,
/// so nothing in it can move a terminal's cursor or reorder the text around it; and at most
/// `limit` bytes in all, a note of the full size included when cut. At most `limit` + 1
/// characters of the text are read, so the work is bounded before escaping too.
package enum LogText {
    /// Room kept for the note of a cut text (`… (12345678 bytes in all)`).
    package static let noteBytes = 32

    package static func escaped(_ text: String, limit: Int = 256) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(limit, text.utf8.count))
        var fitsWithNote = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\\": piece = "\\\\"
            case "\"": piece = "\\\""
            case _ where isUnsafe(scalar):
                piece = "\\u{\(String(scalar.value, radix: 16))}"
            default: piece = String(scalar)
            }
            if out.count + piece.utf8.count > limit {
                return String(decoding: out.prefix(fitsWithNote), as: UTF8.self) + "… (\(text.utf8.count) bytes in all)"
            }
            out += piece.utf8
            if out.count + noteBytes <= limit { fitsWithNote = out.count }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with only the characters that could move a terminal's cursor or reorder what is
    /// around it (see ``isUnsafe(_:)``) escaped as `\u{…}`; quotes and the rest as they are. For
    /// a peer's words in a report meant for a terminal.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi embeddings,
    /// overrides and isolates.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028
            || scalar.value == 0x2029 || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
