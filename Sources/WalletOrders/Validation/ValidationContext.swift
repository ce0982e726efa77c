import Foundation

/// What content rules look at: the parsed `order.json`, every other file, and the parsed
/// `order.strings` of each localization.
struct ValidationContext {
    /// Every file except `manifest.json` and `signature`.
    let files: [String: [UInt8]]
    /// The parsed `order.json`, or `nil` when it is missing or not JSON.
    let root: JSONNode?
    /// `order.json`'s lines, for carets in text reports.
    let orderLines: [Substring]
    /// The `.lproj` folder names (`fr.lproj`), sorted.
    let localizationFolders: [String]
    /// Parsed `order.strings` per `.lproj` folder (only those that parsed).
    var strings: [String: StringsFile] = [:]

    init(files: [String: [UInt8]], root: JSONNode?) {
        self.files = files
        self.root = root
        let text = files[OrderArchive.orderPath].map { String(decoding: $0, as: UTF8.self) } ?? ""
        self.orderLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var folders = Set<String>()
        for path in files.keys {
            if let first = path.split(separator: "/").first, first.hasSuffix(".lproj"), path.contains("/") {
                folders.insert(String(first))
            }
        }
        self.localizationFolders = folders.sorted()
    }

    /// A finding located in `order.json` at `pointer` (position taken from the parsed document).
    func diagnostic(
        _ ruleID: String, _ message: String, pointer: String, position: SourcePosition? = nil, hint: String? = nil,
        severity: Diagnostic.Severity? = nil
    ) -> Diagnostic {
        let at = position ?? root?.resolve(pointer: pointer)?.position
        var diagnostic = Diagnostic(
            ruleID, severity ?? ValidationRule.named(ruleID)?.severity ?? .error, message,
            at: .init(file: OrderArchive.orderPath, jsonPointer: pointer, line: at?.line, column: at?.column), hint: hint)
        if let line = at?.line, line - 1 < orderLines.count {
            diagnostic.sourceLine = String(orderLines[line - 1]).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
        return diagnostic
    }

    /// A finding about another file.
    func fileDiagnostic(_ ruleID: String, _ message: String, file: String, line: Int? = nil, hint: String? = nil) -> Diagnostic {
        Diagnostic(
            ruleID, ValidationRule.named(ruleID)?.severity ?? .error, message, at: .init(file: file, line: line), hint: hint)
    }
}

/// Walking a ``JSONNode`` tree with JSON Pointers.
enum JSONWalk {
    /// Calls `visit` for every member of every object, depth first, with the member's pointer.
    static func members(of node: JSONNode, pointer: String = "", _ visit: (JSONMember, String, JSONNode) -> Void) {
        switch node.value {
        case .object(let members):
            for member in members {
                let childPointer = pointer + "/" + JSONPointer.escape(member.key)
                visit(member, childPointer, node)
                Self.members(of: member.value, pointer: childPointer, visit)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                Self.members(of: element, pointer: pointer + "/\(index)", visit)
            }
        default:
            break
        }
    }

    /// Calls `visit` for every object in the tree with its pointer.
    static func objects(of node: JSONNode, pointer: String = "", _ visit: ([JSONMember], String) -> Void) {
        switch node.value {
        case .object(let members):
            visit(members, pointer)
            for member in members { objects(of: member.value, pointer: pointer + "/" + JSONPointer.escape(member.key), visit) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { objects(of: element, pointer: pointer + "/\(index)", visit) }
        default:
            break
        }
    }
}

/// "Did you mean …?" suggestions by edit distance.
enum NearestName {
    /// The candidate closest to `name` (case-insensitive Levenshtein distance), if close enough;
    /// ties go to the alphabetically first.
    static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
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

    static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
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
