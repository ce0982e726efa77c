import ArgumentParser
import Foundation
import Testing
import WalletOrdersTestSupport
import wallet_orders

@Suite struct ParsingTests {
    @Test("build parses the source, output, --cert/--key/--wwdr, signing time and flags")
    func buildWithCertificateAndKey() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot([
            "build", "Samples/store-pickup", "--out", "pickup.order", "--cert", "order-type.pem", "--key",
            "order-type.key.pem", "--wwdr", "AppleWWDRCAG4.cer", "--signing-time", "2026-01-31T12:00:00Z", "--json",
            "--verbose",
        ])
        let build = try #require(parsed as? BuildCommand)
        #expect(build.source == "Samples/store-pickup")
        #expect(build.out == "pickup.order")
        #expect(build.signing.certificate == "order-type.pem")
        #expect(build.signing.privateKey == "order-type.key.pem")
        #expect(build.signing.intermediate == "AppleWWDRCAG4.cer")
        #expect(build.signing.pkcs12 == nil)
        #expect(build.signing.passphraseEnvironmentVariable == nil)
        #expect(build.signing.passphraseFile == nil)
        #expect(build.signingTime == "2026-01-31T12:00:00Z")
        #expect(build.json)
        #expect(build.verbose)
        #expect(build.compression == .deflate)
    }

    @Test("build parses --compression store, and refuses an unknown method")
    func buildCompression() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot(["build", "src", "-o", "a.order", "--compression", "store", "--p12", "x.p12"])
        #expect(try #require(parsed as? BuildCommand).compression == .store)
        #expect(throws: (any Error).self) {
            try WalletOrdersCommand.parseAsRoot(["build", "src", "-o", "a.order", "--compression", "zstd", "--p12", "x.p12"])
        }
    }

    @Test("build parses -o, --p12 and --passphrase-env, with flags off by default")
    func buildWithPKCS12() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot([
            "build", "my-order", "-o", "my.order", "--p12", "OrderTypeID.p12", "--passphrase-env", "ORDER_P12_PASS",
        ])
        let build = try #require(parsed as? BuildCommand)
        #expect(build.source == "my-order")
        #expect(build.out == "my.order")
        #expect(build.signing.pkcs12 == "OrderTypeID.p12")
        #expect(build.signing.passphraseEnvironmentVariable == "ORDER_P12_PASS")
        #expect(
            build.signing.certificate == nil && build.signing.privateKey == nil && build.signing.intermediate == nil)
        #expect(build.signingTime == nil)
        #expect(!build.json && !build.verbose)
    }

    @Test("build parses --passphrase-file for an encrypted key")
    func buildWithPassphraseFile() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot([
            "build", "src", "--out", "o.order", "--cert", "c.pem", "--key", "k.pem", "--passphrase-file", "pass.txt",
        ])
        let build = try #require(parsed as? BuildCommand)
        #expect(build.signing.passphraseFile == "pass.txt")
        #expect(build.signing.passphraseEnvironmentVariable == nil)
    }

    @Test("verify parses several archives, repeated --trust-root and --json")
    func verify() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot([
            "verify", "a.order", "b.order", "--trust-root", "root-1.pem", "--trust-root", "root-2.der", "--json",
        ])
        let verify = try #require(parsed as? VerifyCommand)
        #expect(verify.archives == ["a.order", "b.order"])
        #expect(verify.trustRoots == ["root-1.pem", "root-2.der"])
        #expect(verify.json)
    }

    @Test("verify defaults to no extra trust roots and text output")
    func verifyDefaults() throws {
        let verify = try #require(try WalletOrdersCommand.parseAsRoot(["verify", "a.order"]) as? VerifyCommand)
        #expect(verify.archives == ["a.order"])
        #expect(verify.trustRoots == [])
        #expect(!verify.json)
    }

    @Test("inspect parses the archive and --json")
    func inspect() throws {
        let inspect = try #require(
            try WalletOrdersCommand.parseAsRoot(["inspect", "x.order", "--json"]) as? InspectCommand)
        #expect(inspect.paths == ["x.order"])
        #expect(inspect.json)
        let plain = try #require(try WalletOrdersCommand.parseAsRoot(["inspect", "y.order"]) as? InspectCommand)
        #expect(plain.paths == ["y.order"])
        #expect(!plain.json)
    }

    @Test("dev-certs parses its identifiers, folder, passphrase variable and --force")
    func devCerts() throws {
        let parsed = try WalletOrdersCommand.parseAsRoot([
            "dev-certs", "--order-type-id", "order.com.example.shop", "--team-id", "ABCDE12345", "--out", "certs",
            "--p12-passphrase-env", "P12_PASS", "--force",
        ])
        let devCerts = try #require(parsed as? DevCertsCommand)
        #expect(devCerts.orderTypeIdentifiers == ["order.com.example.shop"])
        #expect(devCerts.teamIdentifier == "ABCDE12345")
        #expect(devCerts.out == "certs")
        #expect(devCerts.p12PassphraseEnvironmentVariable == "P12_PASS")
        #expect(devCerts.force)
        #expect(
            DevCertsCommand.fileNames == [
                "root-ca.pem", "wwdr-intermediate.pem", "order-type.pem", "order-type.key.pem", "order-type.p12",
                "README.txt",
            ])
    }

    @Test("demo parses --samples and --out, defaulting to Samples and a new temporary folder")
    func demo() throws {
        let demo = try #require(
            try WalletOrdersCommand.parseAsRoot(["demo", "--samples", "S", "--out", "/tmp/demo-out"]) as? DemoCommand)
        #expect(demo.samples == "S")
        #expect(demo.out == "/tmp/demo-out")
        let defaults = try #require(try WalletOrdersCommand.parseAsRoot(["demo"]) as? DemoCommand)
        #expect(defaults.samples == "Samples")
        #expect(defaults.out == nil)
    }

    @Test("--version is a clean exit that prints 0.1.0 first")
    func version() throws {
        let error = try #require(throws: (any Error).self) { try WalletOrdersCommand.parseAsRoot(["--version"]) }
        #expect(WalletOrdersCommand.exitCode(for: error) == ExitCode.success)
        #expect(WalletOrdersCommand.message(for: error).hasPrefix("wallet-orders 0.1.0 ("))
    }

    @Test("The help lists every subcommand and the exit codes")
    func help() throws {
        let help = WalletOrdersCommand.helpMessage(columns: 200)
        for name in ["build", "verify", "inspect", "dev-certs", "demo"] {
            #expect(help.contains("  \(name) "), "\(name) missing from:\n\(help)")
        }
        #expect(help.contains("Exit codes: 0 success, 1 findings or failure, 64 usage error."))
    }

    /// A command line that must be refused as a usage error, and the message it must give.
    struct UsageError: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var message: String
        var testDescription: String { name }
    }

    static let usageErrors: [UsageError] = [
        UsageError(
            name: "build --cert without --key", arguments: ["build", "src", "--out", "o.order", "--cert", "c.pem"],
            message: "--cert needs --key (the certificate's private key)."),
        UsageError(
            name: "build --key without --cert", arguments: ["build", "src", "--out", "o.order", "--key", "k.pem"],
            message: "--key needs --cert (the Order Type ID certificate)."),
        UsageError(
            name: "build --cert/--key with --p12",
            arguments: ["build", "src", "--out", "o.order", "--cert", "c.pem", "--key", "k.pem", "--p12", "i.p12"],
            message: "Give either --cert and --key, or --p12, not both."),
        UsageError(
            name: "build --cert with --p12",
            arguments: ["build", "src", "--out", "o.order", "--cert", "c.pem", "--p12", "i.p12"],
            message: "Give either --cert and --key, or --p12, not both."),
        UsageError(
            name: "build without any identity", arguments: ["build", "src", "--out", "o.order"],
            message:
                "Missing signing identity: give --cert and --key, or --p12 (try `wallet-orders dev-certs` for test ones)."
        ),
        UsageError(
            name: "build --passphrase-env with --passphrase-file",
            arguments: [
                "build", "src", "--out", "o.order", "--p12", "i.p12", "--passphrase-env", "P", "--passphrase-file", "f",
            ],
            message: "Give the passphrase with --passphrase-env or --passphrase-file, not both."),
        UsageError(
            name: "build without --out", arguments: ["build", "src", "--p12", "i.p12"],
            message: "Missing expected argument '--out <file.order>'"),
        UsageError(
            name: "verify without archives", arguments: ["verify"],
            message: "Missing expected argument '<path> ...'"),
        UsageError(
            name: "verify with only a trust root", arguments: ["verify", "--trust-root", "root.pem"],
            message: "Missing expected argument '<path> ...'"),
        UsageError(
            name: "dev-certs with an empty order type id",
            arguments: ["dev-certs", "--order-type-id", "", "--team-id", "T", "--out", "d"],
            message: "--order-type-id must not be empty."),
        UsageError(
            name: "dev-certs with an empty team id",
            arguments: ["dev-certs", "--order-type-id", "order.com.x", "--team-id", "", "--out", "d"],
            message: "--team-id must not be empty."),
        UsageError(
            name: "inspect without an archive", arguments: ["inspect"],
            message: "Missing expected argument '<path> ...'"),
        UsageError(
            name: "dev-certs with two order type ids",
            arguments: ["dev-certs", "--order-type-id", "order.com.a", "--order-type-id", "order.com.b", "--team-id", "T", "--out", "d"],
            message: "--order-type-id was given 2 times (order.com.a, order.com.b); one certificate has one order type identifier."),
        UsageError(
            name: "an unknown flag", arguments: ["verify", "a.order", "--frobnicate"],
            message: "Unknown option '--frobnicate'"),
        UsageError(
            name: "an unknown subcommand", arguments: ["sign", "x"], message: "2 unexpected arguments: 'sign', 'x'"),
    ]

    @Test("Usage errors exit with 64 and say what is wrong", arguments: usageErrors)
    func usageError(_ testCase: UsageError) throws {
        let error = try #require(throws: (any Error).self) { try WalletOrdersCommand.parseAsRoot(testCase.arguments) }
        #expect(WalletOrdersCommand.exitCode(for: error) == ExitCode(64))
        #expect(WalletOrdersCommand.exitCode(for: error) == ExitCode.validationFailure)
        let message = WalletOrdersCommand.message(for: error)
        #expect(message.contains(testCase.message), "got: \(message)")
    }

    static let badSigningTimes = ["yesterday", "2026-13-01T00:00:00Z", "2026-01-31 12:00:00", "12.5", ""]

    @Test("A bad --signing-time is refused while parsing, as a usage error of build", arguments: badSigningTimes)
    func badSigningTime(_ text: String) throws {
        let error = try #require(throws: (any Error).self) {
            try WalletOrdersCommand.parseAsRoot([
                "build", "src", "--out", "o.order", "--cert", "c.pem", "--key", "k.pem", "--signing-time", text,
            ])
        }
        #expect(WalletOrdersCommand.exitCode(for: error) == ExitCode(64))
        #expect(
            WalletOrdersCommand.message(for: error)
                == "--signing-time '\(text)' is neither an RFC 3339 date-time (2026-01-31T12:00:00Z) nor Unix seconds.")
    }

    static let goodSigningTimes: [(text: String, seconds: TimeInterval)] = [
        ("2026-01-31T12:00:00Z", 1_769_860_800),
        ("2026-01-31T13:00:00+01:00", 1_769_860_800),
        ("1769860800", 1_769_860_800),
        ("0", 0),
    ]

    @Test("--signing-time accepts RFC 3339 and Unix seconds", arguments: goodSigningTimes.indices)
    func goodSigningTime(index: Int) throws {
        let (text, seconds) = Self.goodSigningTimes[index]
        #expect(SigningTime.parse(text) == Date(timeIntervalSince1970: seconds))
        #expect(try SigningTime.resolve(text) == Date(timeIntervalSince1970: seconds))
    }
}

