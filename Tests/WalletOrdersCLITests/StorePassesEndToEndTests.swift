import Foundation
import Testing
import WalletOrdersTestSupport

/// Passes in the store through the command-line tool: passes built and bundled by the tool from
/// the event-ticket sample, saved, read back, listed, deleted and followed in the history.
@Suite(.temporaryFolder) struct StorePassesEndToEndTests {
    static let passType = "pass.com.northwindoutfitters.ticket"
    static let serial = "NW-2026-000001"

    /// Development certificates for the sample's pass type, and the sample built as it is and with
    /// its event renamed: (certificates folder, first pass, second pass).
    static func passes(in folder: TemporaryFolder) async throws -> (certs: String, first: String, second: String) {
        let sample = Repository.samples.appendingPathComponent("event-ticket-pass")
        let certs = folder.file("certs").path
        let made = try await CLI.run(["dev-certs", "--pass-type-id", sample.path, "--team-id", "ABCDE12345", "--out", certs])
        #expect(made.status == 0, "\(made)")
        let changed = folder.file("changed")
        try FileManager.default.copyItem(at: sample, to: changed)
        let passJSON = changed.appendingPathComponent("pass.json")
        let text = try String(contentsOf: passJSON, encoding: .utf8)
        try text.replacingOccurrences(of: "Trail Run 2027", with: "Trail Run 2027 (moved)").write(to: passJSON, atomically: true, encoding: .utf8)
        var built: [String] = []
        for (source, name) in [(sample.path, "first.pkpass"), (changed.path, "second.pkpass")] {
            let out = folder.file(name).path
            let result = try await CLI.run([
                "build", source, "--out", out, "--cert", certs + "/pass-type.pem", "--key", certs + "/pass-type.key.pem", "--wwdr",
                certs + "/wwdr-intermediate.pem",
            ])
            #expect(result.status == 0, "\(result)")
            built.append(out)
        }
        return (certs, built[0], built[1])
    }

    @Test("store save answers added, unchanged and replaced for passes; get, list, history and delete take them")
    func saveGetListHistoryDelete() async throws {
        let folder = try TemporaryFolder.ofTest
        let (certs, first, second) = try await Self.passes(in: folder)
        let store = StoreUnderTest(folder: folder)
        let trust = ["--trust-root", certs + "/root-ca.pem"]

        let added = try await store.run("save", [first] + trust)
        #expect(added.status == 0, "\(added)")
        #expect(added.output.contains("added  \(Self.passType)/\(Self.serial) (version 1)  \(first)"), "\(added)")
        let again = try await store.run("save", [first, second, "--json"] + trust)
        #expect(again.status == 0, "\(again)")
        let lines = try again.output.split(separator: "\n").map { try #require(try parseJSON(Data($0.utf8)) as? [String: Any]) }
        #expect(lines.map { $0["result"] as? String } == ["unchanged", "replaced"])
        #expect(lines.map { $0["kind"] as? String } == ["pass", "pass"])
        #expect(lines.map { $0["version"] as? Int } == [1, 2])
        #expect(lines.allSatisfy { $0["serialNumber"] as? String == Self.serial && $0["passTypeIdentifier"] as? String == Self.passType })

        // Without the development root the pass is refused with its finding, and nothing changes.
        let untrusted = try await store.run("save", [first])
        #expect(untrusted.status == 1)
        #expect(untrusted.errorOutput.contains("certificate.untrusted"), "\(untrusted)")

        let contains = try await store.run("contains", [Self.passType, Self.serial])
        #expect(contains.status == 0, "\(contains)")
        #expect(contains.output.contains("exists (a pass, stored version 2)"), "\(contains)")
        #expect(try await store.run("contains", [Self.passType, "nope"]).status == 10)

        let shown = try await store.run("get", ["\(Self.passType)/\(Self.serial)", "--json"])
        #expect(shown.status == 0, "\(shown)")
        let document = try #require(try parseJSON(shown.standardOutput) as? [String: Any])
        let versions = try #require(document["versions"] as? [[String: Any]])
        #expect(versions.map { $0["version"] as? Int } == [1, 2])
        let passJSON = try await store.run("get", [Self.passType, Self.serial, "--pass-json"])
        #expect(passJSON.status == 0)
        #expect(passJSON.output.contains("Trail Run 2027 (moved)"))
        let oldPath = folder.file("old.pkpass").path
        let old = try await store.run("get", [Self.passType, Self.serial, "--version", "1", "--out", oldPath])
        #expect(old.status == 0, "\(old)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldPath)) == Data(contentsOf: URL(fileURLWithPath: first)))
        #expect(try await store.run("get", [Self.passType, Self.serial, "--version", "3"]).status == 10)

        let listed = try await store.run("list", ["--kind", "pass", "--json"])
        #expect(listed.status == 0, "\(listed)")
        let page = try #require(try parseJSON(listed.standardOutput) as? [String: Any])
        let passes = try #require(page["passes"] as? [[String: Any]])
        #expect(passes.count == 1)
        #expect(try await store.run("list", ["--json"]).output.contains(Self.serial) == false, "orders are listed by default")

        let history = try await store.run("history", ["--kind", "pass"])
        #expect(history.status == 0, "\(history)")
        #expect(history.output == "+ \(Self.passType)/\(Self.serial)\n", "\(history)")
        let token = try #require(history.errorOutput.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        #expect(try await store.run("history").output.isEmpty, "the order history has no passes")

        let deleted = try await store.run("delete", [Self.passType, Self.serial])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(try await store.run("get", [Self.passType, Self.serial]).status == 10)
        let since = try await store.run("history", ["--kind", "pass", "--since", token])
        #expect(since.output == "- \(Self.passType)/\(Self.serial)\n", "\(since)")
    }

    @Test("Each pass of a .pkpasses bundle is saved as its own pass, named BUNDLE/NAME")
    func savesBundleMembers() async throws {
        let folder = try TemporaryFolder.ofTest
        let (certs, first, _) = try await Self.passes(in: folder)
        let bundle = folder.file("tickets.pkpasses").path
        let bundled = try await CLI.run(["bundle", first, "--out", bundle, "--trust-root", certs + "/root-ca.pem"])
        #expect(bundled.status == 0, "\(bundled)")
        let store = StoreUnderTest(folder: folder)
        let saved = try await store.run("save", [bundle, "--json", "--trust-root", certs + "/root-ca.pem"])
        #expect(saved.status == 0, "\(saved)")
        let line = try #require(try parseJSON(Data(saved.output.utf8)) as? [String: Any])
        #expect((line["file"] as? String)?.hasPrefix(bundle + "/") == true, "\(line)")
        #expect(line["result"] as? String == "added")
    }
}
