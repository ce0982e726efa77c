import Foundation
import Testing
import WalletOrdersTestSupport

/// The store commands' traps for a newcomer (issue 14): every command run as a user would.
@Suite struct StoreQuestionsEndToEndTests {
    @Test("list --status opne is refused with the valid statuses and a suggestion")
    func badStatus() throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let result = try store.run("list", ["--status", "opne"])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.errorOutput.contains(
                "error: --status 'opne' is not an order status; the statuses are open, completed, cancelled. Did you mean 'open'?"),
            "\(result)")
    }

    @Test("history --limit without a token is refused; --token-file reads and writes the token, stdout holds only changes")
    func historyTokens() throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try ["H-1", "H-2"].map { try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: $0) }
        #expect(try store.save([archives[0]]).result.status == 0)
        let limited = try store.run("history", ["--limit", "1"])
        #expect(limited.status == 64, "\(limited)")
        #expect(limited.errorOutput.contains("error: --limit needs a token"), "\(limited)")
        #expect(limited.errorOutput.contains("store list --limit N"), "\(limited)")

        let tokenFile = store.folder.file("last-token")
        let first = try store.run("history", ["--token-file", tokenFile.path])
        #expect(first.status == 0, "\(first)")
        #expect(first.output == "+ \(Repository.shippedOrderTypeIdentifier)/H-1\n")
        #expect(first.errorOutput.isEmpty, "\(first)")
        let saved = try String(contentsOf: tokenFile, encoding: .utf8)
        #expect(!saved.isEmpty)
        #expect(try store.save([archives[1]]).result.status == 0)
        let second = try store.run("history", ["--token-file", tokenFile.path, "--limit", "10"])
        #expect(second.status == 0, "\(second)")
        #expect(second.output == "+ \(Repository.shippedOrderTypeIdentifier)/H-2\n", "only what changed since the saved token")
        #expect(try String(contentsOf: tokenFile, encoding: .utf8) != saved)
    }

    @Test("--trust-root is offered by store save only", arguments: ["contains", "get", "list", "delete", "history", "compact-history"])
    func trustRootOnlyOnSave(subcommand: String) throws {
        let help = try CLI.run(["store", subcommand, "--help"])
        #expect(help.status == 0)
        #expect(!help.output.contains("--trust-root"), "\(subcommand): \(help.output)")
        let save = try CLI.run(["store", "save", "--help"])
        #expect(save.output.contains("--trust-root"))
    }

    @Test("Questions on a missing default store answer as an empty store and create nothing")
    func missingDefaultStoreStaysMissing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let xdg = folder.file("xdg")
        let environment = ["XDG_DATA_HOME": xdg.path, "WALLET_ORDERS_STORE": ""]
        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let runs: [([String], Int32, String)] = [
            (["store", "contains", order], 10, "notFound\n"),
            (["store", "get", order], 10, ""),
            (["store", "list"], 0, "No stored orders match.\n"),
            (["store", "delete", order], 10, ""),
            (["store", "history"], 0, ""),
        ]
        for (arguments, status, output) in runs {
            let result = try CLI.run(arguments, environment: environment)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.output == output, "\(arguments): \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: xdg.path), "a question created \(xdg.path)")
    }

    @Test("rules RULE-ID explains one rule; a group lists its rules; an unknown id gets a suggestion")
    func explainOneRule() throws {
        let one = try CLI.run(["rules", "schema.enum"])
        #expect(one.status == 0, "\(one)")
        let lines = one.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "schema.enum  error", "\(one.output)")
        #expect(lines.last == "1 rule.")
        let json = try CLI.run(["rules", "schema.enum", "--json"])
        let rules = try #require(try parseJSON(json.standardOutput) as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["schema.enum"])
        let group = try CLI.run(["rules", "schema", "--json"])
        let groupRules = try #require(try parseJSON(group.standardOutput) as? [[String: Any]])
        #expect(groupRules.count > 1 && groupRules.allSatisfy { ($0["id"] as? String)?.hasPrefix("schema.") == true })
        let typo = try CLI.run(["rules", "schema.enun"])
        #expect(typo.status == 1, "\(typo)")
        #expect(typo.errorOutput.contains("error: There is no rule 'schema.enun'."), "\(typo)")
        #expect(typo.errorOutput.contains("hint: Did you mean 'schema.enum'?"), "\(typo)")
    }
}
