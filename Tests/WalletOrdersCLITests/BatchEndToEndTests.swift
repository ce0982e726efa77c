import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// `wallet-orders build --batch` and parallel `validate`, run as a user would.
@Suite(.temporaryFolder) struct BatchEndToEndTests {
    /// The shipped-ecommerce order.json with `changes` applied, as one JSON line.
    static func orderLine(_ changes: [String: Any]) throws -> String {
        let data = try Data(contentsOf: Repository.shippedEcommerce.appendingPathComponent("order.json"))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for (key, value) in changes { object[key] = value }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Line 1 good, 2 invalid JSON, 3 good, 4 fails validation, 5 blank, 6 unsafe identifier, 7 good.
    static func mixedLines() throws -> String {
        [
            try orderLine(["orderIdentifier": "B-1"]),
            "{\"orderIdentifier\": ",
            try orderLine(["orderIdentifier": "B-3"]),
            try orderLine(["orderIdentifier": "B-4", "status": "OnTheWay"]),
            "",
            try orderLine(["orderIdentifier": "../../etc/passwd"]),
            try orderLine(["orderIdentifier": "x/y\u{1}z"]),
        ].joined(separator: "\n") + "\n"
    }

    static func batch(_ input: URL, out: URL, _ extra: [String] = []) async throws -> ProgramResult {
        let certs = try await SharedFixtures.certs.get()
        return try await CLI.run(
            [
                "build", "--batch", input.path, "--template", Repository.shippedEcommerce.path, "--out", out.path,
                "--signing-time", SharedFixtures.signingTimeText,
            ] + certs.signingArguments + extra)
    }

    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("JSON Lines with bad lines: good orders built and verified, bad ones reported by line, exit 1")
    func jsonLinesWithBadLines() async throws {
        let folder = try TemporaryFolder.ofTest
        let input = try folder.write(Array(try Self.mixedLines().utf8), to: "orders.jsonl")
        let out = folder.file("out")
        let result = try await Self.batch(input, out: out)
        #expect(result.status == 1, "\(result)")
        let errors = result.errorOutput.split(separator: "\n").filter { $0.hasPrefix("error:") }.map(String.init)
        #expect(errors.count == 2, "\(result.errorOutput)")
        #expect(errors.contains { $0.hasPrefix("error: line 2: 1 validation error, not signed: [json.syntax]") })
        #expect(errors.contains { $0.hasPrefix("error: line 4: 1 validation error, not signed: [schema.enum] 'OnTheWay'") })
        // The finding is placed in the input file at the order's line, not in a one-line order.json.
        #expect(errors.contains { $0.contains("(\(input.path):4:") }, "\(errors)")
        #expect(!errors.contains { $0.contains("order.json:1:") }, "\(errors)")
        #expect(try Self.names(in: out) == ["%2E.%2F..%2Fetc%2Fpasswd.order", "B-1.order", "B-3.order", "x%2Fy%01z.order"])
        #expect(!FileManager.default.fileExists(atPath: folder.file("etc").path))
        #expect(result.output.hasPrefix("built 4, failed 2 in "), "\(result.output)")

        // Every archive verifies with our verifier against the test root...
        let certs = try await SharedFixtures.certs.get()
        let verified = try await CLI.run(
            ["verify", "--trust-root", certs.rootCA.path] + (try Self.names(in: out)).map { out.appendingPathComponent($0).path })
        #expect(verified.status == 0, "\(verified)")
        // ...and with OpenSSL.
        let archive = try OrderArchive(bytes: Array(try Data(contentsOf: out.appendingPathComponent("%2E.%2F..%2Fetc%2Fpasswd.order"))))
        #expect(try archive.order().orderIdentifier == "../../etc/passwd")
        let manifest = try folder.write(try #require(archive.contents(of: "manifest.json")), to: "manifest.json")
        let signature = try folder.write(try #require(archive.contents(of: "signature")), to: "signature")
        let openssl = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", signature.path, "-content", manifest.path,
                "-CAfile", certs.rootCA.path, "-purpose", "any", "-out", "/dev/null",
            ])
        #expect(openssl.status == 0, "\(openssl)")
        #expect(openssl.errorOutput.contains("Verification successful"))
    }

    @Test("A folder of order files: failures named by file, non-JSON files ignored")
    func folderInput() async throws {
        let folder = try TemporaryFolder.ofTest
        try folder.write(Array(try Self.orderLine(["orderIdentifier": "F-1"]).utf8), to: "orders/first.json")
        try folder.write(Array(try Self.orderLine(["orderIdentifier": "F-2", "orderIdentifier2": 1]).utf8), to: "orders/second.json")
        try folder.write(Array("not json".utf8), to: "orders/broken.json")
        try folder.write(Array("ignored".utf8), to: "orders/readme.txt")
        let out = folder.file("out")
        let result = try await Self.batch(folder.file("orders"), out: out, ["--jobs", "1"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("error: broken.json: 1 validation error, not signed: [json.syntax]"))
        #expect(result.errorOutput.contains("warning: second.json: [schema.unknown-key] Unknown key 'orderIdentifier2'"))
        #expect(try Self.names(in: out) == ["F-1.order", "F-2.order"])
        #expect(result.output.hasPrefix("built 2, failed 1 in "))
    }

    @Test("--jobs 1 and --jobs 2 write byte-identical archives for a fixed --signing-time")
    func jobsAreDeterministic() async throws {
        let folder = try TemporaryFolder.ofTest
        let lines = try (1...8).map { try Self.orderLine(["orderIdentifier": "J-\($0)", "updatedAt": "2026-01-0\($0)T10:00:00Z"]) }
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let one = try await Self.batch(input, out: folder.file("one"), ["--jobs", "1", "--quiet"])
        let two = try await Self.batch(input, out: folder.file("two"), ["--jobs", "2", "--quiet"])
        #expect(one.status == 0, "\(one)")
        #expect(two.status == 0, "\(two)")
        let names = try Self.names(in: folder.file("one"))
        #expect(names.count == 8)
        #expect(try Self.names(in: folder.file("two")) == names)
        for name in names {
            #expect(try Data(contentsOf: folder.file("one/\(name)")) == (try Data(contentsOf: folder.file("two/\(name)"))), "\(name)")
        }
    }

    @Test("Two orders with the same file name (even differing in case): the earlier line wins, the later fails")
    func duplicates() async throws {
        let folder = try TemporaryFolder.ofTest
        let lines = [
            try Self.orderLine(["orderIdentifier": "Dup-1", "updatedAt": "2026-01-01T10:00:00Z"]),
            try Self.orderLine(["orderIdentifier": "dup-1", "updatedAt": "2026-01-02T10:00:00Z"]),
            try Self.orderLine(["orderIdentifier": "Dup-1", "updatedAt": "2026-01-03T10:00:00Z"]),
        ]
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let firstOnly = try folder.write(Array((lines[0] + "\n").utf8), to: "first.jsonl")
        for jobs in ["1", "3"] {
            let out = folder.file("out-\(jobs)")
            let result = try await Self.batch(input, out: out, ["--jobs", jobs])
            #expect(result.status == 1, "\(result)")
            #expect(
                result.errorOutput.contains(
                    "error: line 2: file name 'dup-1.order' is taken by line 1 ('Dup-1.order'; names compare without case), which comes first; not written."
                ), "\(result.errorOutput)")
            // Line 3 meets whichever earlier line holds the name when it finishes: line 1, or line 2
            // before line 1 displaces it (with --jobs 3 both happen). Either way it is not written.
            let takenByLine1 =
                "error: line 3: file name 'Dup-1.order' is taken by line 1 ('Dup-1.order'; names compare without case), which comes first; not written."
            let takenByLine2 =
                "error: line 3: file name 'Dup-1.order' is taken by line 2 ('dup-1.order'; names compare without case), which comes first; not written."
            #expect(result.errorOutput.contains(takenByLine1) || result.errorOutput.contains(takenByLine2), "\(result.errorOutput)")
            #expect(try Self.names(in: out) == ["Dup-1.order"])
            #expect(result.output.hasPrefix("built 1, failed 2 in "), "\(result.output)")
        }
        let reference = try await Self.batch(firstOnly, out: folder.file("reference"), ["--quiet"])
        #expect(reference.status == 0)
        #expect(try Data(contentsOf: folder.file("out-3/Dup-1.order")) == (try Data(contentsOf: folder.file("reference/Dup-1.order"))))
    }

    @Test("Not a terminal: plain progress lines; --quiet prints only the summary on success, and errors on failure")
    func progressAndQuiet() async throws {
        let folder = try TemporaryFolder.ofTest
        let lines = try (1...4).map { try Self.orderLine(["orderIdentifier": "P-\($0)"]) }
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let everyOrder = try await Self.batch(input, out: folder.file("a"), ["--progress-interval", "0"])
        #expect(everyOrder.status == 0, "\(everyOrder)")
        let progress = everyOrder.errorOutput.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(progress.count == 4, "\(everyOrder.errorOutput)")
        #expect(progress.last?.hasPrefix("progress: 4/4 orders (100%), 0 failed, ") == true)
        #expect(!everyOrder.errorOutput.contains("\u{1B}"))
        #expect(!everyOrder.errorOutput.contains("\r"))
        #expect(
            everyOrder.output.wholeMatch(of: /built 4, failed 0 in \d+\.\d\d s: \d+\.\d orders\/s, \d+ bytes written to .*\n/) != nil,
            "\(everyOrder.output)")

        let defaultInterval = try await Self.batch(input, out: folder.file("b"))
        #expect(!defaultInterval.errorOutput.contains("progress:"), "a short batch finishes before the first 5-second line")
        #expect(defaultInterval.output.hasPrefix("built 4, failed 0"))

        let quiet = try await Self.batch(input, out: folder.file("c"), ["--quiet"])
        #expect(quiet.status == 0)
        #expect(
            quiet.output.wholeMatch(of: /built 4, failed 0 in \d+\.\d\d s: \d+\.\d orders\/s, \d+ bytes written to .*\n/) != nil, "\(quiet.output)")
        #expect(quiet.errorOutput.isEmpty, "\(quiet.errorOutput)")
        #expect(try Self.names(in: folder.file("c")).count == 4)

