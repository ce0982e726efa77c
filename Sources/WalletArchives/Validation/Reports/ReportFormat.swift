import Foundation

/// How ``ValidationReport``s are written out.
public enum ReportFormat: String, Sendable, CaseIterable, Codable {
    /// Compiler style: `path:line:col: error[rule]: message`, the source line with a caret, the hint.
    case text
    /// A stable JSON document (`Schemas/validation-report.schema.json`).
    case json
    /// SARIF 2.1.0, for GitHub code scanning and other static-analysis viewers.
    case sarif
    /// JUnit XML, for CI test reports: one test case per archive or folder.
    case junit
}

/// Renders reports in a ``ReportFormat``.
public struct ReportRenderer: Sendable {
    /// The tool version written into JSON and SARIF output.
    public var toolVersion: String
    /// Whether warnings count as failures (`--strict`).
    public var strict: Bool
    /// Whether to color text output with ANSI escapes.
    public var colors: Bool
    /// The least severe finding listed (`--min-severity`): `.info` lists every finding, `.error`
    /// only errors. Counts, verdicts and ``fails(_:)`` still weigh every finding.
    public var minimumSeverity: Diagnostic.Severity

    /// Creates a renderer.
    public init(
        toolVersion: String = "0.1.0", strict: Bool = false, colors: Bool = false, minimumSeverity: Diagnostic.Severity = .info
    ) {
        self.toolVersion = toolVersion
        self.strict = strict
        self.colors = colors
        self.minimumSeverity = minimumSeverity
    }

    /// The findings of `report` that are listed: those at least as severe as ``minimumSeverity``.
    public func listed(_ report: ValidationReport) -> [Diagnostic] {
        report.diagnostics.filter { $0.severity >= minimumSeverity }
    }

    /// Whether a report fails: it has errors, or warnings when ``strict``.
    public func fails(_ report: ValidationReport) -> Bool {
        !report.isValid || (strict && !report.warnings.isEmpty)
    }

    /// The reports in `format`.
    public func render(_ reports: [ValidationReport], as format: ReportFormat) -> String {
        switch format {
        case .text: text(reports)
        case .json: json(reports)
        case .sarif: sarif(reports)
        case .junit: junit(reports)
        }
    }

    /// The path a finding is reported at: `folder/file` or `archive.order/file`.
    public static func path(of diagnostic: Diagnostic, in report: ValidationReport) -> String {
        guard let file = diagnostic.location.file else { return report.subject }
        return report.subject.hasSuffix("/") ? report.subject + file : report.subject + "/" + file
    }

    // MARK: - Text

    private func style(_ text: String, _ code: String) -> String { ansiStyled(text, code, colors: colors) }

