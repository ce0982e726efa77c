import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The four report formats of one archive with many findings, compared with committed golden
/// files. Set WALLET_ORDERS_UPDATE_GOLDEN=1 to rewrite them after an intended change.
@Suite(.temporaryFolder) struct ValidationReportGoldenTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let signingTime = start.addingTimeInterval(151 * day)  // 2026-06-01
    static let now = signingTime.addingTimeInterval(day)

    /// shipped-ecommerce with five things wrong, signed with a fixed-date development chain.
    static let reports: [ValidationReport] = {
        let authority = try! DevelopmentCertificateAuthority(validFrom: start, validFor: 5 * 365 * day)
        var files = try! SampleBuilds.source("shipped-ecommerce").files
        var text = String(decoding: files["order.json"]!, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"status\": \"onTheWay\"", with: "\"status\": \"OnTheWay\"")
        text = text.replacingOccurrences(
            of: "\"merchantIdentifier\"", with: "\"merchantIdentifer\": \"merchant.com.typo\",\n    \"merchantIdentifier\"")
        text = text.replacingOccurrences(of: "\"socks.png\"", with: "\"sock.png\"")
        if let range = text.range(of: "\"currency\": \"USD\"", options: .backwards) {
            text.replaceSubrange(range, with: "\"currency\": \"USB\"")
        }
        files["order.json"] = Array(text.utf8)
        let order = try! Order.decode(from: Data(files["order.json"]!))
        let certificate = try! authority.issueOrderTypeCertificate(
            orderTypeIdentifier: order.orderTypeIdentifier, teamIdentifier: "GOLDEN0001", validFrom: start, validFor: 365 * day)
        let built = try! OrderArchiveBuilder(identity: try! certificate.signingIdentity(validAt: signingTime))
            .build(OrderSource(files: files), signingTime: signingTime)
        let validator = try! OrderValidator(
            verifier: try! OrderArchiveVerifier(additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)]))
        return [validator.validate(archiveBytes: built.bytes, subject: "broken.order", now: now)]
    }()

    static let formats: [(ReportFormat, String)] = [(.text, "txt"), (.json, "json"), (.sarif, "sarif"), (.junit, "xml")]

    @Test("The archive has the planted problems, each once", arguments: [0])
    func plantedProblems(_: Int) throws {
        let report = try #require(Self.reports.first)
        let rules = report.diagnostics.map(\.ruleID)
        let expectedCounts = [
            "schema.enum": 1, "schema.unknown-key": 1, "files.unreferenced": 1, "money.unknown-currency": 1,
            "money.currency-mismatch": 1, "files.missing-reference": 2,  // sock.png is named by two line items
        ]
        for (rule, count) in expectedCounts {
            #expect(rules.filter { $0 == rule }.count == count, "\(rule) in \(rules)")
        }
        #expect(report.errors.count == 4 && report.warnings.count == 2)
        let unknownKey = try #require(report.diagnostics(ruleID: "schema.unknown-key").first)
        #expect(
            unknownKey.hint
                == "Did you mean 'merchantIdentifier'? Allowed here: address, businessChatURL, contactURL, displayName, "
                + "emailAddress, logo, merchantIdentifier, phoneNumber, url.")
        #expect(unknownKey.location.jsonPointer == "/merchant/merchantIdentifer")
        let status = try #require(report.diagnostics(ruleID: "schema.enum").first)
        #expect(status.message.hasSuffix("did you mean 'onTheWay'?"))
        #expect(status.hint == "Values are case-sensitive.")
        #expect(status.location.line != nil && status.location.column != nil)
    }

    @Test("Each report format matches its golden file", arguments: formats.map(\.1))
    func golden(_ fileExtension: String) throws {
        let format = try #require(Self.formats.first { $0.1 == fileExtension }?.0)
        let rendered = ReportRenderer(toolVersion: "0.1.0").render(Self.reports, as: format)
        let url = Repository.tests.appendingPathComponent("WalletOrdersTests/Golden/validation-report.\(fileExtension)")
        if ProcessInfo.processInfo.environment["WALLET_ORDERS_UPDATE_GOLDEN"] == "1" {
            try Data(rendered.utf8).write(to: url)
        }
        let golden = try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path); run with WALLET_ORDERS_UPDATE_GOLDEN=1")
        #expect(rendered == String(decoding: golden, as: UTF8.self), "differs from \(url.lastPathComponent); diff it against the rendered output")
    }

    @Test("The SARIF output is a valid SARIF 2.1.0 log (sarif-pydantic) with a rule entry per result")
    func sarifIsValid() async throws {
        let sarif = ReportRenderer().render(Self.reports, as: .sarif)
        let folder = try TemporaryFolder.ofTest
        let path = try folder.write(Array(sarif.utf8), to: "report.sarif")
        let script = """
            import json, sys
            from sarif_pydantic import Sarif
            log = Sarif.model_validate(json.load(open(sys.argv[1])))
            run = log.runs[0]
            rule_ids = [rule.id for rule in run.tool.driver.rules]
            for result in run.results:
                assert rule_ids[result.rule_index] == result.rule_id, result.rule_id
            print(len(run.results), len(rule_ids))
            """
        let result = try await ExternalProgram.python(script, [path.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let report = try #require(Self.reports.first)
        #expect(result.output.split(separator: " ").first.map(String.init) == String(report.diagnostics.count))
    }

    @Test("The JSON output is valid against Schemas/validation-report.schema.json (Python jsonschema)")
    func jsonMatchesItsSchema() async throws {
        let json = ReportRenderer().render(Self.reports, as: .json)
        let folder = try TemporaryFolder.ofTest
        let path = try folder.write(Array(json.utf8), to: "report.json")
        let schema = Repository.root.appendingPathComponent("Schemas/validation-report.schema.json").path
        let script = """
            import json, sys, jsonschema
            jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
            print("ok")
            """
        let result = try await ExternalProgram.python(script, [schema, path.path])
        #expect(result.status == 0 && result.output.hasPrefix("ok"), "\(result.errorOutput)")
    }

    @Test("JUnit output is well-formed XML with one failing test case for the archive")
    func junitIsWellFormed() throws {
        let xml = ReportRenderer().render(Self.reports, as: .junit)
        let document = try XMLDocument(data: Data(xml.utf8))
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 1)
        #expect(try document.nodes(forXPath: "//testcase/failure").count == 1)
    }
}
