import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Our schema evaluator and rules judge the negative fixtures as Python's jsonschema does:
/// the same failing keyword (as our rule) at the same JSON Pointer.
@Suite struct SchemaFixtureValidationTests {
    static let folder = Repository.tests.appendingPathComponent("WalletOrdersTests/Fixtures/invalid-orders")
    static let expectations: [String: [String: String]] = {
        let data = FileManager.default.contents(atPath: folder.appendingPathComponent("expectations.json").path) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data) as? [String: [String: String]]) ?? [:]
    }()
    static let validator: OrderValidator = try! OrderValidator()

    /// The rule our validator reports for a JSON Schema keyword.
    static func rule(forKeyword keyword: String, pointer: String) -> String {
        switch keyword {
        case "required": "schema.required"
        case "additionalProperties": "schema.unknown-key"
        case "enum": pointer.hasSuffix("/fulfillmentType") ? "schema.fulfillment" : "schema.enum"
        case "const": "schema.const"
        case "type": "schema.type"
        case "format": "schema.format"
        case "pattern": "schema.pattern"
        case "minLength", "maxLength", "minItems", "maxItems": "schema.length"
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum": "schema.range"
        case "dependentRequired": "schema.dependent-required"
        default: "schema.violation"
        }
    }

    @Test("Every negative fixture fails with the rule and pointer Python's jsonschema names", arguments: expectations.keys.sorted())
    func fixture(_ name: String) throws {
        let expectation = try #require(Self.expectations[name])
        let keyword = try #require(expectation["keyword"])
        let pointer = try #require(expectation["instancePointer"])
        let bytes = Array(try #require(FileManager.default.contents(atPath: Self.folder.appendingPathComponent(name).path)))
        let report = Self.validator.validate(OrderSource(files: ["order.json": bytes]), subject: name)
        let schemaFindings = report.diagnostics.filter { $0.ruleID.hasPrefix("schema.") }
        let expectedRule = Self.rule(forKeyword: keyword, pointer: pointer)
        // An unknown key is reported at itself; a key another one requires, at the key that requires it.
        let expectedPointer =
            switch keyword {
            case "additionalProperties": pointer + "/" + (expectation["property"] ?? "")
            case "dependentRequired": pointer + "/" + (expectation["requiredBy"] ?? "")
            default: pointer
            }
        #expect(
            schemaFindings.contains { $0.ruleID == expectedRule && $0.location.jsonPointer == expectedPointer },
            "expected \(expectedRule) at \(expectedPointer); got \(schemaFindings.map { "\($0.ruleID) \($0.location.jsonPointer ?? "")" })")
        if let property = expectation["property"], keyword != "additionalProperties" {
            #expect(schemaFindings.contains { $0.message.contains("'\(property)'") }, "\(schemaFindings.map(\.message))")
        }
        // Located in the file, with a line and column.
        let finding = try #require(schemaFindings.first { $0.ruleID == expectedRule })
        #expect(finding.location.file == "order.json")
        #expect((finding.location.line ?? 0) >= 1 && (finding.location.column ?? 0) >= 1)
    }

    @Test("Every sample's order.json is valid under our evaluator too (no schema findings)", arguments: Repository.sampleNames)
    func samplesPass(_ sample: String) throws {
        let report = Self.validator.validate(try OrderSource(directory: Repository.sample(sample)), subject: sample)
        #expect(report.diagnostics.filter { $0.ruleID.hasPrefix("schema.") || $0.ruleID.hasPrefix("json.") }.isEmpty, "\(report.diagnostics)")
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.diagnostics.map(\.description))")
    }
}