/// A long list of paths is handed to the command after parsing (argument-parser's cost is
/// quadratic in it): the command must come out as the parser alone makes it.
@Suite struct PathListParsingTests {
    static let paths = (0..<300).map { "out/archive-\($0).order" }

    @Test(
        "A long list of paths parses to the command the parser alone gives, whatever precedes it",
        arguments: [
            ["validate"] + paths,
            ["validate", "--trust-root", "root.pem"] + paths,
            ["validate", "--strict"] + paths,
            ["validate", "first.order", "--format", "json", "--jobs", "2"] + paths,
            ["verify", "--trust-root", "root.pem"] + paths,
            ["inspect", "--json"] + paths,
            ["store", "save"] + paths,
            ["store", "save", "--store", "orders.sqlite"] + paths,
        ])
    func sameCommand(_ arguments: [String]) throws {
        let (parsed, trailing) = PathListArguments.split(arguments)
        #expect(trailing.count > PathListArguments.threshold, "the list is split off")
        #expect(parsed + trailing == arguments)
        let fast = try WalletOrdersCommand.parseAsRoot(arguments: arguments)
        let plain = try WalletOrdersCommand.parseAsRoot(arguments)
        #expect(type(of: fast) == type(of: plain))
        #expect((fast as? any PathListCommand)?.pathList == (plain as? any PathListCommand)?.pathList)
        #expect((fast as? any PathListCommand)?.pathList.suffix(Self.paths.count) == ArraySlice(Self.paths))
        #expect(String(reflecting: fast) == String(reflecting: plain))
    }

    @Test("A short list, a list after --, and a command that takes no paths go through the parser as they are")
    func leftAlone() throws {
        let short = ["validate"] + Self.paths.prefix(PathListArguments.threshold)
        #expect(PathListArguments.split(short).trailing.isEmpty)
        let terminated = ["validate", "--"] + Self.paths
        #expect(PathListArguments.split(terminated).trailing.isEmpty)
        let rules = ["rules"] + (0..<100).map { _ in "schema" }
        let parsed = try WalletOrdersCommand.parseAsRoot(arguments: rules)
        #expect(String(reflecting: parsed) == String(reflecting: try WalletOrdersCommand.parseAsRoot(rules)))
    }
}
