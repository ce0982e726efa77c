import Foundation
import Testing
import WalletOrders
import WalletOrdersJSON
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

    /// The optional files that test what `JSONSchema` promises beyond the required core: the
    /// asserted formats, exact numbers, code-point regular expressions, anchors, `$id`s and unknown
    /// keywords. Not run: the other formats (annotations here), `cross-draft.json` and
    /// `format-assertion.json` (remote schemas), `dependencies-compatibility.json` (draft-07's
    /// `dependencies`, which compilation rejects).
    static let optionalFiles = [
        "optional/format/date-time.json",
        "optional/format/uri.json",
        "optional/format/duration.json",
        "optional/anchor.json",
        "optional/bignum.json",
        "optional/dynamicRef.json",
        "optional/ecmascript-regex.json",
        "optional/float-overflow.json",
        "optional/id.json",
        "optional/no-schema.json",
        "optional/non-bmp-regex.json",
        "optional/refOfUnknownKeyword.json",
        "optional/unknownKeyword.json",
    ]

    private static let remote =
        "needs a schema from the suite's remotes/ folder (http://localhost:1234/…), which our copy does not have"
    private static let metaSchema =
        "$refs the draft 2020-12 meta-schema (https://json-schema.org/draft/2020-12/schema), which is not bundled"
    private static let ignoredMetaSchema =
        "its $schema is a remote meta-schema without the validation vocabulary; JSONSchema ignores $schema's value and reads every schema as 2020-12"
    private static let formatAssertion =
        "by design `format` asserts date-time, uri and duration; the suite's default treats every format as an annotation"

    /// Cases that are expected to fail, with why: `file / group description / case description`.
    static let exclusions: [String: String] = [
        "defs.json / validate definition against metaschema / valid definition schema": metaSchema,
        "defs.json / validate definition against metaschema / invalid definition schema": metaSchema,
        "dynamicRef.json / strict-tree schema, guards against misspelled properties / instance with misspelled field": remote,
        "dynamicRef.json / strict-tree schema, guards against misspelled properties / instance with correct field": remote,
        "dynamicRef.json / tests for implementation dynamic anchor and reference link / incorrect parent schema": remote,
        "dynamicRef.json / tests for implementation dynamic anchor and reference link / incorrect extended schema": remote,
        "dynamicRef.json / tests for implementation dynamic anchor and reference link / correct extended schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $defs first / incorrect parent schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $defs first / incorrect extended schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $defs first / correct extended schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $ref first / incorrect parent schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $ref first / incorrect extended schema": remote,
        "dynamicRef.json / $ref and $dynamicAnchor are independent of order - $ref first / correct extended schema": remote,
        "dynamicRef.json / $ref to $dynamicRef finds detached $dynamicAnchor / number is valid": remote,
        "dynamicRef.json / $ref to $dynamicRef finds detached $dynamicAnchor / non-number is invalid": remote,
        "format.json / date-time format / invalid date-time string is only an annotation by default": formatAssertion,
        "format.json / uri format / invalid uri string is only an annotation by default": formatAssertion,
        "format.json / duration format / invalid duration string is only an annotation by default": formatAssertion,
        "ref.json / remote ref, containing refs itself / remote ref valid": metaSchema,
        "ref.json / remote ref, containing refs itself / remote ref invalid": metaSchema,
        "refRemote.json / remote ref / remote ref valid": remote,
        "refRemote.json / remote ref / remote ref invalid": remote,
        "refRemote.json / fragment within remote ref / remote fragment valid": remote,
        "refRemote.json / fragment within remote ref / remote fragment invalid": remote,
        "refRemote.json / anchor within remote ref / remote anchor valid": remote,
        "refRemote.json / anchor within remote ref / remote anchor invalid": remote,
        "refRemote.json / ref within remote ref / ref within ref valid": remote,
        "refRemote.json / ref within remote ref / ref within ref invalid": remote,
        "refRemote.json / base URI change / base URI change ref valid": remote,
        "refRemote.json / base URI change / base URI change ref invalid": remote,
        "refRemote.json / base URI change - change folder / number is valid": remote,
        "refRemote.json / base URI change - change folder / string is invalid": remote,
        "refRemote.json / base URI change - change folder in subschema / number is valid": remote,
        "refRemote.json / base URI change - change folder in subschema / string is invalid": remote,
        "refRemote.json / root ref in remote ref / string is valid": remote,
        "refRemote.json / root ref in remote ref / null is valid": remote,
        "refRemote.json / root ref in remote ref / object is invalid": remote,
        "refRemote.json / remote ref with ref to defs / invalid": remote,
        "refRemote.json / remote ref with ref to defs / valid": remote,
        "refRemote.json / Location-independent identifier in remote ref / integer is valid": remote,
        "refRemote.json / Location-independent identifier in remote ref / string is invalid": remote,
        "refRemote.json / retrieved nested refs resolve relative to their URI not $id / number is invalid": remote,
        "refRemote.json / retrieved nested refs resolve relative to their URI not $id / string is valid": remote,
        "refRemote.json / remote HTTP ref with different $id / number is invalid": remote,
        "refRemote.json / remote HTTP ref with different $id / string is valid": remote,
        "refRemote.json / remote HTTP ref with different URN $id / number is invalid": remote,
        "refRemote.json / remote HTTP ref with different URN $id / string is valid": remote,
        "refRemote.json / remote HTTP ref with nested absolute ref / number is invalid": remote,
        "refRemote.json / remote HTTP ref with nested absolute ref / string is valid": remote,
        "refRemote.json / $ref to $ref finds detached $anchor / number is valid": remote,
        "refRemote.json / $ref to $ref finds detached $anchor / non-number is invalid": remote,
        "vocabulary.json / schema that uses custom metaschema with with no validation vocabulary / no validation: invalid number, but it still validates":
            ignoredMetaSchema,
    ]

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
