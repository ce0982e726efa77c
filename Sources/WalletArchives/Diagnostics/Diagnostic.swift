/// One finding about an order archive or source: what rule, how bad, where, and how to fix it.
///
/// Findings are values, not thrown errors, so a report lists every problem at once.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable, CaseIterable, CustomStringConvertible {
        /// Wallet will refuse the order or misbehave.
        case error
        /// Likely wrong, or against Apple's guidelines.
        case warning
        /// Worth knowing; nothing to fix.
        case info

        private var rank: Int {
            switch self {
            case .error: 2
            case .warning: 1
            case .info: 0
            }
        }
        /// Orders by seriousness: `info < warning < error`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
        public var description: String { rawValue }
    }

    /// Where a finding points.
    public struct Location: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The file inside the archive or source folder (`order.json`, `fr.lproj/order.strings`),
        /// or `nil` for the archive as a whole.
        public var file: String?
        /// An RFC 6901 JSON Pointer inside ``file`` (`/payment/total/currency`).
        public var jsonPointer: String?
        /// The 1-based line in ``file``, when known.
        public var line: Int?
        /// The 1-based column in ``file``, when known.
        public var column: Int?

        /// Creates a location.
        public init(file: String? = nil, jsonPointer: String? = nil, line: Int? = nil, column: Int? = nil) {
            self.file = file
            self.jsonPointer = jsonPointer
            self.line = line
            self.column = column
        }

        /// The whole archive.
        public static let archive = Location()

        public var description: String {
            var text = file ?? "(archive)"
            if let line {
                text += ":\(line)"
                if let column { text += ":\(column)" }
            }
            if let jsonPointer { text += " \(jsonPointer.isEmpty ? "/" : jsonPointer)" }
            return text
        }
    }

    /// The stable rule identifier, such as `manifest.hash-mismatch`.
    public var ruleID: String
    /// How serious the finding is.
    public var severity: Severity
    /// What is wrong, in one line.
    public var message: String
    /// Where it is.
    public var location: Location
    /// How to fix it.
    public var hint: String?
    /// The text of the source line the finding points at, for showing it with a caret: the
    /// whole line, or for a long line (a minified `order.json` is one line) an excerpt of at most
    /// ``Diagnostic/sourceExcerptLimit`` bytes around the finding, so a report never repeats a
    /// whole file.
    public var sourceLine: String?
    /// The column (1-based, UTF-16 code units) of ``sourceLine``'s first character: 1 unless
    /// the line was cut to an excerpt.
    public var sourceLineStartColumn: Int?
    /// The most bytes of a source line a finding keeps.
    public static let sourceExcerptLimit = 160

    /// Creates a finding of `rule`, with the rule's severity.
    public init(_ rule: ValidationRule, _ message: String, at location: Location = .archive, hint: String? = nil) {
        self.init(rule.id, rule.severity, message, at: location, hint: hint)
    }

    /// Creates a finding of a rule of your own (`ruleID` need not be in ``ValidationRule/all``).
    public init(_ ruleID: String, _ severity: Severity, _ message: String, at location: Location = .archive, hint: String? = nil) {
        self.ruleID = ruleID
        self.severity = severity
        self.message = BoundedText.excerpt(message, limit: BoundedText.findingLimit)
        self.location = location
        self.hint = hint.map { BoundedText.excerpt($0, limit: BoundedText.findingLimit) }
    }

    /// `file: severity[rule]: message`.
    public var description: String {
        "\(location): \(severity)[\(ruleID)]: \(message)"
    }
}
