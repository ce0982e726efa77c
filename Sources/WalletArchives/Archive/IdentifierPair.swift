/// The rules both kinds' identifiers follow: a type identifier and an identifier within that type
/// (an order's `orderTypeIdentifier` and `orderIdentifier`, a pass's `passTypeIdentifier` and
/// `serialNumber`), compared as exact UTF-8 bytes and written as one string,
/// `<type>/<identifier>`, with `%` as `%25` and `/` as `%2F` inside each half.
package enum IdentifierPair {
    /// Whether two pairs are byte-for-byte identical.
    package static func equal(_ lhs: (String, String), _ rhs: (String, String)) -> Bool {
        lhs.0.utf8.elementsEqual(rhs.0.utf8) && lhs.1.utf8.elementsEqual(rhs.1.utf8)
    }

    /// Hashes the UTF-8 bytes of both halves, consistently with ``equal(_:_:)``.
    package static func hash(_ pair: (String, String), into hasher: inout Hasher) {
        for component in [pair.0, pair.1] {
            hasher.combine(component.utf8.count)
            for byte in component.utf8 { hasher.combine(byte) }
        }
    }

    /// Orders by type, then identifier, comparing UTF-8 bytes.
    package static func less(_ lhs: (String, String), _ rhs: (String, String)) -> Bool {
        if !lhs.0.utf8.elementsEqual(rhs.0.utf8) { return lhs.0.utf8.lexicographicallyPrecedes(rhs.0.utf8) }
        return lhs.1.utf8.lexicographicallyPrecedes(rhs.1.utf8)
    }

    /// `<type>/<identifier>`, each half escaped.
    package static func stringForm(_ pair: (String, String)) -> String {
        escape(pair.0) + "/" + escape(pair.1)
    }

    /// Parses ``stringForm(_:)``: `nil` unless there is exactly one unescaped `/` and every `%`
    /// starts `%25` or `%2F` (uppercase), so each pair has exactly one string form.
    package static func parse(_ text: String) -> (String, String)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let type = unescape(parts[0]), let identifier = unescape(parts[1]) else { return nil }
        return (type, identifier)
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
            switch String(String.UnicodeScalarView(scalars.prefix(2))) {
            case "25": result += "%"
            case "2F": result += "/"
            default: return nil
            }
            scalars = scalars.dropFirst(2)
        }
        return result
    }
}
