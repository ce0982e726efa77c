import Foundation
import Testing
import WalletOrdersTestSupport

/// Passes through the command-line tool: development certificates in Apple's Pass Type ID
/// profile, a pass built from Apple's own sample source, and the tool's verdicts on real passes
/// and a real `.pkpasses` bundle from `../shared/reference/real-passes/`.
@Suite(.temporaryFolder) struct PassEndToEndTests {
    static func corpus(_ path: String) throws -> String {
        try #require(RealPasses.folder, "../shared/reference/real-passes is missing").appendingPathComponent(path).path
    }

    @Test("dev-certs --pass-type-id (from the source's pass.json), build, then verify with the development root")
    func devCertsBuildVerify() async throws {
        let folder = try TemporaryFolder.ofTest
        let source = try Self.corpus("sources/apple-devpubs-boardingpass.pass")
        let certs = folder.file("certs").path
        let made = try await CLI.run(["dev-certs", "--pass-type-id", source, "--team-id", "A93A5CM278", "--out", certs])
        #expect(made.status == 0, "\(made)")
        #expect(made.output.hasPrefix("wrote TEST-ONLY certificates for pass.com.apple.devpubs.example (team A93A5CM278)"))
        let written = try FileManager.default.contentsOfDirectory(atPath: certs).sorted()
        #expect(written == ["README.txt", "pass-type.key.pem", "pass-type.p12", "pass-type.pem", "root-ca.pem", "wwdr-intermediate.pem"])

        let pass = folder.file("boarding.pkpass").path
        let built = try await CLI.run([
            "build", source, "--out", pass, "--cert", certs + "/pass-type.pem", "--key", certs + "/pass-type.key.pem", "--wwdr",
            certs + "/wwdr-intermediate.pem", "--json",
        ])
        #expect(built.status == 0, "\(built)")
        let summary = try #require(try JSONSerialization.jsonObject(with: built.standardOutput) as? [String: Any])
        #expect(summary["kind"] as? String == "pass")
        #expect(summary["passTypeIdentifier"] as? String == "pass.com.apple.devpubs.example")
        #expect((summary["manifest"] as? [String: String])?.values.allSatisfy { $0.count == 40 } == true)

        let verified = try await CLI.run(["verify", pass, "--trust-root", certs + "/root-ca.pem"])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("\(pass): OK with warnings"), "\(verified)")
        #expect(verified.output.contains("warning[json.trailing-comma]"))

        // Without the development root the chain leads nowhere, with the device's words.
        let untrusted = try await CLI.run(["verify", pass])
        #expect(untrusted.status == 1)
        #expect(untrusted.output.contains("error[certificate.untrusted]"))
        #expect(untrusted.output.contains("may not match your certificate, or the certificate trust chain could not be verified"))

