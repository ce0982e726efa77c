import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Runs the official JSON-Schema-Test-Suite (draft 2020-12) against ``JSONSchema``.
///
/// CI checks the suite out into `shared/` beside the clone. Every case of every top-level file
/// runs (``JSONSchema`` implements every 2020-12 keyword), plus the optional files for the
/// asserted formats and for exact numbers and code-point lengths. A case is identified as
/// `file / group description / case description`; the few that can't pass here are listed in
/// ``exclusions`` with the reason, and the test fails both when a listed case passes (so the list
/// stays honest) and when any other case fails.
@Suite struct JSONSchemaConformanceTests {
    static let suiteFolder = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/conformance/json-schema-test-suite/tests/draft2020-12", isDirectory: true)

    /// The optional files that test what `JSONSchema` promises beyond the required core.
    static let optionalFiles = [
        "optional/format/date-time.json",
        "optional/format/uri.json",
        "optional/format/duration.json",
    ]

    /// Cases that are expected to fail, with why.
    static let exclusions: [String: String] = [:]

    /// One case's outcome.
    struct Outcome {
        var id: String
        var passed: Bool
        var detail: String
    }

    /// The files to run: every top-level file, then ``optionalFiles``.
    static func files() throws -> [String] {
        let topLevel = try FileManager.default.contentsOfDirectory(atPath: suiteFolder.path)
            .filter { $0.hasSuffix(".json") }
            .sorted()
        return topLevel + optionalFiles
    }

    /// Parses one suite file and runs every case in it.
    static func run(_ file: String) throws -> [Outcome] {
        let bytes = try [UInt8](Data(contentsOf: suiteFolder.appendingPathComponent(file)))
        let parsed = JSONParser.parse(bytes)
        let root = try #require(parsed.root, "\(file) is not JSON: \(parsed.problems)")
        let groups = try #require(root.elements, "\(file) is not an array of groups")
        var outcomes: [Outcome] = []
        for group in groups {
            let groupDescription = try #require(group["description"]?.stringValue)
            let schemaNode = try #require(group["schema"])
            let cases = try #require(group["tests"]?.elements)
            let compiled = Result { try JSONSchema(document: schemaNode) }
            for testCase in cases {
                let caseDescription = try #require(testCase["description"]?.stringValue)
                let data = try #require(testCase["data"])
                let expectedValid = try #require(testCase["valid"]).value == .bool(true)
                let id = "\(file) / \(groupDescription) / \(caseDescription)"
                switch compiled {
                case .failure(let error):
                    outcomes.append(Outcome(id: id, passed: false, detail: "schema does not compile: \(error)"))
                case .success(let schema):
                    let violations = schema.validate(data)
                    let quick = schema.isValid(data)
                    let passed = violations.isEmpty == expectedValid && quick == expectedValid
                    var detail = "expected \(expectedValid ? "valid" : "invalid"); validate() found \(violations.count) violation(s)"
                    detail += ", isValid() said \(quick)"
                    if let first = violations.first { detail += "; first: \(first)" }
                    outcomes.append(Outcome(id: id, passed: passed, detail: detail))
                }
            }
        }
        return outcomes
    }

    @Test("the draft 2020-12 suite is where CI puts it")
    func suiteIsPresent() {
        #expect(
            FileManager.default.fileExists(atPath: Self.suiteFolder.appendingPathComponent("type.json").path),
            "JSON-Schema-Test-Suite not found at \(Self.suiteFolder.path) (CI checks it out into shared/ beside the clone)")
    }

    @Test("every case of every supported file passes, except the listed exclusions, which fail")
    func everyCase() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.suiteFolder.path),
            "JSON-Schema-Test-Suite not found at \(Self.suiteFolder.path)")
        var total = 0
        var passed = 0
        var excluded = 0
        var seen: Set<String> = []
        for file in try Self.files() {
            let outcomes = try Self.run(file)
            var filePassed = 0
            var fileExcluded = 0
            for outcome in outcomes {
                seen.insert(outcome.id)
                if let reason = Self.exclusions[outcome.id] {
                    fileExcluded += 1
                    #expect(!outcome.passed, "excluded case now passes; remove it from the list: \(outcome.id) (\(reason))")
                } else if outcome.passed {
                    filePassed += 1
                } else {
                    Issue.record("failed: \(outcome.id): \(outcome.detail)")
                }
            }
            total += outcomes.count
            passed += filePassed
            excluded += fileExcluded
            let padded = file.padding(toLength: 44, withPad: " ", startingAt: 0)
            print("\(padded) \(filePassed)/\(outcomes.count) passed\(fileExcluded > 0 ? ", \(fileExcluded) excluded" : "")")
        }
        print("JSON-Schema-Test-Suite draft2020-12: \(passed)/\(total) passed, \(excluded) excluded (listed)")
        let stale = Set(Self.exclusions.keys).subtracting(seen)
        #expect(stale.isEmpty, "exclusions that name no case: \(stale.sorted())")
        #expect(passed + excluded == total)
    }
}
