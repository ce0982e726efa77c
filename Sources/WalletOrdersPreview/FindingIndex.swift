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

    /// For each rule (severity and id) shown in place: how many of its findings were, and the
    /// entry index of the first.
    private var shownByRule: [String: (count: Int, first: Int)] = [:]

    /// How many findings of `diagnostic`'s rule were shown in place.
    func shownCount(of diagnostic: Diagnostic) -> Int {
        shownByRule[Self.rule(diagnostic)]?.count ?? 0
    }

    private static func rule(_ diagnostic: Diagnostic) -> String { diagnostic.severity.rawValue + " " + diagnostic.ruleID }

    private func take(_ indices: [Int]) -> String {
        var html = ""
        for index in indices where !entries[index].shown {
            entries[index].shown = true
            let rule = Self.rule(entries[index].diagnostic)
            let seen = shownByRule[rule] ?? (0, index)
            shownByRule[rule] = (seen.count + 1, seen.first)
            html += inline(entries[index], first: seen.first == index ? nil : entries[seen.first])
        }
        return html
    }

    /// A finding in its place: the rule and its message. A rule's later finding with the same
    /// message as its first (`first`) is one short line (the rule, "again", a link to the
    /// first), so a warning repeated on every amount doesn't make the page three times the order.
    private func inline(_ entry: Entry, first: Entry?) -> String {
        let d = entry.diagnostic
        let rule = "<span class=\"rule\">\(d.severity.rawValue)[\(HTML.escape(d.ruleID))]</span>"
        if let first, first.diagnostic.message == d.message {
            return "<p class=\"finding \(d.severity.rawValue) repeated\" id=\"finding-\(entry.number)\">"
                + "\(rule) <a href=\"#finding-\(first.number)\">again</a></p>"
        }
        return "<p class=\"finding \(d.severity.rawValue)\" id=\"finding-\(entry.number)\">\(rule) \(HTML.escape(d.message))</p>"
    }
}
