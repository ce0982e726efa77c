import Foundation
import Testing
import WalletOrdersTestSupport

/// Each way a build can fail, end to end: exit status and what stderr says.
@Suite(.temporaryFolder) struct FailureEndToEndTests {
    /// Runs `build Samples/shipped-ecommerce --out TMP/x.order` plus `arguments`; checks that no archive was written.
    static func failingBuild(
        _ arguments: [String], source: String = Repository.shippedEcommerce.path, environment: [String: String] = [:]
    ) async throws -> ProgramResult {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let out = folder.file("x.order")
        let result = try await CLI.run(["build", source, "--out", out.path] + arguments, environment: environment)
        #expect(!FileManager.default.fileExists(atPath: out.path), "an archive was written despite: \(result)")
        return result
    }

    @Test("A source folder that doesn't exist: exit 1 and an error line")
    func missingSource() async throws {
        let certs = try await SharedFixtures.certs.get()
        let missing = "/nonexistent/wallet-orders-source-\(UUID().uuidString)"
        let result = try await Self.failingBuild(certs.signingArguments, source: missing)
        #expect(result.status == 1, "\(result)")
        let lines = result.errorOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "error: '\(missing)' is not a folder.")
        #expect(lines.contains("hint: Pass the folder that holds order.json, its images and its .lproj folders."))
        #expect(result.output == "")
    }

    @Test("A key that doesn't belong to the certificate: exit 1, 'does not belong'")
    func keyMismatch() async throws {
        let certs = try await SharedFixtures.certs.get()
        let other = try await SharedFixtures.otherCerts.get()
        let result = try await Self.failingBuild([
            "--cert", certs.certificate.path, "--key", other.key.path, "--wwdr", certs.wwdr.path,
        ])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorOutput.hasPrefix("error: The private key does not belong to the certificate '"), "\(result)")
        #expect(result.errorOutput.contains("UID=\(Repository.shippedOrderTypeIdentifier)"))
        #expect(result.errorOutput.contains("\nhint: "))
    }

    @Test("An intermediate with the right name but another key: exit 1, named as such")
    func wrongIntermediate() async throws {
        let certs = try await SharedFixtures.certs.get()
        let other = try await SharedFixtures.otherCerts.get()
        let result = try await Self.failingBuild([
            "--cert", certs.certificate.path, "--key", certs.key.path, "--wwdr", other.wwdr.path,
        ])
        #expect(result.status == 1, "\(result)")
        let issuer =
            "CN=wallet-orders Development WWDR Intermediate (TEST ONLY), OU=G4, O=wallet-orders TEST ONLY, C=US"
        let error = try #require(result.errorOutput.split(separator: "\n").first)
        #expect(
            error
                == "error: The intermediate '\(issuer)' has the right name but not the key that signed the signing certificate."
        )
        #expect(result.errorOutput.contains("hint: Two different CAs carry this name"))
    }

    @Test("A wrong .p12 passphrase: exit 1 and a message about the passphrase")
    func wrongPassphrase() async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await Self.failingBuild(
            ["--p12", certs.p12.path, "--passphrase-env", "WRONG_P12_PASS"],
            environment: ["WRONG_P12_PASS": "not the passphrase"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.hasPrefix("error: The passphrase does not open the .p12 file.\n"))
        #expect(
            result.errorOutput.contains(
                "hint: Use the passphrase chosen when exporting from Keychain Access (it may be empty)."))
    }

    @Test("--passphrase-env naming an unset variable: exit 1, the variable named")
    func unsetPassphraseVariable() async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await Self.failingBuild([
            "--p12", certs.p12.path, "--passphrase-env", "WALLET_ORDERS_TEST_UNSET_VARIABLE",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorOutput.hasPrefix(
                "error: The environment variable WALLET_ORDERS_TEST_UNSET_VARIABLE that should hold the passphrase is not set.\n"
            ))
    }

    @Test("A .p12 without a passphrase flag and no terminal to ask on: exit 1 with a hint")
    func noTerminalForPassphrase() async throws {
        let certs = try await SharedFixtures.certs.get()
        let binary = try WalletOrdersBinary.url()
        let folder = try TemporaryFolder.ofTest
        // setsid(1) detaches from any controlling terminal, so /dev/tty can't be opened.
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/setsid"),
            [
                "-w", binary.path, "build", Repository.shippedEcommerce.path, "--out",
                folder.file("x.order").path,
                "--p12", certs.p12.path,
            ],
            environment: CLI.environment([:]))
        let errorOutput = result.errorOutput
        #expect(result.status == 1, "\(errorOutput)")
        #expect(result.standardOutput.isEmpty)
        #expect(
            errorOutput
                == "error: A passphrase is needed for the .p12 file '\(certs.p12.path)' and there is no terminal to ask on.\nhint: Give it with --passphrase-env NAME or --passphrase-file FILE.\n"
        )
    }

    @Test("A signing time before the certificate is valid: exit 1, 'is not valid until'")
    func signingTimeOutsideValidity() async throws {
        let certs = try await SharedFixtures.certs.get()
        // dev-certs certificates are valid from 2020-01-01T00:00:00Z.
        let result = try await Self.failingBuild(["--signing-time", "2019-12-31T23:59:59Z"] + certs.signingArguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.hasPrefix("error: The signing certificate '"), "\(result)")
        #expect(result.errorOutput.contains("UID=\(Repository.shippedOrderTypeIdentifier)"))
        #expect(result.errorOutput.contains("is not valid until"))
        #expect(result.errorOutput.contains("hint: Check the machine's clock, or the signing time you asked for."))
    }

    @Test("A bad --signing-time: exit 64 with the usage message")
    func badSigningTime() async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await Self.failingBuild(["--signing-time", "next thursday"] + certs.signingArguments)
        #expect(result.status == 64, "\(result)")
        #expect(
            result.errorOutput.contains(
                "--signing-time 'next thursday' is neither an RFC 3339 date-time (2026-01-31T12:00:00Z) nor Unix seconds."
            ))
    }

    @Test("An unknown flag: exit 64 and the flag named")
    func unknownFlag() async throws {
        let result = try await CLI.run(["verify", "x.order", "--frobnicate"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.hasPrefix("error: Unknown option '--frobnicate'"), "\(result)")
        #expect(result.errorOutput.contains("hint: `wallet-orders verify --help` lists the arguments and options"))
        #expect(result.output == "")
    }

    @Test("--cert without --key from the command line: exit 64")
    func certWithoutKey() async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await Self.failingBuild(["--cert", certs.certificate.path])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.contains("error: --cert needs --key (the certificate's private key)."), "\(result)")
    }
}

