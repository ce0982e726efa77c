import Foundation

/// The few pieces of HTML the page is made of: escaping, and elements built as strings.
enum HTML {
    /// Text for an element's content or a quoted attribute value. Bidi embeddings, overrides and
    /// isolates (U+202A–U+202E, U+2066–U+2069) are dropped: in an order's text they can only
    /// reorder what the customer reads (`‮moc.elppa` shown as `apple.com`); the marks (U+200E,
    /// U+200F) stay.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case _ where isBidiControl(scalar): continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `<tag class="…">content</tag>`; `content` is HTML already.
    static func element(_ tag: String, _ className: String? = nil, _ content: String, attributes: [(String, String)] = []) -> String {
        var open = "<\(tag)"
        if let className { open += " class=\"\(className)\"" }
        for (name, value) in attributes { open += " \(name)=\"\(escape(value))\"" }
        return "\(open)>\(content)</\(tag)>"
    }

    /// A link the customer can follow: only http(s) with a host, mailto and tel go into `href`,
    /// with no whitespace or control character (browsers drop those, so `java\nscript:` would
    /// pass a prefix check on the raw text); anything else is shown as text.
    static func link(_ url: String, _ label: String, className: String = "link") -> String {
        guard isFollowable(url) else { return element("span", className, escape(label)) }
        return element("a", className, escape(label), attributes: [("href", url), ("rel", "noopener noreferrer")])
    }

    static func isFollowable(_ url: String) -> Bool {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || isBidiControl($0) }) else { return false }
        let lower = url.lowercased()
        if lower.hasPrefix("mailto:") || lower.hasPrefix("tel:") { return true }
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), let host = URL(string: url)?.host, !host.isEmpty else { return false }
        return true
    }

    /// A label and value row inside a card.
    static func row(_ label: String, _ valueHTML: String, className: String = "row") -> String {
        element("div", className, element("span", "label", escape(label)) + element("span", "value", valueHTML))
    }

    /// A row for text a customer reads as prose (notes): the label above, the text below it the
    /// card's full width, left-aligned, its line breaks and paragraphs kept.
    static func textRow(_ label: String, _ textHTML: String) -> String {
        element("div", "row text-row", element("span", "label", escape(label)) + element("p", "value prose", textHTML))
    }

    /// A row for a code read character by character (a tracking number): the label above, the
    /// code below on one line, never broken inside (a code wider than the card scrolls).
    static func codeRow(_ label: String, _ code: String) -> String {
        element("div", "row text-row", element("span", "label", escape(label)) + element("span", "value code-value mono", escape(code)))
    }
}
