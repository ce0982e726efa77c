import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Hostile or broken zip containers are reported, never followed, and never exhaust memory.
/// The fixtures are written by Python's `zipfile` (not by our writer), each named after what is wrong.
@Suite(.temporaryFolder) struct ZipSafetyTests {
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
            name: "case-collision.order", python: #"z.writestr("Logo.png", b"\x89PNG")"#,
            ruleID: "zip.case-collision", file: "Logo.png"),
        Fixture(
            // The same name composed and decomposed, in other cases: APFS keeps one of them.
            name: "normalization-collision.order",
            python: #"z.writestr("caf\u00e9.png", b"\x89PNG"); z.writestr("CAFE\u0301.png", b"\x89PNG")"#,
            ruleID: "zip.case-collision", file: "CAFE\u{301}.png"),
        Fixture(
            name: "bzip2-entry.order", python: #"z.writestr("coupon.png", b"data" * 100, compress_type=zipfile.ZIP_BZIP2)"#,
            ruleID: "zip.unsupported-compression", file: "coupon.png"),
        Fixture(
            name: "lzma-entry.order", python: #"z.writestr("coupon.png", b"data" * 100, compress_type=zipfile.ZIP_LZMA)"#,
            ruleID: "zip.unsupported-compression", file: "coupon.png"),
        Fixture(
            name: "nul-in-name.order",
            // zipfile cuts names at NUL itself: write a placeholder byte and patch both headers.
            python: """
                z.writestr("evil#.png", b"x"); z.close()
                data = open(sys.argv[1], "rb").read().replace(b"evil#.png", b"evil\\x00.png")
                open(sys.argv[1], "wb").write(data); z = zipfile.ZipFile(sys.argv[1])
                """,
            ruleID: "zip.name-contains-nul", file: "evil\\0.png"),
        Fixture(
            name: "bad-utf8-name.order",
            // zipfile writes str names: write a placeholder byte and patch both headers to 0xFF.
            python: """
                z.writestr("bad#.png", b"x"); z.close()
                data = open(sys.argv[1], "rb").read().replace(b"bad#.png", b"bad\\xff.png")
                open(sys.argv[1], "wb").write(data); z = zipfile.ZipFile(sys.argv[1])
                """,
            ruleID: "zip.invalid-name-encoding", file: "bad\\xFF.png"),
        Fixture(
            name: "too-many-entries.order",
            python: #"[z.writestr(f"many/{n}.txt", b"") for n in range(1001)]"#,
            ruleID: "zip.too-many-entries", file: nil),
    ]

    static let signed: [UInt8] = try! SampleBuilds.build("store-pickup").bytes

    @Test("Each hostile entry is reported with its rule and entry, and the rest still verifies", arguments: fixtures)
    func hostileEntry(fixture: Fixture) async throws {
        let folder = try TemporaryFolder.ofTest
        let path = try folder.write(Self.signed, to: fixture.name)
        let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'a')\n\(fixture.python)\nz.close()\n"
        let result = try await ExternalProgram.python(script, [path.path])
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

    // MARK: - Strict layout (issue 10, finding 3): what the signature doesn't cover

    /// Runs `python` with `data` (bytearray) holding the signed archive and `sys.argv[1]` its path;
    /// the script leaves its result in `data`, which is written back and returned.
    static func patched(_ python: String) async throws -> [UInt8] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(Self.signed, to: "archive.order")
        let script = """
            import io, struct, sys, zipfile
            data = bytearray(open(sys.argv[1], "rb").read())
            def eocd(): return data.rindex(b"PK\\x05\\x06")
            def records():
                end = eocd(); count, size, offset = struct.unpack_from("<HII", data, end + 10)
                at, found = offset, []
                for _ in range(count):
                    n, e, c = struct.unpack_from("<HHH", data, at + 28)
                    found.append((at, bytes(data[at + 46:at + 46 + n]), struct.unpack_from("<I", data, at + 42)[0]))
                    at += 46 + n + e + c
                return found
            def local(name): return next(l for (_, n, l) in records() if n == name)
            \(python)
            open(sys.argv[1], "wb").write(data)
            """
        let result = try await ExternalProgram.python(script, [path.path])
        try #require(result.status == 0, "python: \(result.errorOutput)")
        return Array(try #require(FileManager.default.contents(atPath: path.path)))
    }

    /// What Python's `zipfile` (an independent reader) makes of `bytes`: the entry names, or the error it raises.
    static func pythonReading(_ bytes: [UInt8]) async throws -> String {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(bytes, to: "read.order")
        let result = try await ExternalProgram.python(
            """
            import sys, zipfile
            try:
                with zipfile.ZipFile(sys.argv[1]) as z:
                    for info in z.infolist(): z.read(info)
                    print(",".join(sorted(n for n in z.namelist() if not n.endswith("/"))))
            except Exception as error:
                print("error:", type(error).__name__, error)
            """, [path.path])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct LayoutAttack: Sendable, CustomTestStringConvertible {
        var name: String
        var python: String
        var ruleID: String
        var file: String?
        var testDescription: String { name }
    }

    static let layoutAttacks: [LayoutAttack] = [
        .init(
            name: "a second zip appended after the signed one (Info-ZIP and Python read only the appended, unsigned order.json)",
            python: """
                extra = io.BytesIO()
                with zipfile.ZipFile(extra, "w") as z: z.writestr("order.json", b'{"orderManagementURL": "https://evil.example"}')
                data += extra.getvalue()
                """,
            ruleID: "zip.layout-gap", file: nil),
        .init(name: "bytes after the end-of-central-directory record", python: #"data += b"X" * 100"#, ruleID: "zip.trailing-data", file: nil),
        .init(
            name: "zero padding that ends in a non-zero byte (not block padding)", python: #"data += b"\x00" * 1000 + b"X""#,
            ruleID: "zip.trailing-data", file: nil),
        .init(
            name: "data prepended, offsets fixed up (as zip -A does)",
            python: """
                shift = 64
                for (at, _, offset) in records(): struct.pack_into("<I", data, at + 42, offset + shift)
                end = eocd(); struct.pack_into("<I", data, end + 16, struct.unpack_from("<I", data, end + 16)[0] + shift)
                data[0:0] = b"\\x00" * shift
                """,
            ruleID: "zip.layout-gap", file: nil),
        .init(
            name: "a local header named ../../x.png where the directory says logo.png",
            python: #"at = local(b"logo.png"); data[at + 30:at + 38] = b"../x.png""#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "a local header with another size", python: #"at = local(b"logo.png"); struct.pack_into("<I", data, at + 22, 1)"#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "a local header with another compressed size", python: #"at = local(b"logo.png"); struct.pack_into("<I", data, at + 18, 1)"#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "a local header with another CRC-32", python: #"at = local(b"logo.png"); data[at + 14] ^= 0xFF"#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "a local header with another method", python: #"at = local(b"logo.png"); struct.pack_into("<H", data, at + 8, 8)"#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "a local header with other flags", python: #"at = local(b"logo.png"); data[at + 6] ^= 0x02"#,
            ruleID: "zip.local-header-mismatch", file: "logo.png"),
        .init(
            name: "two directory records for one local header (overlapping entries)",
            python: """
                end = eocd(); count, size, offset = struct.unpack_from("<HII", data, end + 10)
                at, name, _ = next(r for r in records() if r[1] == b"logo.png")
                n, e, c = struct.unpack_from("<HHH", data, at + 28)
                record = bytes(data[at:at + 46 + n + e + c]).replace(b"logo.png", b"LOGO.PNG")
                data[end:end] = record
                end = eocd(); struct.pack_into("<HHI", data, end + 8, count + 1, count + 1, size + len(record))
                """,
            ruleID: "zip.overlapping-entries", file: "LOGO.PNG"),
    ]

    @Test("Zip metadata the signature doesn't cover can't make readers disagree", arguments: layoutAttacks)
    func layoutAttack(_ attack: LayoutAttack) async throws {
        let bytes = try await Self.patched(attack.python)
        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: "layout")
        let findings = report.diagnostics(ruleID: attack.ruleID)
        #expect(findings.count >= 1, "\(report.diagnostics.map(\.description))")
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.hint?.isEmpty == false)
        if let file = attack.file { #expect(findings.contains { $0.location.file == file }, "\(findings)") }
        #expect(!report.isValid)
        // A mismatched entry is never read: its bytes can't reach a hash check or a store.
        if attack.ruleID == "zip.local-header-mismatch", let file = attack.file {
            #expect(try OrderArchive(bytes: bytes).contents(of: file) == nil)
        }
    }

    @Test("The appended-archive attack is real: Python's zipfile reads the unsigned order.json we refuse")
    func appendedArchiveFoolsOtherReaders() async throws {
        let bytes = try await Self.patched(Self.layoutAttacks[0].python)
        #expect(try await Self.pythonReading(bytes) == "order.json")
    }

    /// Archives of every shape the tests accept: ours (deflate and store), Python's (with a
    /// comment, with data descriptors from a streaming write, with directory entries).
    static func acceptedArchives() async throws -> [(String, [UInt8])] {
        var archives: [(String, [UInt8])] = []
        for name in Repository.sampleNames {
            archives.append(("\(name) deflate", try SampleBuilds.build(name).bytes))
            archives.append(("\(name) store", try SampleBuilds.build(name, compression: .store).bytes))
        }
        archives.append(
            (
                "python rewrite with a comment and directory entries",
                try await Self.patched(
                    """
                    source = zipfile.ZipFile(io.BytesIO(bytes(data)))
                    out = io.BytesIO()
                    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                        z.writestr(zipfile.ZipInfo("fr.lproj/"), b"")
                        for info in source.infolist(): z.writestr(info.filename, source.read(info))
                        z.comment = b"made by hand"
                    data = bytearray(out.getvalue())
                    """)
            ))
        archives.append(
            (
                "python streaming write (data descriptors)",
                try await Self.patched(
                    """
                    class Unseekable(io.RawIOBase):
                        def __init__(self): self.buffer = bytearray()
                        def writable(self): return True
                        def write(self, b): self.buffer += b; return len(b)
                    source = zipfile.ZipFile(io.BytesIO(bytes(data)))
                    sink = Unseekable()
                    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
                        for info in source.infolist():
                            with z.open(info.filename, "w") as f: f.write(source.read(info))
                    assert any(i.flag_bits & 8 for i in zipfile.ZipFile(io.BytesIO(bytes(sink.buffer))).infolist())
                    data = bytearray(sink.buffer)
                    """)
            ))
        return archives
    }

    @Test("Every archive the tests accept passes the strict layout, and Python's zipfile reads the same files we do")
    func acceptedArchivesAreStrict() async throws {
        for (name, bytes) in try await Self.acceptedArchives() {
            let archive = try OrderArchive(bytes: bytes)
            let layoutRules = archive.readingDiagnostics.filter { $0.severity == .error }
            #expect(layoutRules.isEmpty, "\(name): \(layoutRules)")
            #expect(try await Self.pythonReading(bytes) == archive.filePaths.sorted().joined(separator: ","), "\(name)")
            #expect(TestPKI.verifier.verify(archiveBytes: bytes, subject: name).errors.isEmpty, "\(name)")
        }
    }

    @Test("A per-entry ZIP64 field gets the same zip.zip64 warning as a ZIP64 end record")
    func perEntryZip64() async throws {
        let bytes = try await Self.patched(
            """
            source = zipfile.ZipFile(io.BytesIO(bytes(data)))
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                for info in source.infolist():
                    with z.open(info.filename, "w", force_zip64=(info.filename == "logo.png")) as f: f.write(source.read(info))
            data = bytearray(out.getvalue())
            assert b"PK\\x06\\x06" not in data  # no ZIP64 end record: only the entry's field
            """)
        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: "zip64-entry")
        #expect(report.diagnostics(ruleID: "zip.zip64").map(\.severity) == [.warning], "\(report.diagnostics)")
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    @Test("bsdtar's zip written to standard output, NUL-padded to its 10,240-byte block, passes with one zip.trailing-padding warning")
    func bsdtarBlockPadding() async throws {
        let folder = try TemporaryFolder.ofTest
        let archive = try OrderArchive(bytes: Self.signed)
        for path in archive.filePaths { _ = try folder.write(try #require(archive.contents(of: path)), to: path) }
        // libarchive (bsdtar here, /usr/bin/tar on macOS) pads what it writes to standard output to whole blocks.
        let result = try await ExternalProgram.run(tool: "bsdtar", ["--format", "zip", "-cf", "-"] + archive.filePaths, in: folder.url)
        try #require(result.status == 0, "bsdtar: \(result.errorOutput)")
        let bytes = Array(result.standardOutput)
        #expect(bytes.count % 10_240 == 0, "bsdtar pads to its block size: \(bytes.count) bytes")
        // The end record (22 bytes, no comment) starts at its signature's last occurrence.
        let endRecord = try #require((0...(bytes.count - 22)).reversed().first { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x05, 0x06]) })
        let padding = bytes.count - (endRecord + 22)
        try #require(padding > 0 && bytes[(endRecord + 22)...].allSatisfy { $0 == 0 }, "the archive ends in zero bytes")

        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: "bsdtar")
        #expect(report.errors.isEmpty, "\(report.errors)")
        let findings = report.diagnostics(ruleID: "zip.trailing-padding")
        #expect(findings.map(\.severity) == [.warning], "\(report.diagnostics)")
        #expect(findings.first?.message.contains("\(padding) zero byte(s)") == true, "\(findings)")
        #expect(findings.first?.message.contains("block") == true, "\(findings)")
        #expect(!report.contains(ruleID: "zip.trailing-data"))
        #expect(try await Self.pythonReading(bytes) == archive.filePaths.sorted().joined(separator: ","))
    }

    @Test("Python's streaming ZIP64 write (24-byte data descriptors; no ZIP64 field in the central directory) has only the zip.zip64 warning")
    func streamedZip64DataDescriptors() async throws {
        let bytes = try await Self.patched(
            """
            class Unseekable(io.RawIOBase):
                def __init__(self): self.buffer = bytearray()
                def writable(self): return True
                def write(self, b): self.buffer += b; return len(b)
            source = zipfile.ZipFile(io.BytesIO(bytes(data)))
            sink = Unseekable()
            with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
                for info in source.infolist():
                    with z.open(info.filename, "w", force_zip64=True) as f: f.write(source.read(info))
            data = bytearray(sink.buffer)
            def ids(extra):
                found, at = [], 0
                while at + 4 <= len(extra):
                    i, size = struct.unpack_from("<HH", extra, at); found.append(i); at += 4 + size
                return found
            for info in zipfile.ZipFile(io.BytesIO(bytes(data))).infolist():
                assert info.flag_bits & 8 and 1 not in ids(info.extra), info.filename
                n, e = struct.unpack_from("<HH", data, info.header_offset + 26)
                assert 1 in ids(data[info.header_offset + 30 + n:info.header_offset + 30 + n + e]), info.filename
                descriptor = info.header_offset + 30 + n + e + info.compress_size
                assert data[descriptor:descriptor + 4] == b"PK\\x07\\x08"
                assert struct.unpack_from("<IQQ", data, descriptor + 4) == (info.CRC, info.compress_size, info.file_size)
            """)
        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: "zip64-stream")
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.diagnostics(ruleID: "zip.zip64").map(\.severity) == [.warning], "\(report.diagnostics)")
        #expect(try await Self.pythonReading(bytes) == (try OrderArchive(bytes: bytes)).filePaths.sorted().joined(separator: ","))
    }
}
