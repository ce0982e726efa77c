import Foundation
import Testing
import WalletOrdersTestSupport

/// The store commands' traps for a newcomer (issue 14): every command run as a user would.
@Suite(.temporaryFolder) struct StoreQuestionsEndToEndTests {
    @Test("list --status opne is refused with the valid statuses and a suggestion")
    func badStatus() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let result = try await store.run("list", ["--status", "opne"])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.errorOutput.contains(
                "error: --status 'opne' is not an order status; the statuses are open, completed, cancelled. Did you mean 'open'?"),
            "\(result)")
    }

    @Test("history --limit without a token is refused; --token-file reads and writes the token, stdout holds only changes")
    func historyTokens() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try await ["H-1", "H-2"].asyncMap { try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: $0) }
        await #expect(try store.save([archives[0]]).result.status == 0)
        let limited = try await store.run("history", ["--limit", "1"])
        #expect(limited.status == 64, "\(limited)")
        #expect(limited.errorOutput.contains("error: --limit needs a token"), "\(limited)")
        #expect(limited.errorOutput.contains("store list --limit N"), "\(limited)")

        let tokenFile = store.folder.file("last-token")
        let first = try await store.run("history", ["--token-file", tokenFile.path])
        #expect(first.status == 0, "\(first)")
        #expect(first.output == "+ \(Repository.shippedOrderTypeIdentifier)/H-1\n")
        #expect(first.errorOutput == "store: \(store.url.path)\n", "the store, and no token: it is in the file: \(first)")
        let saved = try String(contentsOf: tokenFile, encoding: .utf8)
        #expect(!saved.isEmpty)
        await #expect(try store.save([archives[1]]).result.status == 0)
        let second = try await store.run("history", ["--token-file", tokenFile.path, "--limit", "10"])
        #expect(second.status == 0, "\(second)")
        #expect(second.output == "+ \(Repository.shippedOrderTypeIdentifier)/H-2\n", "only what changed since the saved token")
        #expect(try String(contentsOf: tokenFile, encoding: .utf8) != saved)
    }

    @Test("--trust-root is offered by store save only", arguments: ["contains", "get", "list", "delete", "history", "compact-history"])
    func trustRootOnlyOnSave(subcommand: String) async throws {
        let help = try await CLI.run(["store", subcommand, "--help"])
        #expect(help.status == 0)
        #expect(!help.output.contains("--trust-root"), "\(subcommand): \(help.output)")
        let save = try await CLI.run(["store", "save", "--help"])
        #expect(save.output.contains("--trust-root"))
    }

    @Test("Questions on a missing default store answer as an empty store, say so, and create nothing")
    func missingDefaultStoreStaysMissing() async throws {
        let folder = try TemporaryFolder.ofTest
        let xdg = folder.file("xdg")
        let environment = ["XDG_DATA_HOME": xdg.path, "WALLET_ORDERS_STORE": ""]
        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let store = "store: \(xdg.path)/wallet-orders/orders.sqlite (not created yet, so empty)"
        let runs: [([String], Int32, String, String)] = [
            (["store", "contains", order], 10, "\(store)\nnotFound\n", ""),
            (["store", "get", order], 10, "", "(not created yet, so empty)."),
            (["store", "list"], 0, "\(store)\nNo stored orders match.\n", ""),
            (["store", "delete", order], 10, "", "(not created yet, so empty); nothing was deleted."),
            (["store", "history"], 0, "", "\(store): no changes and no token\n"),
            (["store", "compact-history", "--keep", "0"], 0, "\(store)\nRemoved 0 log entries.\n", ""),
        ]
        for (arguments, status, output, errorOutput) in runs {
            let result = try await CLI.run(arguments, environment: environment)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.output == output, "\(arguments): \(result)")
            #expect(errorOutput.isEmpty ? result.errorOutput.isEmpty : result.errorOutput.contains(errorOutput), "\(arguments): \(result)")
        }
        let json = try await CLI.run(["store", "history", "--json"], environment: environment)
        let history = try #require(try parseJSON(json.standardOutput) as? [String: Any])
        #expect(history["store"] as? String == "\(xdg.path)/wallet-orders/orders.sqlite" && history["storeExists"] as? Bool == false)
        #expect(history["newToken"] is NSNull && (history["inserted"] as? [Any])?.isEmpty == true, "\(history)")
        #expect(!FileManager.default.fileExists(atPath: xdg.path), "a question created \(xdg.path)")
    }

    /// Every command that doesn't save, with a store path that names nothing.
    static let nonSavingCommands: [[String]] = [
        ["contains", "order.com.example.shop/ORDER-1"], ["get", "order.com.example.shop/ORDER-1"], ["list"], ["history"],
        ["delete", "order.com.example.shop/ORDER-1"], ["compact-history", "--keep", "0"],
    ]

    @Test(
        "A mistyped store (--store or WALLET_ORDERS_STORE) is refused with its path and a hint, and nothing is created",
        arguments: nonSavingCommands)
    func mistypedStoreIsRefused(command: [String]) async throws {
        let folder = try TemporaryFolder.ofTest
        let typo = folder.file("ordres.sqlite").path
        let viaOption = try await CLI.run(["store"] + command + ["--store", typo], environment: ["WALLET_ORDERS_STORE": ""])
        #expect(viaOption.status == 1, "\(viaOption)")
        #expect(viaOption.output == "", "\(viaOption)")
        #expect(
            viaOption.errorOutput == """
                error: There is no store at '\(typo)' (given with --store); nothing was created.
                hint: Check the path; only `wallet-orders store save` creates a store.

                """)
        let viaEnvironment = try await CLI.run(["store"] + command, environment: ["WALLET_ORDERS_STORE": typo])
        #expect(viaEnvironment.status == 1, "\(viaEnvironment)")
        #expect(
            viaEnvironment.errorOutput == """
                error: There is no store at '\(typo)' (named by WALLET_ORDERS_STORE); nothing was created.
                hint: Check WALLET_ORDERS_STORE; only `wallet-orders store save` creates a store.

                """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "something was created")
    }

    @Test("store save of an archive signed with development certificates, without --trust-root, gives validate's hint")
    func saveUntrustedGivesTrustRootHint() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let saved = try await store.run("save", [archive.path])
        #expect(saved.status == 1, "\(saved)")
        #expect(saved.errorOutput.contains("certificate.untrusted: "), "\(saved)")
        #expect(
            saved.errorOutput.contains("hint: Validate the archive for the full report. For development certificates pass --trust-root root-ca.pem."),
            "\(saved)")
        let validated = try await CLI.run(["validate", archive.path])
        #expect(validated.output.contains("For development certificates pass --trust-root root-ca.pem."), "\(validated)")
        let json = try await store.run("save", [archive.path, "--json"])
        let line = try #require(try parseJSON(json.standardOutput) as? [String: Any])
        #expect(((line["error"] as? [String: Any])?["hint"] as? String)?.hasSuffix("pass --trust-root root-ca.pem.") == true, "\(line)")
    }

    @Test("rules RULE-ID explains one rule; a group lists its rules; an unknown id gets a suggestion")
    func explainOneRule() async throws {
        let one = try await CLI.run(["rules", "schema.enum"])
        #expect(one.status == 0, "\(one)")
        let lines = one.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "schema.enum  error", "\(one.output)")
        #expect(lines.last == "1 rule.")
        let json = try await CLI.run(["rules", "schema.enum", "--json"])
        let rules = try #require(try parseJSON(json.standardOutput) as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["schema.enum"])
        let group = try await CLI.run(["rules", "schema", "--json"])
        let groupRules = try #require(try parseJSON(group.standardOutput) as? [[String: Any]])
        #expect(groupRules.count > 1 && groupRules.allSatisfy { ($0["id"] as? String)?.hasPrefix("schema.") == true })
        let typo = try await CLI.run(["rules", "schema.enun"])
        #expect(typo.status == 1, "\(typo)")
        #expect(typo.errorOutput.contains("error: There is no rule 'schema.enun'."), "\(typo)")
        #expect(typo.errorOutput.contains("hint: Did you mean 'schema.enum'?"), "\(typo)")
    }
}