@Suite(.temporaryFolder) struct DemoEndToEndTests {
    @Test("demo builds, signs and verifies every sample and prints a table")
    func demo() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(["demo", "--samples", Repository.samples.path, "--out", folder.url.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("sample ") })
        #expect(lines[header].contains("signed by"))
        #expect(lines[header].contains("verdict"))
        let sampleNames = ["localized", "returns-and-transactions", "shipped-ecommerce", "store-pickup"]
        let rows = lines[(header + 2)...].prefix(sampleNames.count)
        #expect(rows.map { String($0.prefix { $0 != " " }) } == sampleNames)
        for row in rows {
            #expect(row.hasSuffix("  verified"), "\(row)")
            #expect(row.contains("  added  "), "saved through the intake: \(row)")
        }
        #expect(result.output.contains("order.com.northwindoutfitters.shop"))
        #expect(!result.output.contains("FAILED"))
        for name in sampleNames {
            let archive = folder.file("\(name).order")
            #expect(try Data(contentsOf: archive).starts(with: Array("PK".utf8)), "\(name)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.file("root-ca.pem").path))
        #expect(
            result.output.contains(
                "wallet-orders verify \(folder.url.path)/*.order --trust-root \(folder.url.path)/root-ca.pem"))
    }

    @Test("demo takes each sample in through the intake: a sample with an error is refused before signing, and nothing of it is written")
    func demoRefusesBeforeSigning() async throws {
        let folder = try TemporaryFolder.ofTest
        let samples = folder.file("samples")
        try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Repository.sample("store-pickup"), to: samples.appendingPathComponent("broken"))
        let orderJSON = samples.appendingPathComponent("broken/order.json")
        let text = try String(contentsOf: orderJSON, encoding: .utf8)
        try text.replacingOccurrences(of: #""status": "open""#, with: #""status": "opne""#).write(to: orderJSON, atomically: true, encoding: .utf8)
        let result = try await CLI.run(["demo", "--samples", samples.path, "--out", folder.file("out").path])
        #expect(result.status == 1, "\(result)")
        let row = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("broken ") })
        #expect(row.contains("REFUSED:"), "\(row)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/broken.order").path))
        #expect(!result.output.contains("contains(matching:updatedDate:)"), "no store questions after a refusal")
    }

    @Test("demo without samples fails with a hint")
    func demoWithoutSamples() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(["demo", "--samples", folder.url.path, "--out", folder.file("out").path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorOutput
                == "error: No sample folders with an order.json in '\(folder.url.path)'.\nhint: Run from the repository root, or pass --samples DIR.\n"
        )
    }
}

@Suite("The tool adds its flags to the library's hints", .temporaryFolder)
struct CLIHintEndToEndTests {
    @Test("verify and validate of a dev-certs archive without --trust-root: the hint says to pass it; the library's part names no flag")
    func trustRootHint() async throws {
        let archive = try await SharedFixtures.archive.get()
        for command in ["verify", "validate"] {
            let result = try await CLI.run([command, archive.path])
            #expect(result.status == 1, "\(result)")
            let text = result.output + result.errorOutput
            #expect(text.contains("certificate.untrusted"), "\(command): \(text)")
            #expect(text.contains("trusted explicitly. For development certificates pass --trust-root root-ca.pem."), "\(command): \(text)")
        }
    }
}
