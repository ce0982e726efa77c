import Foundation
import Testing
import WalletOrdersJSON
import WalletOrdersTestSupport
import WalletPasses

/// Batch issuance: one template (`Samples/event-ticket-pass`) and a JSON object of fields per pass.
@Suite struct PassBatchTests {
    static let signingTime = ISO8601DateFormatter().date(from: "2026-11-20T10:00:00Z")!
    static let authority = try! DevelopmentCertificateAuthority(validFrom: signingTime.addingTimeInterval(-10 * 86_400))
    static let identity = try! authority.issuePassTypeCertificate(
        passTypeIdentifier: "pass.com.northwindoutfitters.ticket", teamIdentifier: "ABCDE12345", validFrom: signingTime.addingTimeInterval(-86_400)
    ).signingIdentity(validAt: signingTime)
    static let template = try! PassTemplate(directory: Repository.samples.appendingPathComponent("event-ticket-pass"))

    static func fields(_ index: Int) -> [UInt8] {
        let serial = "NW-TEST-\(index)"
        return Array(
            """
            {"serialNumber": "\(serial)", "barcodes": [{"format": "PKBarcodeFormatQR", "message": "\(serial)", "messageEncoding": "iso-8859-1"}],
             "eventTicket": {"auxiliaryFields": [{"key": "bib", "label": "BIB", "value": "\(index)"}]}, "locations": null}
            """.utf8)
    }

    @Test("The sample ticket validates clean as a source")
    func sampleIsClean() throws {
        let report = try PassValidator().validate(Self.template.source, subject: "event-ticket-pass")
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
    }

    @Test("Each line's fields are merged into the template (RFC 7396) and each pass verifies; the same inputs give the same bytes")
    func batchBuildsEveryPass() async throws {
        let builder = try PassBatchBuilder(identity: Self.identity, template: Self.template, signingTime: Self.signingTime, maximumConcurrency: 2)
        let inputs = (0..<24).map { BatchInput(origin: .line($0 + 1), orderJSON: Self.fields($0)) }
        var built: [Int: BuiltPassArchive] = [:]
        var names: Set<String> = []
        for try await result in builder.results(for: inputs) {
            let archive = try #require(result.archive, "\(result.origin): \(String(describing: result.error))")
            built[result.index] = archive
            if case .built(_, let fileName) = result.outcome { names.insert(fileName) }
        }
        #expect(built.count == 24)
        #expect(names.contains("NW-TEST-7.pkpass"))
        let verifier = try PassArchiveVerifier(additionalTrustAnchors: [Array(Self.authority.rootCertificatePEM.utf8)])
        let pass = try PassArchive(bytes: try #require(built[7]).bytes)
        #expect(verifier.verify(pass, subject: "7", now: Self.signingTime).errors.isEmpty)
        let passJSON = try #require(pass.contents(of: "pass.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(passJSON)) as? [String: Any])
        #expect(json["serialNumber"] as? String == "NW-TEST-7")
        #expect(json["locations"] == nil)  // null removes the key
        let ticket = try #require(json["eventTicket"] as? [String: Any])
        #expect((ticket["primaryFields"] as? [[String: Any]])?.first?["value"] as? String == "Trail Run 2027")  // kept from the template
        #expect((ticket["auxiliaryFields"] as? [[String: Any]])?.count == 1)  // an array replaces the template's
        // One at a time, the same pass to the byte.
        let again = builder.build(BatchInput(origin: .line(8), orderJSON: Self.fields(7)))
        #expect(again.archive?.bytes == built[7]?.bytes)
    }

    @Test("Without validation a batch signs the same bytes (the merge's tree names the pass), and a line's bad identity still fails alone")
    func unvalidatedBatchSignsTheSameBytes() throws {
        let checked = try PassBatchBuilder(identity: Self.identity, template: Self.template, signingTime: Self.signingTime)
        let unchecked = try PassBatchBuilder(identity: Self.identity, template: Self.template, signingTime: Self.signingTime, validate: false)
        let input = BatchInput(origin: .line(1), orderJSON: Self.fields(3))
        let validated = try #require(checked.build(input).archive)
        let unvalidated = try #require(unchecked.build(input).archive)
        #expect(unvalidated.bytes == validated.bytes)
        #expect(unvalidated.serialNumber == "NW-TEST-3")
        let otherTeam = unchecked.build(BatchInput(origin: .line(2), orderJSON: Array(#"{"teamIdentifier": "ZZZZZ99999"}"#.utf8)))
        #expect(otherTeam.error?.code == .passTypeMismatch, "\(String(describing: otherTeam.error))")
    }

    @Test(
        "The tree the merge writes, with its positions, is what parsing the text it wrote gives: a batch validates it without parsing again",
        arguments: [
            #"{"serialNumber": "S-1"}"#,
            #"{"organizationName": "Ünïcödé 🎟️ \"quoted\"\n\t", "eventTicket": {"secondaryFields": []}, "userInfo": {"a": [1, 2.50, -0, 1e3, true, null, {}]}}"#,
            #"{"barcodes": [{"format": "PKBarcodeFormatQR", "message": "𝄞\u0001", "messageEncoding": "utf-8"}], "logoText": null}"#,
        ])
    func mergedTreeIsTheParse(fields: String) throws {
        let (source, parsed) = try Self.template.merged(with: Array(fields.utf8))
        let written = try #require(parsed?.root, "the sample template parses cleanly")
        let text = try #require(source.files["pass.json"])
        let reparsed = JSONParser.parse(text, maxDepth: 64, allowingTrailingCommas: true)
        #expect(reparsed.problems.isEmpty)
        #expect(reparsed.root == written)
    }

    @Test("A line that is no JSON object, or makes an invalid pass, fails alone, with the rule")
    func badLinesFailAlone() async throws {
        let builder = try PassBatchBuilder(identity: Self.identity, template: Self.template, signingTime: Self.signingTime)
        let inputs = [
            BatchInput(origin: .line(1), orderJSON: Self.fields(1)),
            BatchInput(origin: .line(2), orderJSON: Array("[1, 2]".utf8)),
            BatchInput(origin: .line(3), orderJSON: Array(#"{"serialNumber": "X", "webServiceURL": "http://example.com"}"#.utf8)),
        ]
        var results: [Int: PassBatchResult] = [:]
        for try await result in builder.results(for: inputs) { results[result.index] = result }
        #expect(results[0]?.archive != nil)
        #expect(results[1]?.error?.code == .invalidOrder)
        #expect(results[2]?.error?.code == .validationFailed)
        #expect(results[2]?.error?.message.contains("pass.web-service-not-https") == true, "\(String(describing: results[2]?.error))")
    }
}
