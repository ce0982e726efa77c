import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersJSON
import WalletOrdersTestSupport

/// `Schemas/pass.schema.json` against ground truth: the real passes of
/// `../shared/reference/real-passes/` (airlines, rail, cinemas, loyalty cards, Apple's own samples),
/// each with the verdict Wallet is expected to give, and against an implementation we did not write
/// (Python's `jsonschema`, `Support/json_schema_check.py`). The schema must not refuse what Wallet
/// shows: a pass Wallet accepts breaks it only by keys Apple doesn't document, which the device
/// ignores (the schema forbids them so that editors flag typos).
@Suite struct PassSchemaTests {
    static let schemaFile = Repository.root.appendingPathComponent("Schemas/pass.schema.json")
    static let realPasses = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/reference/real-passes", isDirectory: true)

    /// One real `.pkpass` whose `pass.json` could be read, with what the index says of it.
    struct RealPass: Sendable {
        var file: String
        /// `accept`, `refuse` or `uncertain`.
        var verdict: String
        var reasons: [String]
        var passJSON: [UInt8]
    }

    static func schema() throws -> JSONSchema {
        let parsed = JSONParser.parse(Array(try Data(contentsOf: schemaFile)))
        return try JSONSchema(document: try #require(parsed.root, "\(parsed.problems)"))
    }

    /// The `.pkpass` files of the index whose zip opens and holds a `pass.json` (the others are
    /// refused for that: not a zip, or no `pass.json`).
    static func passes() throws -> [RealPass] {
        var isDirectory: ObjCBool = false
        try #require(
            FileManager.default.fileExists(atPath: realPasses.path, isDirectory: &isDirectory) && isDirectory.boolValue,
            "the real passes are missing: expected them at \(realPasses.path) (shared/reference/real-passes beside the package)")
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: realPasses.appendingPathComponent("index.json"))) as? [String: Any])
        let entries = try #require(index["passes"] as? [[String: Any]])
        return try entries.compactMap { entry -> RealPass? in
            guard entry["kind"] as? String == "pkpass", let file = entry["file"] as? String else { return nil }
            let verdict = try #require(entry["expected_wallet_verdict"] as? [String: Any])
            let bytes = Array(try Data(contentsOf: realPasses.appendingPathComponent(file)))
            guard let zip = try? ZipReader(bytes: bytes), let entry = zip.entries.first(where: { $0.name == "pass.json" }),
                let passJSON = try? zip.read(entry, limit: 1 << 20)
            else { return nil }
            return RealPass(
                file: file, verdict: try #require(verdict["verdict"] as? String), reasons: verdict["reasons"] as? [String] ?? [],
                passJSON: passJSON)
        }
    }

    /// Our engine's violations of `passJSON`, as `keyword|pointer|key` (as the Python helper's `real-passes`),
    /// or `nil` when it isn't JSON (trailing commas allowed, as Wallet's reader allows them).
    static func violations(_ passJSON: [UInt8], _ schema: JSONSchema) -> [String]? {
        let parsed = JSONParser.parse(passJSON, allowingTrailingCommas: true)
        guard let root = parsed.root, !parsed.problems.contains(where: { $0.kind != .trailingComma }) else { return nil }
        return Set(schema.validate(root).map { "\($0.keyword)|\($0.instancePointer)|\($0.property ?? "")" }).sorted()
    }

    @Test("Every real pass Wallet accepts, or may accept, meets the schema but for keys Apple doesn't document")
    func acceptedPassesMeetTheSchema() throws {
        let schema = try Self.schema()
        let accepted = try Self.passes().filter { $0.verdict != "refuse" }
        #expect(accepted.count >= 25, "\(accepted.count) accepted passes read")
        for pass in accepted {
            let found = try #require(Self.violations(pass.passJSON, schema), "\(pass.file): pass.json isn't JSON")
            let refusing = found.filter { !$0.hasPrefix("additionalProperties|") }
            #expect(refusing.isEmpty, "\(pass.file), which Wallet shows, breaks the schema: \(refusing)")
        }
    }

    @Test("A real pass Wallet refuses for missing keys breaks the schema's required keys, naming each")
    func missingKeysAreRequired() throws {
        let schema = try Self.schema()
        let prefix = "pass.json lacks required keys: "
        let lacking = try Self.passes().compactMap { pass -> (RealPass, [String])? in
            guard let reason = pass.reasons.first(where: { $0.hasPrefix(prefix) }) else { return nil }
            return (pass, reason.dropFirst(prefix.count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        #expect(lacking.count >= 5, "\(lacking.count) passes refused for missing keys")
        for (pass, keys) in lacking {
            let found = try #require(Self.violations(pass.passJSON, schema), "\(pass.file): pass.json isn't JSON")
            for key in keys { #expect(found.contains("required||\(key)"), "\(pass.file) lacks \(key): \(found)") }
        }
    }

    @Test("Our schema engine and Python's jsonschema find the same violations in every real pass")
    func enginesAgree() async throws {
        let schema = try Self.schema()
        let result = try await SchemaFilesTests.runPython(["real-passes", Self.schemaFile.path, Self.realPasses.path])
        try #require(result.status == 0, "\(result)")
        let python = try JSONDecoder().decode([String: [String]].self, from: result.standardOutput)
        var compared = 0
        for pass in try Self.passes() {
            // A pass.json that isn't JSON (one real pass) has no violations to compare; Python skips it too.
            let ours = Self.violations(pass.passJSON, schema)
            #expect(ours == python[pass.file], "\(pass.file): ours \(ours ?? []), Python's \(python[pass.file] ?? [])")
            if ours != nil { compared += 1 }
        }
        #expect(compared == python.count && compared >= 55, "\(compared) passes compared, \(python.count) read by Python")
    }

    @Test("Apple's five sample passes (the Wallet Developer Guide's sources) meet the schema with nothing to say")
    func applesSamples() throws {
        let schema = try Self.schema()
        for style in ["boardingpass", "coupon", "event", "generic", "storecard"] {
            let file = Self.realPasses.appendingPathComponent("sources/apple-devpubs-\(style).pass/pass.json")
            #expect(Self.violations(Array(try Data(contentsOf: file)), schema) == [], "\(style)")
        }
    }

    /// The minimal pass of the specification summary (§3.12), with one thing changed.
    static let minimal = #"""
        {"formatVersion": 1, "passTypeIdentifier": "pass.com.example.member", "serialNumber": "M-000123",
         "teamIdentifier": "ABCDE12345", "organizationName": "Example", "description": "Example membership",
         "generic": {"primaryFields": [{"key": "name", "label": "Member", "value": "Ada"}]}}
        """#

    /// `minimal` with `change` applied to its top-level object.
    static func changed(_ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(minimal.utf8)) as? [String: Any])
        change(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test(
        "What the device refuses breaks the schema where it is: each planted mistake gives its own violation and nothing else",
        arguments: [
            ("no style", "anyOf||"),
            ("formatVersion 2", "const|/formatVersion|"),
            ("a boarding pass without transitType", "required|/boardingPass|transitType"),
            ("a web service without a token", "dependentRequired||authenticationToken"),
            ("a token of 15 characters", "minLength|/authenticationToken|"),
            ("a primary field without a value", "required|/generic/primaryFields/0|value"),
            ("a colour Wallet can't parse", "pattern|/backgroundColor|"),
            ("a date without a time zone", "pattern|/relevantDate|"),
            ("a store identifier as a string", "type|/associatedStoreIdentifiers/0|"),
            ("a latitude of 91", "maximum|/locations/0/latitude|"),
            ("an unknown barcode format", "enum|/barcodes/0/format|"),
            ("a misspelt key", "additionalProperties||auxilaryFields"),
        ])
    func plantedMistakes(mistake: String, expected: String) throws {
        let schema = try Self.schema()
        #expect(Self.violations(Array(Self.minimal.utf8), schema) == [], "the minimal pass is valid")
        let bytes = try Self.changed { pass in
            switch mistake {
            case "no style": pass["generic"] = nil
            case "formatVersion 2": pass["formatVersion"] = 2
            case "a boarding pass without transitType":
                pass["boardingPass"] = pass["generic"]
                pass["generic"] = nil
            case "a web service without a token": pass["webServiceURL"] = "https://passes.example.com"
            case "a token of 15 characters":
                pass["webServiceURL"] = "https://passes.example.com"
                pass["authenticationToken"] = "123456789012345"
            case "a primary field without a value": pass["generic"] = ["primaryFields": [["key": "name", "label": "Member"]]]
            case "a colour Wallet can't parse": pass["backgroundColor"] = "red"
            case "a date without a time zone": pass["relevantDate"] = "2026-12-03T10:30:00"
            case "a store identifier as a string": pass["associatedStoreIdentifiers"] = ["284882215"]
            case "a latitude of 91": pass["locations"] = [["latitude": 91, "longitude": 0]]
            case "an unknown barcode format":
                pass["barcodes"] = [["format": "PKBarcodeFormatDataMatrix", "message": "1", "messageEncoding": "iso-8859-1"]]
            default: pass["auxilaryFields"] = []
            }
        }
        #expect(Self.violations(bytes, schema) == [expected], "\(mistake)")
    }
}
