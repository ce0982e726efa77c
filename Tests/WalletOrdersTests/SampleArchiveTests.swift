import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Every folder of `Samples/` builds, verifies clean, and passes checks we did not write.
@Suite(.temporaryFolder) struct SampleArchiveTests {
    @Test("Samples/ holds the four required kinds of order")
    func samplesExist() {
        #expect(Repository.sampleNames == ["localized", "returns-and-transactions", "shipped-ecommerce", "store-pickup"])
    }

    @Test("Every sample builds and verifies with zero errors and zero warnings", arguments: Repository.sampleNames)
    func buildsAndVerifiesClean(sample: String) throws {
        let built = try SampleBuilds.build(sample)
        #expect(built.diagnostics.filter { $0.severity != .info }.isEmpty, "build diagnostics: \(built.diagnostics)")
        let report = TestPKI.verifier.verify(archiveBytes: built.bytes, subject: sample)
        #expect(report.diagnostics.allSatisfy { $0.ruleID == "certificate.wwdr-generation" }, "\(report.diagnostics.map(\.description))")

        let archive = try OrderArchive(bytes: built.bytes)
        let source = try SampleBuilds.source(sample)
        // Fixed order: order.json, manifest.json, signature, then the rest sorted.
        let paths = archive.entries.map(\.path)
        #expect(Array(paths.prefix(3)) == ["order.json", "manifest.json", "signature"])
        #expect(Array(paths.dropFirst(3)) == source.files.keys.filter { $0 != "order.json" }.sorted())
        #expect(try archive.manifest() == built.manifest)
        #expect(Set(built.manifest.hashes.keys) == Set(source.files.keys))
        #expect(try archive.order() == (try built.order()))
        let signature = try archive.signatureInfo()
        #expect(signature.signer?.userID == built.orderIdentifier.orderTypeIdentifier)
        #expect(signature.signingTime == TestPKI.signingTime)
        #expect(signature.digestAlgorithm.lowercased() == "sha256")
        #expect(signature.signedAttributes.sorted() == ["contentType", "messageDigest", "signingTime"])
        #expect(signature.certificates.count == 2, "signer + intermediate, never the root")
        #expect(signature.isDetached)
    }