        let broken = try folder.write(Array("\(lines[0])\n[]\n".utf8), to: "broken.jsonl")
        let quietFailure = try await Self.batch(broken, out: folder.file("d"), ["--quiet"])
        #expect(quietFailure.status == 1)
        #expect(quietFailure.output.hasPrefix("built 1, failed 1 in "), "\(quietFailure.output)")
        let errorLines = quietFailure.errorOutput.split(separator: "\n").map(String.init)
        #expect(errorLines.count == 1, "\(quietFailure.errorOutput)")
        #expect(errorLines.first?.hasPrefix("error: line 2: 1 validation error, not signed: [schema.type] ") == true)
        #expect(errorLines.first?.hasSuffix("(\(broken.path):2:1)") == true, "\(quietFailure.errorOutput)")
    }

    @Test("--skip-existing leaves archives already in --out untouched and counts them; without it they are replaced")
    func skipExisting() async throws {
        let folder = try TemporaryFolder.ofTest
        let lines = try (1...3).map { try Self.orderLine(["orderIdentifier": "S-\($0)"]) }
        let firstTwo = try folder.write(Array((lines.prefix(2).joined(separator: "\n") + "\n").utf8), to: "two.jsonl")
        let all = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "three.jsonl")
        let out = folder.file("out")
        #expect(try await Self.batch(firstTwo, out: out).status == 0)
        let marker = Array("not replaced".utf8)
        _ = try folder.write(marker, to: "out/S-1.order")
        let rerun = try await Self.batch(all, out: out, ["--skip-existing", "--quiet"])
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.output.hasPrefix("built 1, skipped 2 (already in \(out.path)), failed 0 in "), "\(rerun.output)")
        #expect(Array(try Data(contentsOf: out.appendingPathComponent("S-1.order"))) == marker)
        #expect(try Self.names(in: out) == ["S-1.order", "S-2.order", "S-3.order"])
        let replace = try await Self.batch(all, out: out, ["--quiet"])
        #expect(replace.output.hasPrefix("built 3, failed 0 in "), "\(replace.output)")
        #expect(Array(try Data(contentsOf: out.appendingPathComponent("S-1.order"))) != marker)
    }

    /// Runs the tool on a pseudo-terminal (Python's pexpect) and prints its output as JSON-escaped text.
    static let terminalScript = """
        import json, os, pexpect, sys
        env = {"PATH": "/usr/bin:/bin", "TERM": "xterm"}
        if sys.argv[1] == "no-color":
            env["NO_COLOR"] = "1"
        child = pexpect.spawn(sys.argv[2], sys.argv[3:], env=env, timeout=120)
        child.expect(pexpect.EOF)
        child.close()
        print(child.exitstatus)
        print(json.dumps(child.before.decode()))
        """

    @Test("On a terminal: a progress bar redrawn in place, green unless NO_COLOR, cleared before the summary", arguments: [true, false])
    func progressBar(noColor: Bool) async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let lines = try (1...3).map { try Self.orderLine(["orderIdentifier": "T-\($0)"]) }
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let result = try await ExternalProgram.python(
            Self.terminalScript,
            [
                noColor ? "no-color" : "color", try WalletOrdersBinary.url().path, "build", "--batch", input.path,
                "--template", Repository.shippedEcommerce.path, "--out", folder.file("out").path,
                "--signing-time", SharedFixtures.signingTimeText,
            ] + certs.signingArguments)
        #expect(result.status == 0, "\(result)")
        let parts = result.output.split(separator: "\n", maxSplits: 1).map(String.init)
        #expect(parts.first == "0", "\(result)")
        let screen = try #require(try JSONSerialization.jsonObject(with: Data(parts[1].utf8), options: .fragmentsAllowed) as? String)
        let green = "\u{1B}[32m========================\u{1B}[0m"
        let bar = noColor ? "[========================] 3/3 100%" : "[\(green)] 3/3 100%"
        #expect(screen.contains("\r\u{1B}[K" + bar), "\(screen.debugDescription)")
        #expect(screen.contains("orders/s  ETA 0:00"))
        #expect(!screen.contains("progress:"))
        #expect(screen.contains("\r\u{1B}[Kbuilt 3, failed 0 in "), "the bar is cleared before the summary: \(screen.debugDescription)")
        #expect(noColor == !screen.contains("\u{1B}[32m"))
    }

    @Test(
        "Usage errors: SOURCE with --batch, --jobs 0, --template without --batch",
        arguments: [
            ["build", "src", "--batch", "x.jsonl", "--out", "o"],
            ["build", "--batch", "x.jsonl", "--out", "o", "--jobs", "0"],
            ["build", "src", "--out", "o.order", "--template", "t"],
            ["build", "--batch", "x.jsonl", "--out", "o", "--json"],
            ["validate", "x.order", "--jobs", "0"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await CLI.run(arguments + (arguments[0] == "build" ? certs.signingArguments : []))
        #expect(result.status == 64, "\(result)")
    }

    @Test(
        "--jobs 0 and --jobs -1 say --jobs must be at least 1",
        arguments: [
            ["build", "--batch", "x.jsonl", "--out", "o", "--jobs", "0"],
            ["build", "--batch", "x.jsonl", "--out", "o", "--jobs", "-1"],
            ["build", "--batch", "x.jsonl", "--out", "o", "--jobs=-1"],
            ["validate", "x.order", "--jobs", "0"],
            ["validate", "x.order", "--jobs", "-1"],
        ])
    func jobsMessage(arguments: [String]) async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await CLI.run(arguments + (arguments[0] == "build" ? certs.signingArguments : []))
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.contains("--jobs must be at least 1"), "\(result.errorOutput)")
    }

    @Test(
        "--batch - with empty or closed standard input says no orders were read, with a hint",
        arguments: [
            ("empty", "< /dev/null", "No orders were read from standard input"),
            ("closed", "<&-", "Standard input is closed"),
        ])
    func standardInputEmptyOrClosed(name: String, redirection: String, message: String) async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", #"exec "$0" "$@" "# + redirection, try WalletOrdersBinary.url().path, "build", "--batch", "-",
                "--template", Repository.shippedEcommerce.path, "--out", folder.file("out").path,
            ] + certs.signingArguments,
            environment: CLI.environment([:]))
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("error: \(message)"), "\(name): \(result.errorOutput)")
        #expect(result.errorOutput.contains("hint: "), "\(name): \(result.errorOutput)")
    }

    @Test("--batch - reads JSON Lines from standard input")
    func standardInput() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let lines = try [Self.orderLine(["orderIdentifier": "S-1"]), "[]", Self.orderLine(["orderIdentifier": "S-3"])]
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let result = try await ExternalProgram.python(
            """
            import subprocess, sys
            with open(sys.argv[1], "rb") as data:
                done = subprocess.run(sys.argv[2:], stdin=data, capture_output=True, env={"NO_COLOR": "1"})
            sys.stdout.write(done.stdout.decode())
            sys.stderr.write(done.stderr.decode())
            sys.exit(done.returncode)
            """,
            [
                input.path, try WalletOrdersBinary.url().path, "build", "--batch", "-", "--template", Repository.shippedEcommerce.path,
                "--out", folder.file("out").path, "--signing-time", SharedFixtures.signingTimeText,
            ] + certs.signingArguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("error: line 2: 1 validation error, not signed: "), "\(result.errorOutput)")
        #expect(try Self.names(in: folder.file("out")) == ["S-1.order", "S-3.order"])
        #expect(result.output.hasPrefix("built 2, failed 1 in "))
    }

    @Test("--batch FIFO with progress on: every line written to the FIFO is built (counting lines for progress must not read it first)")
    func namedPipe() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let lines = try [Self.orderLine(["orderIdentifier": "P-1"]), Self.orderLine(["orderIdentifier": "P-2"])]
        let fifo = folder.file("orders.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Python writes the lines into the FIFO, a pause between them, while wallet-orders reads it.
        let result = try await ExternalProgram.python(
            """
            import subprocess, sys, threading, time
            def feed():
                with open(sys.argv[1], "w") as fifo:
                    for line in sys.argv[2:4]:
                        fifo.write(line + "\\n")
                        fifo.flush()
                        time.sleep(0.3)
            writer = threading.Thread(target=feed)
            writer.start()
            done = subprocess.run(sys.argv[4:], capture_output=True, env={"NO_COLOR": "1"}, timeout=60)
            writer.join()
            sys.stdout.write(done.stdout.decode())
            sys.stderr.write(done.stderr.decode())
            sys.exit(done.returncode)
            """,
            [fifo.path] + lines + [
                try WalletOrdersBinary.url().path, "build", "--batch", fifo.path, "--template", Repository.shippedEcommerce.path,
                "--out", folder.file("out").path, "--signing-time", SharedFixtures.signingTimeText,
            ] + certs.signingArguments)
        #expect(result.status == 0, "\(result)")
        #expect(try Self.names(in: folder.file("out")) == ["P-1.order", "P-2.order"])
        #expect(result.output.hasPrefix("built 2, failed 0 in "), "\(result)")
    }

    @Test("A missing input file is an error with a hint, exit 1")
    func missingInput() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await Self.batch(folder.file("nope.jsonl"), out: folder.file("out"))
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("error: Cannot open '\(folder.file("nope.jsonl").path)': No such file or directory."))
    }

    @Test("Parallel validate: reports in input order, the same for --jobs 1 and 2, one summary line")
    func parallelValidate() async throws {
        let folder = try TemporaryFolder.ofTest
        let lines = try (1...6).map { try Self.orderLine(["orderIdentifier": "V-\($0)"]) }
        let input = try folder.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "orders.jsonl")
        let out = folder.file("out")
        #expect(try await Self.batch(input, out: out, ["--quiet"]).status == 0)
        // One damaged archive among them.
        var damaged = try Data(contentsOf: out.appendingPathComponent("V-3.order"))
        damaged[damaged.count / 2] ^= 0xFF
        try damaged.write(to: out.appendingPathComponent("V-3.order"))
        let certs = try await SharedFixtures.certs.get()
        var outputs: [String] = []
        for jobs in ["1", "2"] {
            let result = try await CLI.run(["validate", out.path, "--trust-root", certs.rootCA.path, "--jobs", jobs])
            #expect(result.status == 1, "\(result)")
            var lines = result.output.split(separator: "\n").map(String.init)
            let summary = try #require(lines.last)
            lines.removeLast()
            #expect(summary.wholeMatch(of: /6 archives, 5 passed, 1 with errors, 0 with warnings, \d+\.\d archives\/s/) != nil, "\(summary)")
            let verdicts = lines.filter { $0.hasPrefix(out.path) && ($0.hasSuffix(")")) && $0.contains(".order: ") }
            #expect(verdicts.map { String($0.dropFirst(out.path.count + 1).prefix(3)) } == ["V-1", "V-2", "V-3", "V-4", "V-5", "V-6"])
            outputs.append(lines.joined(separator: "\n"))
        }
        #expect(outputs[0] == outputs[1])

        let json = try await CLI.run(["validate", out.path, "--trust-root", certs.rootCA.path, "--format", "json", "--jobs", "2"])
        let document = try #require(try parseJSON(json.standardOutput) as? [String: Any])
        let subjects = (document["reports"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } ?? []
        #expect(subjects == (1...6).map { out.appendingPathComponent("V-\($0).order").path })
        #expect(json.errorOutput.contains("6 archives, 5 passed, 1 with errors, 0 with warnings, "))
    }
}
