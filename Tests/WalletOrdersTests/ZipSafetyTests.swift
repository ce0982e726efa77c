import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Hostile or broken zip containers are reported, never followed, and never exhaust memory.
/// The fixtures are written by Python's `zipfile` (not by our writer), each named after what is wrong.
@Suite struct ZipSafetyTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        /// What is wrong, as the fixture's name.
        var name: String
        /// Python statements run with `z` an open `zipfile.ZipFile` in append mode.
        var python: String
        /// The rule expected, and the entry it names.
        var ruleID: String
        var file: String?
        var testDescription: String { name }
    }

    static let fixtures = [
        Fixture(
            name: "parent-reference.order", python: #"z.writestr("../escape.png", b"x")"#,
            ruleID: "zip.parent-reference", file: "../escape.png"),
        Fixture(
            name: "absolute-path.order", python: #"z.writestr(zipfile.ZipInfo("/etc/cron.d/x"), b"x")"#,
            ruleID: "zip.absolute-path", file: "/etc/cron.d/x"),
        Fixture(
            name: "duplicate-name.order",
            python: #"import warnings; warnings.simplefilter("ignore"); z.writestr("order.json", b"{}")"#,
            ruleID: "zip.duplicate-name", file: "order.json"),
        Fixture(
            name: "symlink-entry.order",
            python: """
                i = zipfile.ZipInfo("link.png"); i.create_system = 3; i.external_attr = (0o120777 << 16)
                z.writestr(i, b"/etc/passwd")
                """,
            ruleID: "zip.symlink-entry", file: "link.png"),
        Fixture(
            name: "encrypted-entry.order",
            // zipfile won't write the encryption flag itself: set bit 0 in both headers by hand.
            python: """
                z.writestr("secret.png", b"\\x00" * 12 + b"data"); z.close()
                data = bytearray(open(sys.argv[1], "rb").read())
                for signature, header_size, flags_at in ((b"PK\\x03\\x04", 30, 6), (b"PK\\x01\\x02", 46, 8)):
                    at = data.find(signature)
                    while at != -1:
                        if data[at + header_size:at + header_size + 10] == b"secret.png":
                            data[at + flags_at] |= 1
                        at = data.find(signature, at + 4)
                open(sys.argv[1], "wb").write(data); z = zipfile.ZipFile(sys.argv[1])
                """,
            ruleID: "zip.encrypted-entry", file: "secret.png"),
        Fixture(
            name: "compression-bomb.order",
            python: #"z.writestr("bomb.png", b"\x00" * (8 << 20), compress_type=zipfile.ZIP_DEFLATED)"#,
            ruleID: "zip.compression-ratio", file: "bomb.png"),
        Fixture(
            name: "ds-store-junk.order", python: #"z.writestr(".DS_Store", b"\x00\x00\x00\x01Bud1")"#,
            ruleID: "zip.junk-file", file: ".DS_Store"),
        Fixture(
            name: "macosx-junk.order", python: #"z.writestr("__MACOSX/._order.json", b"\x00\x05\x16\x07")"#,
            ruleID: "zip.junk-file", file: "__MACOSX/._order.json"),
        Fixture(
            name: "too-many-entries.order",
            python: #"[z.writestr(f"many/{n}.txt", b"") for n in range(1001)]"#,
            ruleID: "zip.too-many-entries", file: nil),
    ]

    static let signed: [UInt8] = try! SampleBuilds.build("store-pickup").bytes

    @Test("Each hostile entry is reported with its rule and entry, and the rest still verifies", arguments: fixtures)
    func hostileEntry(fixture: Fixture) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(Self.signed, to: fixture.name)
        let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'a')\n\(fixture.python)\nz.close()\n"
        let result = try ExternalProgram.python(script, [path.path])
        try #require(result.status == 0, "python: \(result.errorOutput)")
        let bytes = Array(try #require(FileManager.default.contents(atPath: path.path)))

        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: fixture.name)
        let findings = report.diagnostics(ruleID: fixture.ruleID)
        #expect(findings.count == 1, "\(report.diagnostics.map(\.description))")
        #expect(findings.first?.location.file == fixture.file)
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.hint?.isEmpty == false)
        // The hostile entry is never read, so it can't be hashed or followed; the signature still holds.
        #expect(!report.contains(ruleID: "signature.invalid"))
        #expect(!report.contains(ruleID: "certificate.untrusted"))
        if let file = fixture.file, fixture.ruleID != "zip.duplicate-name", fixture.ruleID != "zip.junk-file" {
            #expect(try OrderArchive(bytes: bytes).contents(of: file) == nil, "an unsafe entry is not readable")
        }
    }

    @Test("Reading stops at the total-size limit with one zip.too-large finding")
    func totalSizeLimit() throws {
        let archive = try OrderArchive(bytes: Self.signed, limits: ArchiveLimits(maxTotalUncompressedBytes: 6_000))
        let findings = archive.readingDiagnostics.filter { $0.ruleID == "zip.too-large" }
        #expect(findings.count == 1)
        #expect(archive.filePaths.reduce(0) { $0 + (archive.contents(of: $1)?.count ?? 0) } <= 6_000)
    }

    @Test("A corrupted entry fails its CRC check and is reported, not returned")
    func checksumMismatch() throws {
        var bytes = Self.signed
        // Flip a byte inside the first entry's stored data (order.json, after its 30-byte header and name).
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        let extraLength = Int(bytes[28]) | Int(bytes[29]) << 8
        bytes[30 + nameLength + extraLength + 5] ^= 0xff
        let archive = try OrderArchive(bytes: bytes)
        let finding = archive.readingDiagnostics.first { $0.location.file == "order.json" }
        #expect(["zip.checksum-mismatch", "zip.entry-unreadable"].contains(finding?.ruleID ?? ""), "\(archive.readingDiagnostics)")
        #expect(archive.contents(of: "order.json") == nil)
    }
}
