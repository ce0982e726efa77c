import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders validate` and `rules`, and `build` refusing an invalid order, run as a user would.
@Suite(.temporaryFolder) struct ValidateEndToEndTests {
    /// A copy of a sample with `order.json` edited by `edit`.
    static func brokenSource(_ sample: String, in folder: TemporaryFolder, _ edit: (String) -> String) throws -> URL {
        let target = folder.file(sample)
        try FileManager.default.copyItem(at: Repository.sample(sample), to: target)
        let orderURL = target.appendingPathComponent("order.json")
        try edit(try String(contentsOf: orderURL, encoding: .utf8)).write(to: orderURL, atomically: true, encoding: .utf8)
        return target
    }

    @Test("A valid source folder and a valid archive exit 0 with OK")
    func validPasses() async throws {
        let archive = try await SharedFixtures.archive.get()
        let certs = try await SharedFixtures.certs.get()
        let result = try await CLI.run(["validate", Repository.sample("store-pickup").path, archive.path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("store-pickup: OK (0 errors, 0 warnings)"))
        #expect(result.output.contains("shipped-ecommerce.order: OK (0 errors, 0 warnings)"))
        #expect(
            result.output.split(separator: "\n").last?.hasPrefix("2 items, 2 passed, 0 with errors, 0 with warnings, ") == true, "\(result.output)")
    }

    @Test("Errors exit 1 with compiler-style lines, the source line, a caret and a hint")
    func errorsFail() async throws {
        let folder = try TemporaryFolder.ofTest
        let source = try Self.brokenSource("store-pickup", in: folder) {
            $0.replacingOccurrences(of: "\"readyForPickup\"", with: "\"ReadyForPickup\"")
        }
        let result = try await CLI.run(["validate", source.path])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("error[schema.enum]") })
        #expect(lines[index].hasPrefix("\(source.path)/order.json:"))
        #expect(
            lines[index].wholeMatch(of: /.*\/order\.json:\d+:\d+: error\[schema\.enum\]: 'ReadyForPickup' is not one of .*/) != nil, "\(lines[index])"
        )
        #expect(lines[index + 1].contains("\"status\": \"ReadyForPickup\""))
        #expect(lines[index + 2].trimmingCharacters(in: .whitespaces) == "^")
        #expect(lines[index + 3].contains("hint: Values are case-sensitive."))
        #expect(result.output.contains("FAILED (1 error, 0 warnings)"))
    }

    @Test("Warnings pass, but fail with --strict")
    func strictWarnings() async throws {
        let folder = try TemporaryFolder.ofTest
        let source = try Self.brokenSource("store-pickup", in: folder) {
            $0.replacingOccurrences(of: "\"orderNumber\"", with: "\"ordreNumber\": \"x\",\n  \"orderNumber\"")
        }
        let relaxed = try await CLI.run(["validate", source.path])
        #expect(relaxed.status == 0, "\(relaxed)")
        #expect(relaxed.output.contains("warning[schema.unknown-key]: Unknown key 'ordreNumber'"))
        #expect(relaxed.output.contains("hint: Did you mean 'orderNumber'?"))
        let strict = try await CLI.run(["validate", source.path, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.output.contains("FAILED (0 errors, 1 warning)"))
    }

    @Test("--format json, sarif and junit print documents a program can read")
    func machineFormats() async throws {
        let source = Repository.sample("shipped-ecommerce").path
        let json = try await CLI.run(["validate", source, "--format", "json"])
        #expect(json.status == 0)
        let document = try #require(try parseJSON(json.standardOutput) as? [String: Any])
        #expect(document["valid"] as? Bool == true)
        #expect((document["summary"] as? [String: Any])?["checked"] as? Int == 1)
        let sarif = try await CLI.run(["validate", source, "--format", "sarif"])
        let log = try #require(try parseJSON(sarif.standardOutput) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let junit = try await CLI.run(["validate", source, "--format", "junit"])
        #expect(
            junit.output.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"wallet-orders validate\" tests=\"1\" failures=\"0\""))
    }

    @Test("Globs and folders of archives expand; a path that matches nothing is an error")
    func globsAndFolders() async throws {
        let archive = try await SharedFixtures.archive.get()
        let certs = try await SharedFixtures.certs.get()
        let folder = archive.deletingLastPathComponent().path
        let byGlob = try await CLI.run(["validate", folder + "/*.order", "--trust-root", certs.rootCA.path, "--format", "json"])
        let report = try #require(try parseJSON(byGlob.standardOutput) as? [String: Any])
        let subjects = (report["reports"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } ?? []
        #expect(subjects.contains(archive.path))
        let missing = try await CLI.run(["validate", "/nonexistent/*.order"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("error[file.unreadable]: '/nonexistent/*.order' matches nothing."))
    }

    @Test("An unknown --format is a usage error (64)")
    func badFormat() async throws {
        let result = try await CLI.run(["validate", "x", "--format", "yaml"])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("yaml"))
    }

    @Test("build refuses an order with errors (exit 1, nothing written) unless --no-validate")
    func buildValidatesFirst() async throws {
        let folder = try TemporaryFolder.ofTest
        let certs = try await SharedFixtures.certs.get()
        let source = try Self.brokenSource("shipped-ecommerce", in: folder) { $0.replacingOccurrences(of: "\"USD\"", with: "\"USB\"") }
        let out = folder.file("broken.order")
        let refused = try await CLI.run(["build", source.path, "--out", out.path] + certs.signingArguments)
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("error[money.unknown-currency]"))
        #expect(refused.errorOutput.contains("the order was not signed"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let forced = try await CLI.run(["build", source.path, "--out", out.path, "--no-validate"] + certs.signingArguments)
        #expect(forced.status == 0, "\(forced)")
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    @Test("rules lists every rule; --json is machine-readable")
    func rules() async throws {
        let text = try await CLI.run(["rules"])
        #expect(text.status == 0)
        #expect(text.output.contains("manifest.hash-mismatch  error"))
        #expect(text.output.contains("schema.unknown-key  warning"))
        let json = try await CLI.run(["rules", "--json"])
        let rules = try #require(try parseJSON(json.standardOutput) as? [[String: Any]])
        #expect(text.output.hasSuffix("\(rules.count) rules.\n"))
        #expect(rules.contains { $0["id"] as? String == "localization.pass-strings" && $0["severity"] as? String == "error" })
    }
}
