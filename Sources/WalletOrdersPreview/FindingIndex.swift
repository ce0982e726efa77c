import WalletOrders

/// The report's findings, handed out to the places on the page they concern (by JSON pointer in
/// `order.json`); each is shown inline once, at the most specific place that asks for it, and all
/// of them are listed at the top.
final class FindingIndex {
    struct Entry {
        var number: Int
        var diagnostic: Diagnostic
        var pointer: String?
        var shown = false
    }

    private(set) var entries: [Entry]

    init(_ report: ValidationReport) {
        entries = report.diagnostics.enumerated().map { index, diagnostic in
            let location = diagnostic.location
            let inOrderJSON = location.file == nil || location.file == "order.json"
            return Entry(number: index + 1, diagnostic: diagnostic, pointer: inOrderJSON ? location.jsonPointer : nil)
        }
    }

    /// The not-yet-shown findings at exactly `pointer`, marked shown, as HTML.
    func take(at pointer: String) -> String {
        take { $0 == pointer }
    }

    /// The not-yet-shown findings at `pointer` or inside it, marked shown, as HTML.
    func take(under pointer: String) -> String {
        take { $0 == pointer || $0.hasPrefix(pointer + "/") }
    }

    private func take(where matches: (String) -> Bool) -> String {
        var html = ""
        for index in entries.indices where !entries[index].shown {
            guard let pointer = entries[index].pointer, matches(pointer) else { continue }
            entries[index].shown = true
            html += Self.inline(entries[index])
        }
        return html
    }

    static func inline(_ entry: Entry) -> String {
        let d = entry.diagnostic
        return "<p class=\"finding \(d.severity.rawValue)\" id=\"finding-\(entry.number)\">"
            + "<span class=\"rule\">\(d.severity.rawValue)[\(HTML.escape(d.ruleID))]</span> \(HTML.escape(d.message))</p>"
    }
}
