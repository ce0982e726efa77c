/// The few pieces of HTML the page is made of: escaping, and elements built as strings.
enum HTML {
    /// Text for an element's content or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `<tag class="…">content</tag>`; `content` is HTML already.
    static func element(_ tag: String, _ className: String? = nil, _ content: String, attributes: [(String, String)] = []) -> String {
        var open = "<\(tag)"
        if let className { open += " class=\"\(className)\"" }
        for (name, value) in attributes { open += " \(name)=\"\(escape(value))\"" }
        return "\(open)>\(content)</\(tag)>"
    }

    /// A link the customer can follow: only http(s), mailto and tel go into `href`.
    static func link(_ url: String, _ label: String, className: String = "link") -> String {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") || lower.hasPrefix("mailto:") || lower.hasPrefix("tel:") else {
            return element("span", className, escape(label))
        }
        return element("a", className, escape(label), attributes: [("href", url), ("rel", "noopener noreferrer")])
    }

    /// A label and value row inside a card.
    static func row(_ label: String, _ valueHTML: String, className: String = "row") -> String {
        element("div", className, element("span", "label", escape(label)) + element("span", "value", valueHTML))
    }
}
