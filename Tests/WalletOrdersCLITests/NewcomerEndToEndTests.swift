import Foundation
import Testing
import WalletOrdersTestSupport

/// The first hour of a new user, run as they would run it: the quick start of `wallet-orders
/// --help`, the reproducible-build example, one path grammar for verify/inspect/validate,
/// quiet validation, usage errors in the tool's own form, and help text that fits 80 columns.
@Suite(.temporaryFolder) struct NewcomerEndToEndTests {
    /// The commands under "Try it without an Apple account:" in `wallet-orders --help`, with
    /// `\` continuations joined, as a user would paste them.
    static func quickStartCommands() async throws -> [[String]] {
        let help = try await CLI.run(["--help"], environment: ["COLUMNS": "80"])
        try #require(help.status == 0, "\(help)")
        let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.contains("Try it without an Apple account:") })
        var commands: [String] = []
        var pending = ""
        for line in lines[(start + 1)...] {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || !(text.hasPrefix("wallet-orders") || !pending.isEmpty) { break }
            if text.hasSuffix("\\") {
                pending += text.dropLast() + " "
            } else {
                commands.append(pending + text)
                pending = ""
            }
        }
        return commands.map { $0.split(separator: " ").map(String.init) }
    }

    @Test("The quick start of `wallet-orders --help` runs clean as written: no warning, verify says OK")
    func quickStartRunsClean() async throws {
        let commands = try await Self.quickStartCommands().filter { $0 != ["wallet-orders", "demo"] }
        #expect(commands.count >= 4, "\(commands)")
        let folder = try TemporaryFolder.ofTest
        try FileManager.default.createSymbolicLink(at: folder.file("Samples"), withDestinationURL: Repository.samples)
        let environment = ["XDG_DATA_HOME": folder.file("data").path, "WALLET_ORDERS_STORE": ""]
        for command in commands {
            #expect(command.first == "wallet-orders")
            let result = try await CLI.run(Array(command.dropFirst()), environment: environment, in: folder.url)
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result)")
            #expect(!(result.output + result.errorOutput).lowercased().contains("warning:"), "\(result)")
            #expect(!result.output.contains("with warnings"), "\(result)")
            if command.dropFirst().first == "verify" {
                #expect(result.output.contains("order.order: OK (0 errors, 0 warnings)"), "\(result)")
            }
        }
    }

    @Test("dev-certs takes the order type identifier from a source folder or its order.json")
    func devCertsFromSource() async throws {
        let folder = try TemporaryFolder.ofTest
        for (index, value) in [Repository.shippedEcommerce.path, Repository.shippedEcommerce.path + "/order.json"].enumerated() {
            let result = try await CLI.run([
                "dev-certs", "--order-type-id", value, "--team-id", "ABCDE12345", "--out", folder.file("certs-\(index)").path,
            ])
            #expect(result.status == 0, "\(result)")
            #expect(result.output.hasPrefix("wrote TEST-ONLY certificates for \(Repository.shippedOrderTypeIdentifier) (team ABCDE12345)"))
        }
        let missing = try await CLI.run(["dev-certs", "--order-type-id", "no/such/folder", "--team-id", "T", "--out", folder.file("x").path])
        #expect(missing.status == 1)
        #expect(missing.errorOutput.contains("error: 'no/such/folder' does not exist."), "\(missing)")
    }

    @Test("The README's reproducible build (--signing-time 2026-01-31T12:00:00Z) works with fresh dev-certs, twice byte-identical")
    func reproducibleBuildWithFreshCertificates() async throws {
        let folder = try TemporaryFolder.ofTest
        let certs = folder.file("certs")
        let made = try await CLI.run([
            "dev-certs", "--order-type-id", Repository.shippedEcommerce.path, "--team-id", "ABCDE12345", "--out", certs.path,
        ])
        try #require(made.status == 0, "\(made)")
        let signing = DevCertsFolder(directory: certs).signingArguments
        var archives: [Data] = []
        for name in ["a.order", "b.order"] {
            let built = try await CLI.run(
                ["build", Repository.shippedEcommerce.path, "--out", folder.file(name).path, "--signing-time", "2026-01-31T12:00:00Z"]
                    + signing)
            #expect(built.status == 0, "\(built)")
            archives.append(try Data(contentsOf: folder.file(name)))
        }
        #expect(archives[0] == archives[1])
        let verified = try await CLI.run(["verify", folder.file("a.order").path, "--trust-root", certs.appendingPathComponent("root-ca.pem").path])
        #expect(verified.status == 0 && verified.output.contains("OK (0 errors, 0 warnings)"), "\(verified)")
        let epoch = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", folder.file("c.order").path] + signing,
            environment: ["SOURCE_DATE_EPOCH": "1769860800"])
        #expect(epoch.status == 0, "\(epoch)")
        #expect(try Data(contentsOf: folder.file("c.order")) == archives[0])
    }

    /// A folder holding the shared archive under two names.
    static func archiveFolder(_ folder: TemporaryFolder) async throws -> URL {
        let archive = try await SharedFixtures.archive.get()
        let archives = folder.file("out")
        try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
        for name in ["a.order", "b.order"] {
            try FileManager.default.copyItem(at: archive, to: archives.appendingPathComponent(name))
        }
        return archives
    }

    @Test(
        "verify, inspect and validate take the same paths: a folder, a quoted glob; one error for a missing path",
        arguments: ["verify", "inspect", "validate"])
    func onePathGrammar(command: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let archives = try await Self.archiveFolder(folder)
        let root = try await SharedFixtures.certs.get().rootCA.path
        let trust = command == "inspect" ? [] : ["--trust-root", root]
        for path in [archives.path, archives.path + "/*.order"] {
            let result = try await CLI.run([command, path] + trust)
            #expect(result.status == 0, "\(command) \(path): \(result)")
            #expect(result.output.contains(archives.path + "/a.order"), "\(result)")
            #expect(result.output.contains(archives.path + "/b.order"), "\(result)")
        }
        let missing = folder.file("no-such.order").path
        let result = try await CLI.run([command, missing] + trust)
        #expect(result.status == 1, "\(result)")
        #expect((result.output + result.errorOutput).contains("'\(missing)' does not exist."), "\(result)")
        #expect((result.output + result.errorOutput).contains("a quoted glob ('out/*.order')"), "\(result)")
        #expect(!(result.output + result.errorOutput).contains("ermission"), "\(result)")
    }

    @Test("verify --json and validate --format json print one document shape; inspect --json the same header")
    func oneJSONShape() async throws {
        let folder = try TemporaryFolder.ofTest
        let archives = try await Self.archiveFolder(folder)
        let root = try await SharedFixtures.certs.get().rootCA.path
        let verify = try await CLI.run(["verify", archives.path, "--trust-root", root, "--json"])
        let validate = try await CLI.run(["validate", archives.path, "--trust-root", root, "--format", "json"])
        let inspect = try await CLI.run(["inspect", archives.path, "--json"])
        let verifyDocument = try #require(try parseJSON(verify.standardOutput) as? [String: Any])
        let validateDocument = try #require(try parseJSON(validate.standardOutput) as? [String: Any])
        let inspectDocument = try #require(try parseJSON(inspect.standardOutput) as? [String: Any])
        #expect(Set(verifyDocument.keys) == ["version", "tool", "valid", "summary", "reports"])
        #expect(Set(verifyDocument.keys) == Set(validateDocument.keys))
        #expect((verifyDocument["reports"] as? [Any])?.count == 2)
        #expect(inspectDocument["version"] as? Int == 1)
        #expect((inspectDocument["tool"] as? [String: String])?["name"] == "wallet-orders")
        #expect((inspectDocument["archives"] as? [Any])?.count == 2)
        // Checked by a validator we did not write: Python's jsonschema against Schemas/validation-report.schema.json.
        let schema = Repository.root.appendingPathComponent("Schemas/validation-report.schema.json").path
        let report = try folder.write(verify.standardOutput, to: "verify.json")
        let checked = try await ExternalProgram.python(
            "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))",
            [schema, report.path])
        #expect(checked.status == 0, "\(checked)")
    }

    @Test("validate --quiet: clean archives print nothing but the summary; `1 archive`, singular")
    func quietValidation() async throws {
        let folder = try TemporaryFolder.ofTest
        let archives = try await Self.archiveFolder(folder)
        let root = try await SharedFixtures.certs.get().rootCA.path
        let quiet = try await CLI.run(["validate", archives.path, "--trust-root", root, "--quiet"])
        #expect(quiet.status == 0, "\(quiet)")
        let lines = quiet.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(quiet.output)")
        #expect(lines.first?.wholeMatch(of: /2 archives, 2 passed, 0 with errors, 0 with warnings, \d+\.\d archives\/s/) != nil, "\(lines)")
        let one = try await CLI.run(["validate", archives.path + "/a.order", "--trust-root", root, "-q"])
        #expect(one.output.wholeMatch(of: /1 archive, 1 passed, 0 with errors, 0 with warnings, \d+\.\d archives\/s\n/) != nil, "\(one)")
        // --min-severity error hides a warning from the listing; the verdict still counts it.
        let source = try ValidateEndToEndTests.brokenSource("store-pickup", in: folder) {
            $0.replacingOccurrences(of: "\"orderNumber\"", with: "\"ordreNumber\": \"x\",\n  \"orderNumber\"")
        }
        let errorsOnly = try await CLI.run(["validate", source.path, "--min-severity", "error"])
        #expect(errorsOnly.status == 0, "\(errorsOnly)")
        #expect(!errorsOnly.output.contains("warning[schema.unknown-key]"), "\(errorsOnly)")
        #expect(errorsOnly.output.contains("store-pickup: OK (0 errors, 1 warning)"), "\(errorsOnly)")
        let quietWithWarning = try await CLI.run(["validate", source.path, "--quiet"])
        #expect(quietWithWarning.output.contains("warning[schema.unknown-key]"), "\(quietWithWarning)")
        #expect(quietWithWarning.output.contains("1 item, 1 passed, 0 with errors, 1 with warnings"), "\(quietWithWarning)")
    }

    /// A command line a newcomer gets wrong, and what the tool must answer.
    struct Mistake: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: @Sendable (DevCertsFolder, TemporaryFolder) -> [String]
        var status: Int32
        var error: String
        var hint: String
        var testDescription: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "--passphrase",
            arguments: { certs, folder in
                [
                    "build", Repository.shippedEcommerce.path, "--out", folder.file("x.order").path, "--p12", certs.p12.path,
                    "--passphrase", "secret",
                ]
            }, status: 64, error: "error: Unknown option '--passphrase'",
            hint:
                "hint: A passphrase is never taken as an argument (the process list is public): use --passphrase-env NAME or --passphrase-file FILE."),
        Mistake(
            name: "--cert given the private key",
            arguments: { certs, folder in
                [
                    "build", Repository.shippedEcommerce.path, "--out", folder.file("x.order").path, "--cert", certs.key.path,
                    "--key", certs.certificate.path, "--wwdr", certs.wwdr.path,
                ]
            }, status: 1, error: "(given to --cert) is a private key, not a certificate.", hint: "hint: Did you swap --cert and --key?"),
        Mistake(
            name: "--out into a folder that doesn't exist",
            arguments: { certs, _ in
                ["build", Repository.shippedEcommerce.path, "--out", "nodir/x.order"] + certs.signingArguments
            }, status: 1, error: "error: Cannot write 'nodir/x.order': the folder 'nodir' doesn't exist.",
            hint: "hint: Create it first (mkdir -p 'nodir')"),
        Mistake(
            name: "a missing argument", arguments: { _, _ in ["store", "contains"] }, status: 64,
            error: "error: Missing expected argument", hint: "hint: `wallet-orders store contains --help` lists the arguments and options"),
    ]

    @Test("Usage mistakes get the tool's error:/hint: form with the obvious hint", arguments: mistakes)
    func usageMistakes(_ mistake: Mistake) async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(mistake.arguments(certs, folder), in: folder.url)
        #expect(result.status == mistake.status, "\(result)")
        #expect(result.errorOutput.contains(mistake.error), "\(result)")
        #expect(result.errorOutput.contains(mistake.hint), "\(result)")
        #expect(!result.errorOutput.contains("Error: "), "argument-parser's own form: \(result)")
        #expect(!result.errorOutput.contains("Usage: "), "\(result)")
    }

    static let helpCommands: [[String]] = [
        [], ["init"], ["build"], ["validate"], ["verify"], ["inspect"], ["rules"], ["dev-certs"], ["demo"], ["serve"], ["store"],
        ["store", "save"], ["store", "contains"], ["store", "get"], ["store", "list"], ["store", "delete"],
        ["store", "history"], ["store", "compact-history"], ["store", "devices"], ["preview"],
    ]

    @Test("--help at 80 columns: no line over 80, every example whole; paragraphs are not pre-wrapped", arguments: helpCommands)
    func helpFits80Columns(_ command: [String]) async throws {
        let narrow = try await CLI.run(command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(narrow.status == 0, "\(narrow)")
        let lines = narrow.output.split(separator: "\n").map(String.init)
        // USAGE is argument-parser's one unwrapped line.
        for line in lines where !line.hasPrefix("USAGE: ") {
            #expect(line.count <= 80, "over 80 columns: '\(line)'")
        }
        // At any width, a paragraph is one line (the terminal's width wraps it, not the source):
        // two prose lines in a row, the first not ending a sentence with ':', were pre-wrapped.
        let wide = try await CLI.run(command + ["--help"], environment: ["COLUMNS": "5000"])
        let overview = wide.output.components(separatedBy: "\nUSAGE: ")[0].split(separator: "\n", omittingEmptySubsequences: false)
        for (line, next) in zip(overview, overview.dropFirst()) {
            let prose = { (text: Substring) in !text.isEmpty && !text.hasPrefix(" ") }
            #expect(!(prose(line) && prose(next) && !line.hasSuffix(":")), "pre-wrapped: '\(line)' / '\(next)'")
        }
        // Example lines print whole at 80 columns, as at 5000, so they can be pasted.
        let examples = wide.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("wallet-orders ") && !$0.hasPrefix("wallet-orders <") }
        let narrowLines = Set(lines.map { $0.trimmingCharacters(in: .whitespaces) })
        for example in examples {
            #expect(narrowLines.contains(example), "example broken at 80 columns: '\(example)'")
        }
    }
}