    package func text(_ reports: [ValidationReport]) -> String {
        var out = ""
        for report in reports {
            for diagnostic in listed(report) {
                var position = Self.path(of: diagnostic, in: report)
                if let line = diagnostic.location.line {
                    position += ":\(line)"
                    if let column = diagnostic.location.column { position += ":\(column)" }
                }
                let color = diagnostic.severity == .error ? "31" : diagnostic.severity == .warning ? "33" : "36"
                out += "\(style(position, "1")): \(style("\(diagnostic.severity)[\(diagnostic.ruleID)]", color)): \(diagnostic.message)"
                if let pointer = diagnostic.location.jsonPointer, diagnostic.location.line == nil, !pointer.isEmpty {
                    out += " (at \(pointer))"
                }
                out += "\n"
                if let line = diagnostic.sourceLine, let column = diagnostic.location.column {
                    // An excerpt of a long line starts with "…" and counts columns from its own start.
                    let start = diagnostic.sourceLineStartColumn ?? 1
                    let shown = start > 1 ? "…" + line : line
                    let padding = (start > 1 ? " " : "") + Self.caretPadding(line, column: column - start + 1)
                    out += "    \(shown)\n    \(padding)\(style("^", "32"))\n"
                }
                if let hint = diagnostic.hint { out += "    \(style("hint:", "36")) \(hint)\n" }
            }
            let errors = report.errors.count
            let warnings = report.warnings.count
            let verdict = fails(report) ? style("FAILED", "31") : style("OK", "32")
            out += "\(report.subject): \(verdict) (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"))\n"
        }
        if reports.count > 1 {
            let failed = reports.filter(fails).count
            out += "\(reports.count) checked, \(reports.count - failed) passed, \(failed) failed\n"
        }
        return out
    }

    /// One space per character (tabs kept) before a UTF-16 column, so the caret sits under the
    /// right character even after non-BMP characters.
    package static func caretPadding(_ line: String, column: Int) -> String {
        var units = 0
        var padding = ""
        for character in line {
            if units >= column - 1 { break }
            units += character.utf16.count
            padding += character == "\t" ? "\t" : " "
        }
        return padding
    }

    // MARK: - JSON

    package struct JSONReport: Encodable {
        package var version = 1
        package var tool: Tool
        package var valid: Bool
        package var summary: Summary
        package var reports: [Entry]
        package struct Tool: Encodable {
            package var name = "wallet-orders"
            package var version: String
        }
        package struct Summary: Encodable {
            package var checked: Int
            package var failed: Int
            package var errors: Int
            package var warnings: Int
            package var infos: Int
        }
        package struct Entry: Encodable {
            package var subject: String
            /// `order` or `pass`, when it was told.
            package var kind: ArchiveKind?
            package var valid: Bool
            package var errors: Int
            package var warnings: Int
            package var diagnostics: [Finding]
        }
        package struct Finding: Encodable {
            package var ruleID: String
            package var severity: String
            package var message: String
            package var file: String?
            package var jsonPointer: String?
            package var line: Int?
            package var column: Int?
            package var hint: String?
        }
    }

    package func json(_ reports: [ValidationReport]) -> String {
        let all = reports.flatMap(\.diagnostics)
        let document = JSONReport(
            tool: .init(version: toolVersion), valid: !reports.contains(where: fails),
            summary: .init(
                checked: reports.count, failed: reports.filter(fails).count, errors: all.filter { $0.severity == .error }.count,
                warnings: all.filter { $0.severity == .warning }.count, infos: all.filter { $0.severity == .info }.count),
            reports: reports.map { report in
                .init(
                    subject: report.subject, kind: report.kind, valid: !fails(report), errors: report.errors.count,
                    warnings: report.warnings.count,
                    diagnostics: listed(report).map {
                        .init(
                            ruleID: $0.ruleID, severity: $0.severity.rawValue, message: $0.message, file: $0.location.file,
                            jsonPointer: $0.location.jsonPointer, line: $0.location.line, column: $0.location.column, hint: $0.hint)
                    })
            })
        return Self.encode(document)
    }

    package static func encode(_ value: some Encodable) -> String { stableJSON(value) }

    // MARK: - SARIF 2.1.0

    package func sarif(_ reports: [ValidationReport]) -> String {
        let used = Set(reports.flatMap { $0.diagnostics.map(\.ruleID) })
        let rules = ValidationRule.all.filter { used.contains($0.id) }
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($0.element.id, $0.offset) })
        func level(_ severity: Diagnostic.Severity) -> String {
            switch severity {
            case .error: "error"
            case .warning: "warning"
            case .info: "note"
            }
        }
        var results: [[String: Any]] = []
        for report in reports {
            for diagnostic in listed(report) {
                var region: [String: Any] = [:]
                if let line = diagnostic.location.line { region["startLine"] = line }
                if let column = diagnostic.location.column { region["startColumn"] = column }
                var physical: [String: Any] = ["artifactLocation": ["uri": Self.path(of: diagnostic, in: report)]]
                if !region.isEmpty { physical["region"] = region }
                var location: [String: Any] = ["physicalLocation": physical]
                if let pointer = diagnostic.location.jsonPointer {
                    location["logicalLocations"] = [["fullyQualifiedName": pointer.isEmpty ? "/" : pointer, "kind": "member"]]
                }
                var message = diagnostic.message
                if let hint = diagnostic.hint { message += " Hint: \(hint)" }
                var result: [String: Any] = [
                    "ruleId": diagnostic.ruleID, "level": level(diagnostic.severity), "message": ["text": message],
                    "locations": [location],
                ]
                if let index = ruleIndex[diagnostic.ruleID] { result["ruleIndex"] = index }
                results.append(result)
            }
        }
        let log: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                [
                    "tool": [
                        "driver": [
                            "name": "wallet-orders", "version": toolVersion, "semanticVersion": toolVersion,
                            "informationUri": "https://developer.apple.com/documentation/walletorders",
                            "rules": rules.map { rule in
                                [
                                    "id": rule.id, "shortDescription": ["text": rule.summary], "fullDescription": ["text": rule.explanation],
                                    "defaultConfiguration": ["level": level(rule.severity)],
                                ] as [String: Any]
                            },
                        ] as [String: Any]
                    ],
                    "columnKind": "utf16CodeUnits",
                    "results": results,
                ] as [String: Any]
            ],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: - JUnit

    package func junit(_ reports: [ValidationReport]) -> String {
        let testCases = reports.map { report -> JUnitDocument.TestCase in
            let lines = listed(report).map { diagnostic -> String in
                var position = Self.path(of: diagnostic, in: report)
                if let line = diagnostic.location.line { position += ":\(line)" + (diagnostic.location.column.map { ":\($0)" } ?? "") }
                return "\(position): \(diagnostic.severity)[\(diagnostic.ruleID)]: \(diagnostic.message)"
            }
            let outcome: JUnitDocument.TestCase.Outcome
            if fails(report) {
                let first = (report.errors.first ?? report.warnings.first).map { "\($0.ruleID): \($0.message)" } ?? ""
                outcome = .failed(message: first, type: report.errors.isEmpty ? "warning" : "error", text: lines.joined(separator: "\n"))
            } else {
                outcome = .passed(output: lines.joined(separator: "\n"))
            }
            return JUnitDocument.TestCase(classname: "wallet-orders.validate", name: report.subject, outcome: outcome)
        }
        return JUnitDocument(suiteName: "wallet-orders validate", testCases: testCases).xml
    }
}
