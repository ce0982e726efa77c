import Foundation
import Testing
import WalletOrdersTestSupport

/// The interactive passphrase prompt, driven on a real pseudo-terminal by Python's pexpect.
@Suite struct PassphrasePromptTests {
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
    func prompt(rightAnswer: Bool) throws {
        let certs = try SharedFixtures.certs.get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let encrypted = folder.file("encrypted.pem")
        let made = try ExternalProgram.run(
            tool: "openssl", ["pkey", "-in", certs.key.path, "-aes256", "-passout", "pass:s3cret-phrase", "-out", encrypted.path])
        try #require(made.status == 0, "\(made)")
        let out = folder.file("prompted.order")
        let result = try ExternalProgram.python(
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
