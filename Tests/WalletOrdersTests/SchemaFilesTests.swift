import Foundation
import Testing
import WalletOrdersTestSupport

/// The JSON Schemas in `Schemas/` checked by a validator we did not write: Python's `jsonschema`
/// (draft 2020-12). The schemas are valid schemas, every sample is valid, every negative fixture is
/// invalid for exactly the reason its expectation names, and the copies compiled into the library match.
///
/// Python's format checker only checks formats whose optional packages are installed. These tests
/// need `date-time` (package `rfc3339-validator`), which ``pythonChecksDateTimeFormat()`` requires.
/// `uri` (`rfc3987` / `rfc3986-validator`) is used when present but not needed: no expectation
/// depends on it (`HTTPSURL` carries a pattern). `Duration`'s format, `iso8601-duration`, is ours,
/// so Python checks its pattern only.
@Suite struct SchemaFilesTests {
    /// `Schemas/`.
    static let schemasFolder = Repository.root.appendingPathComponent("Schemas", isDirectory: true)

    /// The schemas (and certificates) compiled into the library as Swift string literals.
    static let embeddedFile = Repository.root.appendingPathComponent(
        "Sources/WalletArchives/Resources/EmbeddedResources+Generated.swift")

    /// `Tests/WalletOrdersTests/Fixtures/invalid-orders/`.
    static let fixturesFolder = Repository.tests.appendingPathComponent(
        "WalletOrdersTests/Fixtures/invalid-orders", isDirectory: true)

    /// The schema files that must be there (others, such as the validation report's, are checked too).
    static let requiredSchemaNames = [
        "log-entries.schema.json", "manifest.schema.json", "order-identifiers.schema.json",
        "order.schema.json", "pass.schema.json", "push-token.schema.json",
    ]

