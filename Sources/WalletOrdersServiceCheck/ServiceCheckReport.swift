public import WalletOrders

/// A request the checker sent, as a finding names it: method, path and what was special about it.
///
/// Never holds the order's token or the merchant key.
public struct ServiceRequestSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `GET`, `POST` or `DELETE`.
    public var method: String
    /// The path and query, as sent (`/v1/orders/order.com.example/123`).
    public var path: String
    /// What sets the request apart (`no Authorization`, `If-Modified-Since: …`), if anything.
    public var detail: String?

    /// Creates a request summary.
    public init(method: String, path: String, detail: String? = nil) {
        self.method = method
        self.path = path
        self.detail = detail
    }

    /// `GET /v1/orders/… (no Authorization)`.
    public var description: String { "\(method) \(path)" + (detail.map { " (\($0))" } ?? "") }
}

/// One deviation from Apple's protocol: the rule, how bad, the request, what was expected and
/// what came back.
public struct ServiceFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ``ServiceCheckRule`` identifier, such as `service.media-type`.
    public var ruleID: String
    /// ``Diagnostic/Severity/error`` when Apple's documented protocol is broken,
    /// ``Diagnostic/Severity/warning`` when only what the protocol implies is.
    public var severity: Diagnostic.Severity
    /// What is wrong, in one line.
    public var message: String
    /// The request that showed it.
    public var request: ServiceRequestSummary
    /// What the protocol expects (`401`).
    public var expected: String
    /// What came back (`404, Content-Type: text/plain`), or why nothing did.
    public var actual: String
    /// How to fix it, when there is more to say than ``expected``.
    public var hint: String?

    /// Creates a finding.
    public init(
        ruleID: String, severity: Diagnostic.Severity, message: String, request: ServiceRequestSummary, expected: String,
        actual: String, hint: String? = nil
    ) {
        self.ruleID = ruleID
        self.severity = severity
        self.message = message
        self.request = request
        self.expected = expected
        self.actual = actual
        self.hint = hint
    }

    /// `GET /v1/orders/…: error[service.unauthorized]: message (expected 401, got 200)`.
    public var description: String {
        "\(request): \(severity)[\(ruleID)]: \(message) (expected \(expected), got \(actual))"
    }
}

/// One check the checker ran (or skipped): a rule applied to one request.
public struct ServiceCheck: Sendable, Hashable, Codable {
    /// How a check ended.
    public enum Outcome: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// No error (warnings allowed).
        case passed
        /// At least one error.
        case failed
        /// Not run; ``ServiceCheck/skipReason`` says why.
        case skipped

        public var description: String { rawValue }
    }

    /// The ``ServiceCheckRule`` identifier.
    public var ruleID: String
    /// What was checked, in a few words (`GET the order with a wrong token`).
    public var name: String
    /// The deviations found, empty when the check passed cleanly.
    public var findings: [ServiceFinding]
    /// Why the check was not run, when it wasn't.
    public var skipReason: String?

    /// Creates a check result.
    public init(ruleID: String, name: String, findings: [ServiceFinding] = [], skipReason: String? = nil) {
        self.ruleID = ruleID
        self.name = name
        self.findings = findings
        self.skipReason = skipReason
    }

    /// Passed, failed or skipped.
    public var outcome: Outcome {
        if skipReason != nil { return .skipped }
        return findings.contains { $0.severity == .error } ? .failed : .passed
    }
}

/// What ``ServiceChecker`` found: every check in the order it ran, with its findings.
///
/// Findings are values, not thrown errors, so one run reports every deviation at once.
public struct ServiceCheckReport: Sendable, Hashable, Codable {
    /// The service's base URL, as given (the `webServiceURL`).
    public var serviceURL: String
    /// The order the checks used.
    public var order: FullyQualifiedOrderIdentifier
    /// The checks, in the order they ran.
    public var checks: [ServiceCheck]

    /// Creates a report.
    public init(serviceURL: String, order: FullyQualifiedOrderIdentifier, checks: [ServiceCheck] = []) {
        self.serviceURL = serviceURL
        self.order = order
        self.checks = checks
    }

    /// Every finding, in the order the checks ran.
    public var findings: [ServiceFinding] { checks.flatMap(\.findings) }
    /// The findings of severity ``Diagnostic/Severity/error``.
    public var errors: [ServiceFinding] { findings.filter { $0.severity == .error } }
    /// The findings of severity ``Diagnostic/Severity/warning``.
    public var warnings: [ServiceFinding] { findings.filter { $0.severity == .warning } }
    /// Whether no check found an error (warnings and skipped checks allowed).
    public var passed: Bool { errors.isEmpty }

    /// The findings with the given rule identifier.
    public func findings(ruleID: String) -> [ServiceFinding] { findings.filter { $0.ruleID == ruleID } }
}
