package import Foundation
package import WalletOrdersJSON

/// What content rules look at: the parsed content file (`order.json`, `pass.json`), every other
/// file, and the parsed strings file of each localization.
/// A class, not a struct: the rules and their JSON walks share one context instead of copying
/// its dictionaries and tree (those copies were a twentieth of a full validation).
package final class ValidationContext {
    /// The kind of archive, which names the content file.
    package let kind: ArchiveKind
    /// Every file except `manifest.json` and `signature`.
    package let files: [String: [UInt8]]
    /// The parsed content file, or `nil` when it is missing or not JSON.
    package let root: JSONNode?
    /// The content file's bytes, for quoting the line a finding points at.
    package let contentBytes: [UInt8]
    /// The `.lproj` folder names (`fr.lproj`), sorted.
    package let localizationFolders: [String]
    /// Parsed strings files (`order.strings`, `pass.strings`) per `.lproj` folder (only those that parsed).
    package var strings: [String: StringsFile] = [:]
    /// The time dates are compared with (``UpdatedAtLimit``).
    package let now: Date

    package init(files: [String: [UInt8]], root: JSONNode?, now: Date = Date(), kind: ArchiveKind = .order) {
        self.kind = kind
        self.files = files
        self.root = root
        self.now = now
        self.contentBytes = files[kind.contentPath] ?? []
        var folders = Set<String>()
        for path in files.keys {
            if let slash = path.utf8.firstIndex(of: UInt8(ascii: "/")), path[..<slash].hasSuffix(".lproj") {
                folders.insert(String(path[..<slash]))
            }
        }
        self.localizationFolders = folders.sorted()
    }

    /// A finding located in the content file at `pointer` (position taken from the parsed document).
    package func diagnostic(
        _ rule: ValidationRule, _ message: String, pointer: String, position: SourcePosition? = nil, hint: String? = nil,
        severity: Diagnostic.Severity? = nil
    ) -> Diagnostic {
        let at = position ?? root?.resolve(pointer: pointer)?.position
        var diagnostic = Diagnostic(
            rule.id, severity ?? rule.severity, message,
            at: .init(file: kind.contentPath, jsonPointer: pointer, line: at?.line, column: at?.column), hint: hint)
        if let at, let excerpt = line(around: at.offset, column: at.column) {
            diagnostic.sourceLine = excerpt.text
            if excerpt.startColumn > 1 { diagnostic.sourceLineStartColumn = excerpt.startColumn }
        }
        return diagnostic
    }

    /// The line of the content file holding byte `offset` (whose column is `column`), without its line
    /// ending; a line longer than ``Diagnostic/sourceExcerptLimit`` bytes is cut to that many
    /// around `offset`, on UTF-8 character boundaries, with `…` where it was cut at the end.
    package func line(around offset: Int, column: Int) -> (text: String, startColumn: Int)? {
        guard offset >= 0, offset <= contentBytes.count else { return nil }
        let isBreak = { (byte: UInt8) in byte == 0x0A || byte == 0x0D }
        let isContinuation = { (byte: UInt8) in byte & 0xC0 == 0x80 }
        let half = Diagnostic.sourceExcerptLimit / 2
        // Walk out from `offset`, at most `half` bytes each way: a long line costs no more.
        var start = min(offset, contentBytes.count)
        while start > 0, offset - start < half, !isBreak(contentBytes[start - 1]) { start -= 1 }
        while start < offset, isContinuation(contentBytes[start]) { start += 1 }
        let cutAtStart = start > 0 && !isBreak(contentBytes[start - 1])
        var end = offset
        while end < contentBytes.count, end - offset < half, !isBreak(contentBytes[end]) { end += 1 }
        while end > offset, end < contentBytes.count, isContinuation(contentBytes[end]) { end -= 1 }
        let cutAtEnd = end < contentBytes.count && !isBreak(contentBytes[end])
        var slice = contentBytes[start..<end]
        if !cutAtStart, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        let text = String(decoding: slice, as: UTF8.self) + (cutAtEnd ? "…" : "")
        guard cutAtStart else { return (text, 1) }
        let before = String(decoding: contentBytes[start..<offset], as: UTF8.self).utf16.count
        return (text, max(1, column - before))
    }

    /// A finding about another file.
    package func fileDiagnostic(_ rule: ValidationRule, _ message: String, file: String, line: Int? = nil, hint: String? = nil) -> Diagnostic {
        Diagnostic(
            rule, message, at: .init(file: file, line: line), hint: hint)
    }
}

/// A path into a JSON document, rendered as an RFC 6901 pointer only when a finding needs it.
package struct JSONPath {
    /// One step: an object key or an array index (kept as a number until a pointer is rendered).
    package enum Token {
        case key(String)
        case index(Int)
    }

    package var tokens: [Token] = []

    /// The root's path.
    package init() {}

    /// The pointer, such as `/payment/total/currency`.
    package var pointer: String {
        tokens.reduce(into: "") { pointer, token in
            switch token {
            case .key(let key): pointer += "/" + JSONPointer.escape(key)
            case .index(let index): pointer += "/" + String(index)
            }
        }
    }

    /// The pointer of a child of this path.
    package func pointer(appending token: String) -> String { pointer + "/" + JSONPointer.escape(token) }
}

/// "Did you mean …?" suggestions by edit distance.
package enum NearestName {
    /// The candidate closest to `name` (case-insensitive Levenshtein distance), if close enough;
    /// ties go to the alphabetically first.
    package static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        let lowered = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        // Sorted, so that a tie (USB: USD or USN?) always resolves the same way.
        for candidate in candidates.sorted() {
            let distance = levenshtein(lowered, Array(candidate.lowercased().unicodeScalars))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, name.count / 4), best.name != name || best.distance == 0 else { return nil }
        return best.name
    }

    package static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
