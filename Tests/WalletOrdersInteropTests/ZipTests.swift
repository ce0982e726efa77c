import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct ZipTests {
    /// 2026-11-20 13:45:30 (DOS time keeps even seconds).
    static let timestamp = ZipWriter.DOSTimestamp(year: 2026, month: 11, day: 20, hour: 13, minute: 45, second: 30)

    static let orderJSON = Array(
        String(repeating: #"{"orderIdentifier": "abc-123", "status": "open"}"#, count: 40).utf8)
    static let logo: [UInt8] = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 3) }
    static let strings = Array(String(repeating: "\"title\" = \"Commande\";\n", count: 50).utf8)

    static let entries: [ZipWriter.Entry] = [
        .init(path: "order.json", bytes: orderJSON),
        .init(path: "logo.png", bytes: logo, deflate: false),
        .init(path: "fr.lproj/order.strings", bytes: strings),
        .init(path: "empty.txt", bytes: [], deflate: false),
    ]

    @Test("ZipWriter output reads back with the same names, sizes, methods and bytes")
    func roundTrip() throws {
        let archive = try ZipWriter.write(Self.entries, timestamp: Self.timestamp)
        #expect(archive.starts(with: [0x50, 0x4b, 0x03, 0x04]))  // "PK\3\4"
        let reader = try ZipReader(bytes: archive)
        #expect(reader.entries.map(\.name) == ["order.json", "logo.png", "fr.lproj/order.strings", "empty.txt"])
        #expect(reader.entries.map(\.index) == [0, 1, 2, 3])
        #expect(reader.entries.map(\.uncompressedSize) == Self.entries.map { UInt64($0.bytes.count) })
        #expect(reader.entries.map(\.compressionMethod) == [8, 0, 8, 0])
        #expect(reader.entries.allSatisfy { $0.encryptionMethod == 0 })
        #expect(reader.entries.allSatisfy { $0.hasValidUTF8Name && !$0.isDirectory && !$0.isSymbolicLink })
        #expect(reader.entries.allSatisfy { $0.hostSystem == 3 })  // ZIP_OPSYS_UNIX
        #expect(reader.entries.allSatisfy { $0.externalAttributes >> 16 == 0o100644 })
        let order = try #require(reader.entries.first)
        #expect(order.compressedSize < order.uncompressedSize)  // repetitive JSON deflates well
        #expect(reader.entries[1].compressedSize == UInt64(Self.logo.count))
        for (entry, original) in zip(reader.entries, Self.entries) {
            #expect(try reader.read(entry, limit: 1 << 20) == original.bytes, "\(entry.name)")
        }
    }

    @Test("An entry deflate would not shrink, or under 1 KiB, is stored; Python reads every entry back intact")
    func incompressibleIsStored() async throws {
        var random = SystemRandomNumberGenerator()
        let noise = (0..<2_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let entries: [ZipWriter.Entry] = [
            .init(path: "tiny.json", bytes: Array("{}".utf8)),
            .init(path: "small.json", bytes: Array(String(repeating: "a", count: ZipWriter.minimumDeflatedSize - 1).utf8)),
            .init(path: "noise.bin", bytes: noise),
            .init(path: "order.json", bytes: Self.orderJSON),
        ]
        let archive = try ZipWriter.write(entries, timestamp: Self.timestamp)
        let reader = try ZipReader(bytes: archive)
        #expect(reader.entries.map(\.compressionMethod) == [0, 0, 0, 8])
        #expect(reader.entries.map(\.compressedSize)[0...2] == [2, 1_023, 2_000])
        for (entry, original) in zip(reader.entries, entries) {
            #expect(try reader.read(entry, limit: 1 << 20) == original.bytes, "\(entry.name)")
        }
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(archive, to: "test.zip")
        let script = """
            import sys, zipfile, zlib
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                print(" ".join("%s:%08x" % (i.filename, zlib.crc32(z.read(i))) for i in z.infolist()))
            """
        let result = try await ExternalProgram.python(script, [file.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let expected = entries.map { "\($0.path):" + String(format: "%08x", Deflater.crc32($0.bytes)) }.joined(separator: " ")
        #expect(String(decoding: result.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }

    @Test("Equal input gives byte-identical archives")
    func deterministic() throws {
        let first = try ZipWriter.write(Self.entries, timestamp: Self.timestamp)
        let second = try ZipWriter.write(Self.entries, timestamp: Self.timestamp)
        #expect(first == second)
        let later = try ZipWriter.write(
            Self.entries, timestamp: .init(year: 2026, month: 11, day: 20, hour: 13, minute: 45, second: 32))
        #expect(later != first)
        #expect(later.count == first.count)
    }

    /// Timestamps and the `date_time` Python's `zipfile` reads back.
    static let timestamps: [(ZipWriter.DOSTimestamp, [Int])] = [
        (timestamp, [2026, 11, 20, 13, 45, 30]),
        (.init(year: 2026, month: 1, day: 31, hour: 23, minute: 59, second: 59), [2026, 1, 31, 23, 59, 58]),
        (.init(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0), [1980, 1, 1, 0, 0, 0]),
    ]

    @Test("The DOS timestamp is what Python's zipfile reads", arguments: timestamps.indices)
    func timestampSeenByPython(index: Int) async throws {
        let (timestamp, expected) = Self.timestamps[index]
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(try ZipWriter.write(Self.entries, timestamp: timestamp), to: "test.zip")
        let script = """
            import json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                print(json.dumps([[i.filename, list(i.date_time), i.compress_type, i.file_size, i.external_attr >> 16] for i in z.infolist()]))
                assert z.testzip() is None
            """
        let result = try await ExternalProgram.python(script, [file.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let rows = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [[Any]])
        #expect(rows.compactMap { $0.first as? String } == Self.entries.map(\.path))
        for row in rows {
            #expect(row[1] as? [Int] == expected)
            #expect(row[4] as? Int == 0o100644)
        }
        #expect(rows.compactMap { $0[2] as? Int } == [8, 0, 8, 0])
        #expect(rows.compactMap { $0[3] as? Int } == Self.entries.map(\.bytes.count))
    }

    static let notZip: [(label: String, bytes: [UInt8])] = [
        ("text", Array("hello, this is not a zip archive at all, just some text".utf8)),
        ("PNG header", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 0, count: 64)),
        ("local header only", [0x50, 0x4b, 0x03, 0x04] + [UInt8](repeating: 0, count: 40)),
    ]

    @Test("ZipReader refuses bytes that are not a zip with isNotZip", arguments: notZip.indices)
    func notAZip(index: Int) throws {
        let input = Self.notZip[index]
        let error = try #require(throws: ZipError.self, "\(input.label)") { try ZipReader(bytes: input.bytes) }
        #expect(error.isNotZip)
        #expect(!error.isChecksumMismatch)
        #expect(error.function == "zip_open_from_source")
        #expect(error.message == "Not a zip archive")
        #expect(error.description == "Not a zip archive (zip_open_from_source)")
    }

    @Test("read refuses to produce more than the limit")
    func limit() throws {
        let reader = try ZipReader(bytes: try ZipWriter.write(Self.entries, timestamp: Self.timestamp))
        let order = try #require(reader.entries.first { $0.name == "order.json" })
        let error = try #require(throws: ZipError.self) { try reader.read(order, limit: Self.orderJSON.count - 1) }
        #expect(error.function == "zip_fread(order.json)")
        #expect(error.message.contains("\(Self.orderJSON.count - 1)-byte limit"))
        #expect(!error.isNotZip)
        // Exactly the size is allowed, and the reader is still usable after the refusal.
        #expect(try reader.read(order, limit: Self.orderJSON.count) == Self.orderJSON)
    }

    @Test("A changed byte in a stored entry fails the CRC check")
    func checksum() throws {
        var archive = try ZipWriter.write(Self.entries, timestamp: Self.timestamp)
        // The stored logo's bytes appear verbatim; flip one in the middle.
        let start = try #require(Self.firstIndex(of: Array(Self.logo.prefix(64)), in: archive))
        archive[start + 1_500] ^= 0xff
        let reader = try ZipReader(bytes: archive)
        let logo = try #require(reader.entries.first { $0.name == "logo.png" })
        let error = try #require(throws: ZipError.self) { try reader.read(logo, limit: 1 << 20) }
        #expect(error.isChecksumMismatch)
        #expect(error.function == "zip_fread(logo.png)")
        // The other entries are still fine.
        #expect(try reader.read(reader.entries[0], limit: 1 << 20) == Self.orderJSON)
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test("DOSTimestamp packs fields as the zip format says and clamps years before 1980")
    func dosPacking() {
        #expect(Self.timestamp.date == UInt16(((2026 - 1980) << 9) | (11 << 5) | 20))
        #expect(Self.timestamp.time == UInt16((13 << 11) | (45 << 5) | 15))
        let clamped = ZipWriter.DOSTimestamp(year: 1979, month: 12, day: 31, hour: 23, minute: 59, second: 59)
        #expect(clamped.date == 0x21 && clamped.time == 0)
    }
}
