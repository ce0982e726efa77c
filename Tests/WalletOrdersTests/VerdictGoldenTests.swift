import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Every report the validator gives on the repository's orders, in one golden file: each sample
/// source, each negative fixture (`Fixtures/invalid-orders`) and each broken sample of
/// ``ValidationRuleTests``, with every finding's rule, severity, place, message and hint.
///
/// A change to the validator that changes any verdict or text shows up here as a diff; an
/// intended one is committed with `WALLET_ORDERS_UPDATE_GOLDEN=1` (and says why in its message).
@Suite struct VerdictGoldenTests {
    static let validator: OrderValidator = try! OrderValidator(verifier: TestPKI.verifier)

    /// The subjects, each with the files it validates.
    static func subjects() throws -> [(name: String, files: [String: [UInt8]])] {
        var subjects: [(String, [String: [UInt8]])] = []
        for sample in Repository.sampleNames {
            subjects.append(("Samples/\(sample)", try OrderSource(directory: Repository.sample(sample)).files))
        }
        let fixtures = Repository.tests.appendingPathComponent("WalletOrdersTests/Fixtures/invalid-orders")
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() where name != "expectations.json" {
            let bytes = Array(try #require(FileManager.default.contents(atPath: fixtures.appendingPathComponent(name).path)))
            subjects.append(("invalid-orders/\(name)", ["order.json": bytes]))
        }
        for testCase in ValidationRuleTests.cases {
            var files = ValidationRuleTests.Files(all: try SampleBuilds.source(testCase.sample).files)
            try testCase.change(&files)
            subjects.append(("ValidationRuleTests/\(testCase.name)", files.all))
        }
        return subjects
    }

    /// One line per finding, in the report's order.
    static func render(_ report: ValidationReport) -> String {
        report.diagnostics.map { finding in
            let location = finding.location
            let place = [
                location.file ?? "", location.jsonPointer.map { "#" + $0 } ?? "", location.line.map { ":\($0):\(location.column ?? 0)" } ?? "",
            ].joined()
            return "  \(finding.severity)[\(finding.ruleID)] \(place): \(finding.message)" + (finding.hint.map { "\n    hint: \($0)" } ?? "")
        }.joined(separator: "\n")
    }

    /// The time the reports are made at, fixed so that findings naming it stay the same.
    static let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21T14:13:20Z

    @Test("Every report on the samples and fixtures is the committed one")
    func verdicts() throws {
        var text = ""
        for subject in try Self.subjects() {
            let report = Self.validator.validate(OrderSource(files: subject.files), subject: subject.name, now: Self.now)
            text += "\(subject.name): \(report.errors.count) errors, \(report.warnings.count) warnings\n"
            let findings = Self.render(report)
            if !findings.isEmpty { text += findings + "\n" }
        }
        let url = Repository.tests.appendingPathComponent("WalletOrdersTests/Golden/verdicts.txt")
        if ProcessInfo.processInfo.environment["WALLET_ORDERS_UPDATE_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: url)
        }
        let golden = try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path); run with WALLET_ORDERS_UPDATE_GOLDEN=1")
        // The library speaks for every caller, so it names no command-line flag (the CLI adds those).
        #expect(text.range(of: #" --[a-z]"#, options: .regularExpression) == nil, "a finding names a flag")
        let committed = String(decoding: golden, as: UTF8.self)
        let first = zip(committed.split(separator: "\n"), text.split(separator: "\n")).first { $0.0 != $0.1 }
        #expect(text == committed, "first difference: \(first.map { "committed \($0.0) / now \($0.1)" } ?? "in length")")
    }
}
