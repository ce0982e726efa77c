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
    /// Entry indices by their exact pointer, and by each pointer they are at or under (`/a/b` is
    /// under `/a` and ``""``), in report order: a page of thousands of items with a finding each
    /// takes linear time, not quadratic.
    private var exact: [String: [Int]] = [:]
    private var under: [String: [Int]] = [:]

    init(_ report: ValidationReport) {
        entries = report.diagnostics.enumerated().map { index, diagnostic in
            let location = diagnostic.location
            let inOrderJSON = location.file == nil || location.file == "order.json"
            return Entry(number: index + 1, diagnostic: diagnostic, pointer: inOrderJSON ? location.jsonPointer : nil)
        }
        for (index, entry) in entries.enumerated() {
            guard let pointer = entry.pointer else { continue }
            exact[pointer, default: []].append(index)
            var prefix = Substring(pointer)
            under[pointer, default: []].append(index)
            while let slash = prefix.lastIndex(of: "/") {
                prefix = prefix[..<slash]
                under[String(prefix), default: []].append(index)
            }
        }
    }

    /// The not-yet-shown findings at exactly `pointer`, marked shown, as HTML.
    func take(at pointer: String) -> String {
        take(exact[pointer] ?? [])
    }

    /// The not-yet-shown findings at `pointer` or inside it, marked shown, as HTML.
    func take(under pointer: String) -> String {
        take(under[pointer] ?? [])
    }

    private func take(_ indices: [Int]) -> String {
        var html = ""
        for index in indices where !entries[index].shown {
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
