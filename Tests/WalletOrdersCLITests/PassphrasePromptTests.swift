import Foundation
import Testing
import WalletOrdersTestSupport

/// The interactive passphrase prompt, driven on a real pseudo-terminal by Python's pexpect.
@Suite(.temporaryFolder) struct PassphrasePromptTests {
    static let script = """
        import pexpect, sys
        binary, key, answer = sys.argv[1], sys.argv[2], sys.argv[3]
        child = pexpect.spawn(binary, sys.argv[4:], env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, timeout=60)
        child.expect_exact("Passphrase for private key '" + key + "': ")
        child.sendline(answer)
        child.expect(pexpect.EOF)
        output = child.before.decode()
        child.close()
        assert answer not in output, "the passphrase was echoed"
        print(child.exitstatus)
        print(output.strip())
        """

    @Test("An encrypted key without a passphrase flag prompts on the terminal; right and wrong answers", arguments: [true, false])
    func prompt(rightAnswer: Bool) async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let encrypted = folder.file("encrypted.pem")
        let made = try await ExternalProgram.run(
            tool: "openssl", ["pkey", "-in", certs.key.path, "-aes256", "-passout", "pass:s3cret-phrase", "-out", encrypted.path])
        try #require(made.status == 0, "\(made)")
        let out = folder.file("prompted.order")
        let result = try await ExternalProgram.python(
            Self.script,
            [
                try WalletOrdersBinary.url().path, encrypted.path, rightAnswer ? "s3cret-phrase" : "not-it", "build",
                Repository.shippedEcommerce.path, "--out", out.path, "--cert", certs.certificate.path, "--key", encrypted.path,
                "--wwdr", certs.wwdr.path,
            ])
        #expect(result.status == 0, "\(result)")
        // A pseudo-terminal ends lines with CR LF.
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if rightAnswer {
            #expect(lines.first == "0")
            #expect(lines.dropFirst().first?.hasPrefix("built \(out.path)") == true, "\(lines)")
        } else {
            #expect(lines.first == "1")
            #expect(lines.contains { $0.hasPrefix("error: The passphrase does not decrypt the private key.") }, "\(lines)")
        }
    }
}

/// `store save --confirm`, answered on a real pseudo-terminal by Python's pexpect.
@Suite(.temporaryFolder) struct StoreConfirmPromptTests {
    static let script = """
        import pexpect, sys
        binary, question, answer = sys.argv[1], sys.argv[2], sys.argv[3]
        child = pexpect.spawn(binary, sys.argv[4:], env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, timeout=60)
        child.expect_exact(question)
        child.sendline(answer)
        child.expect(pexpect.EOF)
        output = child.before.decode()
        child.close()
        print(child.exitstatus)
        print(output.strip())
        """

    @Test("--confirm shows what would change; 'n' gives cancelled and changes nothing, 'y' saves")
    func confirm() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let older = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let newer = try await StoreFixtures.archive(updatedAt: "2025-11-22T00:00:00Z")
        #expect(try await store.save([older]).result.status == 0)
        let id = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let question = "Replace \(id) (stored updatedAt 2025-11-21T00:00:00Z) with the version of 2025-11-22T00:00:00Z? [y/N] "
        func run(_ answer: String) async throws -> [String] {
            let result = try await ExternalProgram.python(
                Self.script,
                [try WalletOrdersBinary.url().path, question, answer, "store", "save", newer.path, "--confirm", "--store", store.url.path]
                    + (try StoreFixtures.trustArguments()))
            #expect(result.status == 0, "\(result)")
            // A pseudo-terminal ends lines with CR LF, a single Character in Swift.
            return result.output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let declined = try await run("n")
        #expect(declined.first == "0")
        #expect(declined.contains { $0.hasPrefix("cancelled  \(id) (updatedAt 2025-11-22T00:00:00Z)") }, "\(declined)")
        await #expect(
            try store.run(
                "contains", [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier, "--updated-date", "2025-11-21T00:00:00Z"]
            ).status == 0)

        let accepted = try await run("y")
        #expect(accepted.first == "0")
        #expect(accepted.contains { $0.hasPrefix("added  \(id) (updatedAt 2025-11-22T00:00:00Z)") }, "\(accepted)")
        await #expect(
            try store.run(
                "contains", [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier, "--updated-date", "2025-11-22T00:00:00Z"]
            ).status == 0)

        let noTerminal = try await store.run("save", [newer.path, "--confirm"])
        #expect(noTerminal.status == 64)
        #expect(noTerminal.errorOutput.contains("--confirm asks on the terminal"))
    }
}
