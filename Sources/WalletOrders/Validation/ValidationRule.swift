/// A rule the validator or verifier checks: its stable identifier, severity and what it means.
public struct ValidationRule: Sendable, Hashable, Codable {
    /// The stable identifier, such as `manifest.hash-mismatch`.
    public var id: String
    /// The severity its findings have.
    public var severity: Diagnostic.Severity
    /// One line: what the rule checks.
    public var summary: String
    /// A paragraph: why it matters, where it comes from (Apple's docs, a known pitfall), how to fix it.
    public var explanation: String

    init(_ id: String, _ severity: Diagnostic.Severity, _ summary: String, _ explanation: String) {
        self.id = id
        self.severity = severity
        self.summary = summary
        self.explanation = explanation
    }
}
