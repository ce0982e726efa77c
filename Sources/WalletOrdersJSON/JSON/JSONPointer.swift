/// RFC 6901 JSON Pointer reference tokens: the one place that escapes and unescapes them.
package enum JSONPointer {
    /// `~` → `~0`, `/` → `~1`. Called for every key the validator walks, so the common case
    /// (neither character present) returns the token untouched, without touching Foundation.
    package static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var escaped = ""
        for scalar in token.unicodeScalars {
            switch scalar {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `~1` → `/`, `~0` → `~` (in that order, as RFC 6901 §4 requires).
    package static func unescape(_ token: some StringProtocol) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        var unescaped = ""
        var scalars = token.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "~" else {
                unescaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "0": unescaped += "~"
            case "1": unescaped += "/"
            case let other?: unescaped += "~" + String(other)
            case nil: unescaped += "~"
            }
        }
        return unescaped
    }
}