    @Test("Every sample's signature passes `openssl cms -verify` with the test root as CA", arguments: Repository.sampleNames)
    func opensslVerifiesSignature(sample: String) async throws {
        let built = try SampleBuilds.build(sample)
        let folder = try TemporaryFolder.ofTest
        let archive = try OrderArchive(bytes: built.bytes)
        let manifest = try folder.write(try #require(archive.contents(of: "manifest.json")), to: "manifest.json")
        let signature = try folder.write(try #require(archive.contents(of: "signature")), to: "signature")
        let root = try folder.write(Array(TestPKI.authority.rootCertificatePEM.utf8), to: "root.pem")
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", signature.path, "-content", manifest.path,
                "-CAfile", root.path, "-purpose", "any", "-out", "/dev/null",
            ])
        #expect(result.status == 0, "openssl: \(result.errorOutput)")
        #expect(result.errorOutput.contains("Verification successful"))

        // The signed attributes as OpenSSL prints them: signingTime is present.
        let printed = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["cms", "-cmsout", "-print", "-inform", "DER", "-in", signature.path])
        #expect(printed.output.contains("signingTime"))
        #expect(printed.output.contains("messageDigest"))
        #expect(printed.output.contains("sha256"))
    }

    /// Runs a Python script with the archive's path as `sys.argv[1]` (the archive is written to a
    /// temporary folder, removed afterwards).
    static func python(_ script: String, on archive: [UInt8], named name: String) async throws -> ProgramResult {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(archive, to: name)
        return try await ExternalProgram.python(script, [path.path])
    }

    @Test("Python's zipfile reads every sample archive and finds the same files", arguments: Repository.sampleNames)
    func pythonZipfileReadsArchive(sample: String) async throws {
        let built = try SampleBuilds.build(sample)
        let script = """
            import hashlib, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                names = z.namelist()
                manifest = json.loads(z.read("manifest.json"))
                for name, digest in manifest.items():
                    assert hashlib.sha256(z.read(name)).hexdigest() == digest, name
                print(json.dumps(names))
            """
        let result = try await Self.python(script, on: built.bytes, named: "\(sample).order")
        #expect(result.status == 0, "python: \(result.errorOutput)")
        let names = try JSONDecoder().decode([String].self, from: result.standardOutput)
        #expect(names == (try OrderArchive(bytes: built.bytes)).entries.map(\.path))
    }

    /// Every sample built both ways, as Python's `zipfile` sees each entry's method.
    static let compressionCases: [(sample: String, compression: ArchiveCompression)] =
        Repository.sampleNames.flatMap { sample in ArchiveCompression.allCases.map { (sample, $0) } }

    @Test(
        "--compression: deflate shrinks text and stores images and the signature; store stores all; both verify",
        arguments: compressionCases.indices)
    func compressionMethods(index: Int) async throws {
        let (sample, compression) = Self.compressionCases[index]
        let built = try SampleBuilds.build(sample, compression: compression)
        let report = TestPKI.verifier.verify(archiveBytes: built.bytes, subject: sample)
        #expect(report.diagnostics.allSatisfy { $0.ruleID == "certificate.wwdr-generation" }, "\(report.diagnostics)")
        let script = """
            import json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                print(json.dumps({i.filename: [i.compress_type, i.file_size, i.compress_size] for i in z.infolist()}))
            """
        let result = try await Self.python(script, on: built.bytes, named: "\(sample).order")
        #expect(result.status == 0, "python: \(result.errorOutput)")
        let entries = try JSONDecoder().decode([String: [Int]].self, from: result.standardOutput)
        for (name, row) in entries {
            let binary = name == "signature" || name.hasSuffix(".png") || name.hasSuffix(".jpg")
            switch compression {
            case .store:
                #expect(row[0] == 0, "\(name) should be stored")
            case .deflate where binary:
                #expect(row[0] == 0, "\(name) should be stored")
            case .deflate:
                // Deflated when 1 KiB or more (and deflate shrinks it); smaller files are stored.
                #expect(row[0] == (row[1] >= 1_024 ? 8 : 0), "\(name): \(row)")
                #expect(row[0] == 0 || row[2] < row[1], "\(name): \(row)")
            }
        }
        #expect(entries["order.json"]?[0] == (compression == .deflate ? 8 : 0))
    }

    @Test("detachedSignature(of:) is byte for byte the signature the builder put in the archive")
    func detachedSignatureMatchesArchive() throws {
        let source = try SampleBuilds.source("store-pickup")
        let identity = TestPKI.identity(for: try SampleBuilds.orderTypeIdentifier(of: source))
        let built = try OrderArchiveBuilder(identity: identity).build(source, signingTime: TestPKI.signingTime)
        let signature = try identity.detachedSignature(of: built.manifestBytes, signingTime: TestPKI.signingTime)
        #expect(signature == (try OrderArchive(bytes: built.bytes)).contents(of: "signature"))
        #expect(try identity.detachedSignature(of: built.manifestBytes + [0x0a], signingTime: TestPKI.signingTime) != signature)
    }

    @Test("Stored and deflated builds hold the same files; the stored archive is larger")
    func storeVersusDeflate() throws {
        let deflated = try SampleBuilds.build("shipped-ecommerce", compression: .deflate)
        let stored = try SampleBuilds.build("shipped-ecommerce", compression: .store)
        #expect(stored.manifestBytes == deflated.manifestBytes)
        #expect(stored.bytes.count > deflated.bytes.count + 2_000)
        let storedArchive = try OrderArchive(bytes: stored.bytes)
        let deflatedArchive = try OrderArchive(bytes: deflated.bytes)
        #expect(storedArchive.contents(of: "signature") == deflatedArchive.contents(of: "signature"))
        #expect(storedArchive.contents(of: "order.json") == deflatedArchive.contents(of: "order.json"))
    }

    @Test("Two builds with the same inputs and signing time are byte-identical")
    func reproducible() throws {
        let first = try SampleBuilds.build("localized")
        let second = try SampleBuilds.build("localized")
        #expect(first.bytes == second.bytes)
        // A different signing time changes the signature and the zip timestamps.
        let source = try SampleBuilds.source("localized")
        let identity = TestPKI.identity(for: try SampleBuilds.orderTypeIdentifier(of: source))
        let later = try OrderArchiveBuilder(identity: identity).build(source, signingTime: TestPKI.signingTime + 60)
        #expect(later.bytes != first.bytes)
        #expect(later.manifestBytes == first.manifestBytes)
    }

    @Test("Archive timestamps are the signing time in UTC, whatever the time zone")
    func timestampsAreUTC() async throws {
        let built = try SampleBuilds.build("store-pickup")
        let folder = try TemporaryFolder.ofTest
        let path = try folder.write(built.bytes, to: "a.order")
        let script = "import sys, zipfile; print(set(i.date_time for i in zipfile.ZipFile(sys.argv[1]).infolist()))"
        let result = try await ExternalProgram.python(
            script, [path.path],
            environment: ProcessInfo.processInfo.environment.merging(["TZ": "Pacific/Kiritimati"]) { _, new in new })
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: TestPKI.signingTime)
        let expected = "{(\(parts.year!), \(parts.month!), \(parts.day!), \(parts.hour!), \(parts.minute!), \(parts.second! / 2 * 2))}"
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }
}