    /// The `.json` file names in `folder`, sorted (empty if the folder is missing).
    static func jsonFiles(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    /// The schema file names in `Schemas/`: every `.schema.json` file there (the OpenAPI document
    /// beside them is checked by `SchemathesisTests`).
    static let schemaNames: [String] = jsonFiles(in: schemasFolder).filter { $0.hasSuffix(".schema.json") }

    /// The negative fixtures: every `.json` file of the fixtures folder except `expectations.json`.
    static let fixtureNames: [String] = jsonFiles(in: fixturesFolder).filter { $0 != "expectations.json" }

    /// `Schemas/order.schema.json`.
    static var orderSchema: URL { schemasFolder.appendingPathComponent("order.schema.json") }

    /// What must fail, as Python's `jsonschema` reports it through `best_match`: the keyword
    /// (`error.validator`), the instance location (`error.absolute_path` as a JSON Pointer) and, for
    /// `required`, `additionalProperties` and `dependentRequired`, the key concerned.
    struct Failure: Codable, Equatable, CustomStringConvertible {
        var keyword: String
        var instancePointer: String
        var property: String?

        var description: String {
            "\(keyword) at \"\(instancePointer)\"" + (property.map { " (\($0))" } ?? "")
        }
    }

    /// The Python helper for every check (`Support/json_schema_check.py`); its first argument
    /// picks the mode: `check-schema SCHEMA`, `formats`, `validate SCHEMA INSTANCE` (every error),
    /// `best-match SCHEMA INSTANCE` (a ``Failure`` as JSON, or `null` if valid), `real-passes`.
    static func runPython(_ arguments: [String]) async throws -> ProgramResult {
        try await ExternalProgram.run(tool: "python3", [Repository.support.appendingPathComponent("json_schema_check.py").path] + arguments)
    }

    // MARK: - The schemas themselves

    @Test("Schemas/ holds the order, pass, manifest and web-service schemas")
    func schemaFilesExist() {
        let missing = Set(Self.requiredSchemaNames).subtracting(Self.schemaNames).sorted()
        #expect(missing.isEmpty, "missing from Schemas/: \(missing)")
        let others = Self.jsonFiles(in: Self.schemasFolder).filter { !$0.hasSuffix(".schema.json") }
        #expect(others == ["order-web-service.openapi.json"], "Schemas/ holds JSON Schemas and the OpenAPI document only")
    }

    @Test(
        "Every schema is valid against the draft 2020-12 metaschema (Python jsonschema check_schema)",
        arguments: SchemaFilesTests.schemaNames)
    func schemaIsValid(name: String) async throws {
        let result = try await Self.runPython(["check-schema", Self.schemasFolder.appendingPathComponent(name).path])
        #expect(result.status == 0, "\(result)")
    }

    @Test(
        "Every schema is draft 2020-12 with a urn:wallet-orders:schema: $id, a title and a description",
        arguments: SchemaFilesTests.schemaNames)
    func schemaHeader(name: String) throws {
        let data = try Data(contentsOf: Self.schemasFolder.appendingPathComponent(name))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let id = try #require(object["$id"] as? String)
        #expect(id.hasPrefix("urn:wallet-orders:schema:"))
        #expect((object["title"] as? String)?.isEmpty == false)
        #expect((object["description"] as? String)?.isEmpty == false)
    }

    @Test("Python's format checker checks date-time (rfc3339-validator is installed)")
    func pythonChecksDateTimeFormat() async throws {
        let result = try await Self.runPython(["formats"])
        try #require(result.status == 0, "\(result)")
        let formats = try JSONDecoder().decode([String].self, from: result.standardOutput)
        // Without rfc3339-validator, "2024-01-01T00:00:00" would pass and the date fixtures would
        // be valid. `uri` and `duration` may be missing: patterns cover what the fixtures need.
        #expect(formats.contains("date-time"), "install rfc3339-validator; checked formats: \(formats)")
    }

    // MARK: - Samples and negative fixtures

    @Test(
        "Every sample's order.json is valid under order.schema.json (Python jsonschema, format checker on)",
        arguments: Repository.sampleNames)
    func sampleIsValid(sample: String) async throws {
        let order = Repository.sample(sample).appendingPathComponent("order.json")
        let result = try await Self.runPython(["validate", Self.orderSchema.path, order.path])
        #expect(result.status == 0, "\(sample): \(result.output)\(result.errorOutput)")
    }

    /// `expectations.json`: fixture file name → the failure Python must report.
    static func expectations() throws -> [String: Failure] {
        let data = try Data(contentsOf: fixturesFolder.appendingPathComponent("expectations.json"))
        return try JSONDecoder().decode([String: Failure].self, from: data)
    }

    @Test("Every fixture has an expectation and every expectation has a fixture")
    func fixturesMatchExpectations() throws {
        let expected = try Self.expectations()
        #expect(Self.fixtureNames.count >= 35, "fixtures: \(Self.fixtureNames)")
        let withoutExpectation = Set(Self.fixtureNames).subtracting(expected.keys).sorted()
        let withoutFixture = Set(expected.keys).subtracting(Self.fixtureNames).sorted()
        #expect(withoutExpectation.isEmpty, "fixtures without an expectation: \(withoutExpectation)")
        #expect(withoutFixture.isEmpty, "expectations without a fixture: \(withoutFixture)")
    }

    @Test(
        "Every negative fixture is invalid, and best_match names the expected keyword and location",
        arguments: SchemaFilesTests.fixtureNames)
    func fixtureIsInvalid(name: String) async throws {
        let expected = try #require(try Self.expectations()[name], "no expectation for \(name)")
        let fixture = Self.fixturesFolder.appendingPathComponent(name)
        let result = try await Self.runPython(["best-match", Self.orderSchema.path, fixture.path])
        try #require(result.status == 0, "\(result)")
        let reported = try JSONDecoder().decode(Failure?.self, from: result.standardOutput)
        let failure = try #require(reported, "\(name) is valid, but must fail with \(expected)")
        #expect(failure == expected, "\(name)")
    }

    @Test("Python's jsonschema judges window durations as our validator does (the Duration pattern is ISO 8601-1)")
    func durationsAgree() async throws {
        let data = try Data(contentsOf: Self.orderSchema)
        let order = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let duration = try #require((order["$defs"] as? [String: Any])?["Duration"])
        let schema: [String: Any] = [
            "$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/Duration", "$defs": ["Duration": duration],
        ]
        let folder = try TemporaryFolder("durations")
        defer { folder.remove() }
        let schemaFile = try folder.write(try JSONSerialization.data(withJSONObject: schema), to: "duration.schema.json")
        let cases = ValidationRuleTests.validDurations.map { ($0, true) } + ValidationRuleTests.invalidDurations.map { ($0, false) }
        for (index, (value, valid)) in cases.enumerated() {
            let instance = try folder.write(try JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed), to: "\(index).json")
            let result = try await Self.runPython(["validate", schemaFile.path, instance.path])
            #expect(result.status == (valid ? 0 : 1), "'\(value)': \(result.output)\(result.errorOutput)")
        }
    }

    // MARK: - Bundled copies

    @Test("The schemas and certificates compiled into the library are current (run `make resources`)")
    func embeddedCopiesAreCurrent() async throws {
        let result = try await ExternalProgram.run(
            tool: "sh", ["Sources/WalletArchives/Resources/generate-embedded-resources.sh"], in: Repository.root)
        try #require(result.status == 0, "\(result)")
        let committed = try Data(contentsOf: Self.embeddedFile)
        #expect(result.standardOutput == committed, "EmbeddedResources+Generated.swift is stale; run `make resources`")
        // Every schema, pass.json's among them (the libraries of both kinds share the core that holds them).
        for name in Self.schemaNames {
            #expect(result.output.contains("\"Schemas/\(name)\": #\"\"\""), "\(name) is not embedded")
        }
    }
}
