/// Every finding about one archive or source folder.
public struct ValidationReport: Sendable, Hashable, Codable {
    /// What was checked: a file path, or a name the caller chose.
    public var subject: String
    /// The findings, in the order the checks ran.
    public var diagnostics: [Diagnostic]
    /// What was found: an order or a pass; `nil` when the subject couldn't be told (a path that
    /// doesn't exist, a file that isn't a zip).
    public var kind: ArchiveKind?

    /// The report for a file that could not be read at all: one `file.too-large` finding when
    /// it was refused for its size (``WalletOrdersError/Code/fileTooLarge``), `file.unreadable`
    /// otherwise.
    public static func unreadable(_ subject: String, _ error: any Error) -> ValidationReport {
        let failure = WalletOrdersError.wrapping(error)
        return ValidationReport(
            subject: subject,
            diagnostics: [
                Diagnostic(
                    failure.code == .fileTooLarge ? ValidationRule.fileTooLarge : .fileUnreadable, failure.message,
                    hint: failure.hint ?? "Check the path and permissions.")
            ])
    }

    /// Creates a report.
    public init(subject: String, diagnostics: [Diagnostic] = [], kind: ArchiveKind? = nil) {
        self.subject = subject
        self.diagnostics = diagnostics
        self.kind = kind
    }

    /// The findings of severity ``Diagnostic/Severity/error``.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    /// The findings of severity ``Diagnostic/Severity/warning``.
    public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    /// Whether the report has no errors (warnings and infos allowed).
    public var isValid: Bool { !diagnostics.contains { $0.severity == .error } }

    /// Whether any finding has the given rule identifier.
    public func contains(ruleID: String) -> Bool { diagnostics.contains { $0.ruleID == ruleID } }

    /// The findings with the given rule identifier.
    public func diagnostics(ruleID: String) -> [Diagnostic] { diagnostics.filter { $0.ruleID == ruleID } }

    package mutating func add(_ rule: ValidationRule, _ message: String, at location: Diagnostic.Location = .archive, hint: String? = nil) {
        diagnostics.append(Diagnostic(rule, message, at: location, hint: hint))
    }
}
