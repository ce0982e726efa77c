import Foundation
import Testing
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct VerifyAndInspectEndToEndTests {
    /// Copies the shared archive with one byte of order.json changed (a space becomes a tab,
    /// so the JSON still parses), rebuilding the zip with Python's `zipfile`.
    /// The shared archive with one byte of order.json changed, made once per test run.
    static let tampered = SharedFixture<URL> {
        let url = try SharedFixtures.folder.get().file("tampered.order")
        try await tamperedCopy(of: try await SharedFixtures.archive.get(), to: url)
        return url
    }

    static func tamperedCopy(of archive: URL, to destination: URL) async throws {
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as source, zipfile.ZipFile(sys.argv[2], "w") as target:
                for info in source.infolist():
                    data = source.read(info.filename)
                    if info.filename == "order.json":
                        at = data.index(b"  ")
                        data = data[:at] + b"\\t" + data[at + 1:]
                    target.writestr(info, data)
            """
        let result = try await ExternalProgram.python(script, [archive.path, destination.path])
        #expect(result.status == 0, "\(result.errorOutput)")
    }

    @Test("verify names an entry whose name is not UTF-8, showing the bad byte as \\xFF")
    func badUTF8EntryName() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let archive = folder.file("bad-name.order")
        let script = """
            import shutil, sys, zipfile
            shutil.copy(sys.argv[1], sys.argv[2])
            with zipfile.ZipFile(sys.argv[2], "a") as z:
                z.writestr("bad#.png", b"x")
            data = open(sys.argv[2], "rb").read().replace(b"bad#.png", b"bad\\xff.png")
            open(sys.argv[2], "wb").write(data)
            """
        let made = try await ExternalProgram.python(script, [try await SharedFixtures.archive.get().path, archive.path])
        try #require(made.status == 0, "\(made)")
        let result = try await CLI.run(["verify", archive.path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.contains("zip.invalid-name-encoding"), "\(result)")
        #expect(result.output.contains("The entry name 'bad\\xFF.png' is not valid UTF-8"), "\(result)")
    }

    @Test("verify with the dev root trusts the archive and prints OK")
    func verifyTrusted() async throws {
        let certs = try await SharedFixtures.certs.get()
        let archive = try await SharedFixtures.archive.get()
        let result = try await CLI.run(["verify", archive.path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("\(archive.path): OK (0 errors, 0 warnings)\n"), "\(result)")
        #expect(result.errorOutput == "")
    }

    @Test("verify without --trust-root reports certificate.untrusted and exits 1")
    func verifyUntrusted() async throws {
        let archive = try await SharedFixtures.archive.get()
        let result = try await CLI.run(["verify", archive.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.hasPrefix("\(archive.path): FAILED ("))
        #expect(result.output.contains("error[certificate.untrusted]"))
        #expect(!result.output.contains("manifest.hash-mismatch"))
    }

    @Test("verify of an archive with one changed byte in order.json reports manifest.hash-mismatch")
    func verifyTampered() async throws {
        let certs = try await SharedFixtures.certs.get()
        let tampered = try await Self.tampered.get()
        let result = try await CLI.run(["verify", tampered.path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 1, "\(result)")
        let finding = try #require(result.output.split(separator: "\n").first { $0.contains("manifest.hash-mismatch") })
        #expect(
            finding.hasPrefix(
                "  order.json: error[manifest.hash-mismatch]: 'order.json' does not match its manifest hash"))
        #expect(result.output.contains("(1 error, 0 warnings)"))
        // The manifest itself is untouched, so the signature still covers it.
        #expect(!result.output.contains("signature.digest-mismatch"))
        #expect(!result.output.contains("certificate.untrusted"))
    }

    @Test("verify --json prints validate's report document: one report per archive, with diagnostics")
    func verifyJSON() async throws {
        let certs = try await SharedFixtures.certs.get()
        let archive = try await SharedFixtures.archive.get()
        let tampered = try await Self.tampered.get()
        let result = try await CLI.run(["verify", archive.path, tampered.path, "--trust-root", certs.rootCA.path, "--json"])
        #expect(result.status == 1, "\(result)")
        let document = try #require(try parseJSON(result.standardOutput) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        #expect(document["valid"] as? Bool == false)
        #expect((document["summary"] as? [String: Any])?["failed"] as? Int == 1)
        let reports = try #require(document["reports"] as? [[String: Any]])
        #expect(reports.count == 2)
        #expect(reports.map { $0["subject"] as? String } == [archive.path, tampered.path])
        let good = try #require(reports.first?["diagnostics"] as? [[String: Any]])
        #expect(!good.contains { $0["severity"] as? String == "error" })
        let bad = try #require(reports.last?["diagnostics"] as? [[String: Any]])
        let mismatch = try #require(bad.first { $0["ruleID"] as? String == "manifest.hash-mismatch" })
        #expect(mismatch["severity"] as? String == "error")
        #expect(mismatch["file"] as? String == "order.json")
        #expect((mismatch["hint"] as? String)?.contains("Rebuild the archive") == true)
    }

    @Test("verify of a file that is not a zip reports zip.unreadable")
    func verifyNotZip() async throws {
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write("these are my shopping notes, not an order archive\n".utf8, to: "notes.order")
        let result = try await CLI.run(["verify", file.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.hasPrefix("\(file.path): FAILED (1 error, 0 warnings)\n"))
        #expect(result.output.contains("error[zip.unreadable]"))
    }

    @Test("verify of a missing file reports file.unreadable and still checks the others")
    func verifyMissingFile() async throws {
        let certs = try await SharedFixtures.certs.get()
        let archive = try await SharedFixtures.archive.get()
        let missing = archive.deletingLastPathComponent().appendingPathComponent("no-such.order")
        let result = try await CLI.run(["verify", missing.path, archive.path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.contains("error[file.unreadable]: '\(missing.path)' does not exist."), "\(result)")
        #expect(result.output.contains("\(archive.path): OK (0 errors, 0 warnings)"))
    }

    @Test("inspect prints the entries, the order, the signer and the signing time")
    func inspect() async throws {
        let archive = try await SharedFixtures.archive.get()
        let result = try await CLI.run(["inspect", archive.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix("\(archive.path): ") == true && lines.first?.hasSuffix(" bytes, 7 entries") == true)
        for name in ["order.json", "manifest.json", "signature", "logo.png", "backpack.png"] {
            #expect(lines.contains { $0.hasPrefix("  \(name) ") }, "\(name) not listed")
        }
        #expect(
            lines.contains(
                "  identifier:  \(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"))
        let signer = try #require(lines.first { $0.hasPrefix("  signer:      ") })
        for part in [
            "UID=\(Repository.shippedOrderTypeIdentifier)",
            "CN=Order Type ID: \(Repository.shippedOrderTypeIdentifier)",
            "OU=TESTTEAM01", "O=wallet-orders TEST ONLY", "C=US",
        ] {
            #expect(signer.contains(part), "\(signer)")
        }
        // Most specific first, as CertificateSummary documents: Apple-style leaves store UID first.
        #expect(
            signer
                == "  signer:      UID=\(Repository.shippedOrderTypeIdentifier), CN=Order Type ID: \(Repository.shippedOrderTypeIdentifier), OU=TESTTEAM01, O=wallet-orders TEST ONLY, C=US"
        )
        #expect(
            lines.contains {
                $0.hasPrefix("  issuer:      CN=wallet-orders Development WWDR Intermediate (TEST ONLY), OU=G4")
            })
        #expect(lines.contains("  signed at:   \(SharedFixtures.signingTimeText)"))
        #expect(lines.contains { $0.hasPrefix("  detached:    yes, signers: 1, certificates: 2") })
    }

    @Test("inspect --json names the signer by its UID, the order type identifier")
    func inspectJSON() async throws {
        let archive = try await SharedFixtures.archive.get()
        let result = try await CLI.run(["inspect", archive.path, "--json"])
        #expect(result.status == 0, "\(result)")
        let document = try #require(try parseJSON(result.standardOutput) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let archives = try #require(document["archives"] as? [[String: Any]])
        #expect(archives.count == 1)
        let inspection = try #require(archives.first)
        let signature = try #require(inspection["signature"] as? [String: Any])
        let signer = try #require(signature["signer"] as? [String: Any])
        #expect(signer["userID"] as? String == Repository.shippedOrderTypeIdentifier)
        #expect(signer["organizationalUnit"] as? String == "TESTTEAM01")
        #expect(signature["signingTime"] as? String == SharedFixtures.signingTimeText)
        #expect(signature["isDetached"] as? Bool == true)
        #expect(signature["signerCount"] as? Int == 1)
        #expect((signature["digestAlgorithm"] as? String)?.lowercased() == "sha256")
        #expect(
            Set(signature["signedAttributes"] as? [String] ?? []) == ["contentType", "signingTime", "messageDigest"])
        let order = try #require(inspection["order"] as? [String: Any])
        #expect(order["orderIdentifier"] as? String == Repository.shippedOrderIdentifier)
        #expect((inspection["entries"] as? [Any])?.count == 7)
        #expect(inspection["path"] as? String == archive.path)
    }

    @Test("With NO_COLOR nothing is styled, even on a terminal; without it a terminal gets colors")
    func noColor() async throws {
        let certs = try await SharedFixtures.certs.get()
        let archive = try await SharedFixtures.archive.get()
        let binary = try WalletOrdersBinary.url()
        // Through pipes (files here): never styled.
        let piped = try await CLI.run(["verify", archive.path])
        #expect(piped.status == 1)
        #expect(!piped.standardOutput.contains(0x1B) && !piped.standardError.contains(0x1B))
        // On a pseudo-terminal made by script(1): styled unless NO_COLOR is set.
        let command = [binary.path, "verify", archive.path, "--trust-root", certs.rootCA.path]
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        func onTerminal(noColor: Bool) async throws -> ProgramResult {
            var environment = CLI.environment(["TERM": "xterm"])
            if !noColor { environment["NO_COLOR"] = nil }
            return try await ExternalProgram.run(
                URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"], environment: environment)
        }
        let plain = try await onTerminal(noColor: true)
        #expect(plain.status == 0)
        #expect(plain.output.contains("OK (0 errors, 0 warnings)"))
        #expect(!plain.standardOutput.contains(0x1B))
        let colored = try await onTerminal(noColor: false)
        #expect(colored.status == 0)
        #expect(colored.output.contains("\u{1B}[32mOK\u{1B}[0m"))
    }
}