        let inspected = try await CLI.run(["inspect", pass, "--json"])
        #expect(inspected.status == 0, "\(inspected)")
        let document = try #require(try JSONSerialization.jsonObject(with: inspected.standardOutput) as? [String: Any])
        let archive = try #require((document["archives"] as? [[String: Any]])?.first)
        #expect(archive["kind"] as? String == "pass")
        #expect((archive["pass"] as? [String: Any])?["serialNumber"] as? String == "gT6zrHkaW")
    }

    @Test("build takes a Pass Designer .pkpasstemplate (a folder with tooling.json, which Apple's own signer keeps in the pass)")
    func buildsPassDesignerTemplate() async throws {
        let folder = try TemporaryFolder.ofTest
        let template = folder.file("Ticket.pkpasstemplate")
        try FileManager.default.copyItem(at: Repository.samples.appendingPathComponent("event-ticket-pass"), to: template)
        try Data(#"{"designerVersion": "1.0", "automaticallyGenerateCompatiblePass": false}"#.utf8)
            .write(to: template.appendingPathComponent("tooling.json"))
        let certs = folder.file("certs").path
        let made = try await CLI.run(["dev-certs", "--pass-type-id", template.path, "--team-id", "ABCDE12345", "--out", certs])
        #expect(made.status == 0, "\(made)")
        let pass = folder.file("ticket.pkpass").path
        let built = try await CLI.run([
            "build", template.path, "--out", pass, "--cert", certs + "/pass-type.pem", "--key", certs + "/pass-type.key.pem", "--wwdr",
            certs + "/wwdr-intermediate.pem", "--json",
        ])
        #expect(built.status == 0, "\(built)")
        let summary = try #require(try JSONSerialization.jsonObject(with: built.standardOutput) as? [String: Any])
        #expect(summary["kind"] as? String == "pass")
        #expect((summary["manifest"] as? [String: String])?["tooling.json"]?.count == 40, "\(summary)")
        let validated = try await CLI.run(["validate", pass, "--trust-root", certs + "/root-ca.pem", "--strict"])
        #expect(validated.status == 0, "\(validated)")
    }

    @Test("inspect shows each pass of a real .pkpasses bundle on its own, and says why a broken bundle can't be read")
    func inspectsBundle() async throws {
        let bundle = try Self.corpus("bundles/hazardousfrog-rail-2022.pkpasses")
        let inspected = try await CLI.run(["inspect", bundle, "--json"])
        #expect(inspected.status == 0, "\(inspected)")
        let document = try #require(try JSONSerialization.jsonObject(with: inspected.standardOutput) as? [String: Any])
        let archives = try #require(document["archives"] as? [[String: Any]])
        #expect(archives.map { $0["path"] as? String } == ["R1EDWC8QZC4O", "R1EDWC8QZC4R"].map { "\(bundle)/\($0).pkpass" })
        #expect(archives.allSatisfy { $0["kind"] as? String == "pass" && ($0["pass"] as? [String: Any])?["passTypeIdentifier"] != nil })

        let text = try await CLI.run(["inspect", bundle])
        #expect(text.output.contains("\(bundle)/R1EDWC8QZC4R.pkpass: "), "\(text)")

        let broken = try TemporaryFolder.ofTest.file("broken.pkpasses")
        try Data("not a zip".utf8).write(to: broken)
        let refused = try await CLI.run(["inspect", broken.path])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errorOutput.contains("A .pkpasses bundle is a zip of .pkpass files"), "\(refused)")
    }

    @Test("dev-certs takes --order-type-id or --pass-type-id, not both, and --nfc only with a pass type")
    func devCertsKinds() async throws {
        let folder = try TemporaryFolder.ofTest
        let both = try await CLI.run([
            "dev-certs", "--order-type-id", "order.com.x", "--pass-type-id", "pass.com.x", "--team-id", "T", "--out", folder.url.path,
        ])
        #expect(both.status == 64, "\(both)")
        #expect(both.errorOutput.contains("not both"))
        let nfcOnOrder = try await CLI.run(["dev-certs", "--order-type-id", "order.com.x", "--nfc", "--team-id", "T", "--out", folder.url.path])
        #expect(nfcOnOrder.status == 64, "\(nfcOnOrder)")
    }

    @Test("verify reports each pass of a real .pkpasses bundle on its own, and real refused passes with their rule")
    func realPasses() async throws {
        let bundle = try Self.corpus("bundles/hazardousfrog-rail-2022.pkpasses")
        let verified = try await CLI.run(["verify", bundle])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.output.contains("\(bundle)/R1EDWC8QZC4O.pkpass: OK"), "\(verified)")
        #expect(verified.output.contains("\(bundle)/R1EDWC8QZC4R.pkpass: OK"), "\(verified)")

        let marker = try Self.corpus("signed-apple/pkpassvalidator-bad-marker-2020.pkpass")
        let refused = try await CLI.run(["verify", marker, "--json"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.output.contains("signature.signer-pass-type-mismatch"))
        // validate reads passes too, and gives the same verdict.
        let validated = try await CLI.run(["validate", marker])
        #expect(validated.status == 1, "\(validated)")
        #expect(validated.output.contains("signature.signer-pass-type-mismatch"), "\(validated)")
    }

    @Test("build --batch with a pass template builds a ticket per line, and validate passes the folder of them")
    func batchOfTickets() async throws {
        let folder = try TemporaryFolder.ofTest
        let template = Repository.samples.appendingPathComponent("event-ticket-pass").path
        let certs = folder.file("certs").path
        let made = try await CLI.run(["dev-certs", "--pass-type-id", template, "--team-id", "ABCDE12345", "--out", certs])
        #expect(made.status == 0, "\(made)")
        let lines = (1...12).map {
            #"{"serialNumber": "T-\#($0)", "barcodes": [{"format": "PKBarcodeFormatQR", "message": "T-\#($0)", "messageEncoding": "iso-8859-1"}]}"#
        }
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "tickets.jsonl")
        let out = folder.file("tickets").path
        let built = try await CLI.run([
            "build", "--batch", input.path, "--template", template, "--out", out, "--jobs", "2", "--cert", certs + "/pass-type.pem",
            "--key", certs + "/pass-type.key.pem", "--wwdr", certs + "/wwdr-intermediate.pem",
        ])
        #expect(built.status == 0, "\(built)")
        #expect(built.output.contains("built 12, failed 0"), "\(built)")
        #expect(built.output.contains("passes/s"))
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(written.count == 12)
        #expect(written.contains("T-7.pkpass"))
        let validated = try await CLI.run(["validate", out, "--trust-root", certs + "/root-ca.pem", "--quiet"])
        #expect(validated.status == 0, "\(validated)")
        #expect(validated.output.contains("12 archives, 12 passed"), "\(validated)")
        // The JSON report says what it found: a pass, a pass source, an order source.
        let mixed = try await CLI.run([
            "validate", out + "/T-1.pkpass", template, Repository.samples.appendingPathComponent("shipped-ecommerce").path, "--format", "json",
            "--trust-root", certs + "/root-ca.pem",
        ])
        let document = try #require(try JSONSerialization.jsonObject(with: mixed.standardOutput) as? [String: Any], "\(mixed)")
        #expect((document["reports"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["pass", "pass", "order"], "\(mixed)")

        // Two of them as a bundle, which verify reads back pass by pass and Python's zipfile opens.
        let trip = folder.file("trip.pkpasses").path
        let bundled = try await CLI.run(["bundle", out + "/T-1.pkpass", out + "/T-2.pkpass", "--out", trip, "--trust-root", certs + "/root-ca.pem"])
        #expect(bundled.status == 0, "\(bundled)")
        #expect(bundled.output.contains("bundled 2 passes into"), "\(bundled)")
        let reread = try await CLI.run(["verify", trip, "--trust-root", certs + "/root-ca.pem"])
        #expect(reread.status == 0, "\(reread)")
        #expect(reread.output.contains("\(trip)/T-1.pkpass: OK") && reread.output.contains("\(trip)/T-2.pkpass: OK"), "\(reread)")
        let names = try await ExternalProgram.python("import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).namelist())", [trip])
        #expect(names.output.trimmingCharacters(in: .whitespacesAndNewlines) == "['T-1.pkpass', 'T-2.pkpass']", "\(names)")
        // Eleven passes are more than Wallet adds at once; a pass that doesn't verify stays out.
        let eleven = try await CLI.run([
            "bundle", out + "/*.pkpass", "--out", folder.file("too-many.pkpasses").path, "--trust-root", certs + "/root-ca.pem",
        ])
        #expect(eleven.status == 1, "\(eleven)")
        #expect(eleven.errorOutput.contains("more than Wallet adds at once"), "\(eleven)")
        let untrusted = try await CLI.run(["bundle", out + "/T-1.pkpass", "--out", folder.file("untrusted.pkpasses").path])
        #expect(untrusted.status == 1, "\(untrusted)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("untrusted.pkpasses").path))
    }

    @Test(
        "init --pass writes a source of each style that validates without a finding",
        arguments: ["boardingPass", "coupon", "eventTicket", "generic", "storeCard"])
    func initEachStyle(_ style: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let source = folder.file(style).path
        let made = try await CLI.run([
            "init", source, "--pass", style, "--pass-type-id", "pass.com.example.\(style.lowercased())", "--team-id", "ABCDE12345",
        ])
        #expect(made.status == 0, "\(made)")
        #expect(made.output.hasPrefix("wrote a pass source (\(style)) for pass.com.example.\(style.lowercased())/PASS-1"))
        let names = try FileManager.default.contentsOfDirectory(atPath: source).sorted()
        #expect(names == ["icon.png", "icon@2x.png", "icon@3x.png", "logo.png", "logo@2x.png", "logo@3x.png", "pass.json"])
        let validated = try await CLI.run(["validate", source])
        #expect(validated.status == 0, "\(validated)")
        #expect(!validated.output.contains("error[") && !validated.output.contains("warning["), "\(validated)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: source + "/pass.json"))) as? [String: Any])
        #expect((json["authenticationToken"] as? String)?.count == 32)
        #expect(json[style] is [String: Any])
    }

    @Test("init --pass needs --pass-type-id and --team-id, and not --order-type-id")
    func initPassUsage() async throws {
        let folder = try TemporaryFolder.ofTest
        let noType = try await CLI.run(["init", folder.file("a").path, "--pass", "coupon", "--team-id", "T"])
        #expect(noType.status == 64, "\(noType)")
        #expect(noType.errorOutput.contains("--pass-type-id"))
        let both = try await CLI.run([
            "init", folder.file("b").path, "--pass", "coupon", "--pass-type-id", "pass.x", "--team-id", "T", "--order-type-id", "order.x",
        ])
        #expect(both.status == 64, "\(both)")
        let badStyle = try await CLI.run(["init", folder.file("c").path, "--pass", "ticket", "--pass-type-id", "pass.x", "--team-id", "T"])
        #expect(badStyle.status == 64, "\(badStyle)")
    }
}
