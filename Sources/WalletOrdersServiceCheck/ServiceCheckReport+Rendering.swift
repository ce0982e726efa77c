import WalletOrders

extension ServiceCheckReport {
    /// How a report is written out: the formats `validate` writes, in the same shapes.
    public enum Format: String, Sendable, Hashable, CaseIterable, Codable {
        /// Compiler style: `GET /v1/…: error[rule]: message`, then what was expected and what came back.
        case text
        /// A stable JSON document: every check, its outcome and its findings.
        case json
        /// JUnit XML: one test case per check, failed for errors, skipped with the reason.
        case junit
    }

    /// The report in `format`, ending in a newline.
    ///
    /// - Parameters:
    ///   - format: Text, JSON or JUnit XML.
    ///   - colors: Whether text uses ANSI colors.
    ///   - toolVersion: The version written into JSON output.
    public func rendered(as format: Format, colors: Bool = false, toolVersion: String = "0.1.0") -> String {
        switch format {
        case .text: text(colors: colors)
        case .json: json(toolVersion: toolVersion)
        case .junit: junit()
        }
    }

    // MARK: - Text

    private func text(colors: Bool) -> String {
        func style(_ text: String, _ code: String) -> String { ansiStyled(text, code, colors: colors) }
        var out = ""
        for finding in findings {
            let color = finding.severity == .error ? "31" : "33"
            // What the service sent (header values, bodies) reaches these texts: printed with
            // control and bidi characters escaped, so it can't rewrite the terminal.
            let printable = LogText.printable
            out += "\(style(printable(finding.request.description), "1")): \(style("\(finding.severity)[\(finding.ruleID)]", color)): "
            out += "\(printable(finding.message))\n"
            out += "    expected: \(printable(finding.expected))\n"
            out += "    got:      \(printable(finding.actual))\n"
            if let hint = finding.hint { out += "    \(style("hint:", "36")) \(printable(hint))\n" }
        }
        for check in checks where check.outcome == .skipped {
            out += "\(style("skipped", "2")) [\(check.ruleID)] \(check.name): \(LogText.printable(check.skipReason ?? ""))\n"
        }
        let count = counts
        let verdict = passed ? style("OK", "32") : style("FAILED", "31")
        out += "\(serviceURL) \(order): \(verdict) (\(count.errors) error\(count.errors == 1 ? "" : "s"), "
        out += "\(count.warnings) warning\(count.warnings == 1 ? "" : "s"); \(checks.count) checks, \(count.passed) passed, "
        out += "\(count.failed) failed, \(count.skipped) skipped)\n"
        return out
    }

    private var counts: (passed: Int, failed: Int, skipped: Int, errors: Int, warnings: Int) {
        (
            checks.filter { $0.outcome == .passed }.count, checks.filter { $0.outcome == .failed }.count,
            checks.filter { $0.outcome == .skipped }.count, errors.count, warnings.count
        )
    }

    // MARK: - JSON

    private struct JSONDocument: Encodable {
        var version = 1
        var tool: Tool
        var service: String
        var orderTypeIdentifier: String
        var orderIdentifier: String
        var passed: Bool
        var summary: Summary
        var checks: [ServiceCheckJSON]

        struct Tool: Encodable {
            var name = "wallet-orders check-service"
            var version: String
        }
        struct Summary: Encodable {
            var checks: Int
            var passed: Int
            var failed: Int
            var skipped: Int
            var errors: Int
            var warnings: Int
        }
        struct ServiceCheckJSON: Encodable {
            var ruleID: String
            var name: String
            var outcome: String
            var skipReason: String?
            var findings: [ServiceFinding]
        }
    }

    private func json(toolVersion: String) -> String {
        let count = counts
        return stableJSON(
            JSONDocument(
                tool: .init(version: toolVersion), service: serviceURL, orderTypeIdentifier: order.orderTypeIdentifier,
                orderIdentifier: order.orderIdentifier, passed: passed,
                summary: .init(
                    checks: checks.count, passed: count.passed, failed: count.failed, skipped: count.skipped, errors: count.errors,
                    warnings: count.warnings),
                checks: checks.map {
                    .init(ruleID: $0.ruleID, name: $0.name, outcome: $0.outcome.rawValue, skipReason: $0.skipReason, findings: $0.findings)
                }))
    }

    // MARK: - JUnit

    private func junit() -> String {
        let testCases = checks.map { check -> JUnitDocument.TestCase in
            let lines = check.findings.map { "\($0)" + ($0.hint.map { " Hint: \($0)" } ?? "") }.joined(separator: "\n")
            let outcome: JUnitDocument.TestCase.Outcome
            switch check.outcome {
            case .failed:
                let first = check.findings.first { $0.severity == .error }.map { "\($0.ruleID): \($0.message)" } ?? ""
                outcome = .failed(message: first, type: "error", text: lines)
            case .skipped:
                outcome = .skipped(message: check.skipReason ?? "")
            case .passed:
                outcome = .passed(output: lines)
            }
            return JUnitDocument.TestCase(classname: "wallet-orders.check-service.\(check.ruleID)", name: check.name, outcome: outcome)
        }
        return JUnitDocument(suiteName: "wallet-orders check-service", testCases: testCases).xml
    }
}
