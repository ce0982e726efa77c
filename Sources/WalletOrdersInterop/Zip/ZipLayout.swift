/// The byte layout of a zip archive, read strictly: where the end record, the central directory
/// and every entry's local header and data sit, and every way they fail to fit together.
///
/// libzip reads the entries' data; this walk decides whether the archive is *strict*: one that
/// every mainstream reader (libzip, Info-ZIP, Python's `zipfile`, Apple's) reads identically.
/// The signature covers `manifest.json`, not the zip's metadata, so without this an attacker
/// with no key could append a second archive, give a local header another name than its
/// central directory record, or add bytes that some readers take and others skip.
///
/// Strict means:
/// - the end-of-central-directory record (plus its declared comment) ends exactly at the end of
///   the data, and is the only one in its search window; the one exception is zero bytes after
///   it, which a tar-style writer adds as block padding (``trailingPadding``), not a problem;
/// - the central directory ends exactly where the end record (or the ZIP64 end record) begins,
///   with exactly the number of records the end record declares;
/// - the entries tile the data from offset 0 to the central directory: each local header,
///   name, extra field, data and data descriptor is followed directly by the next entry's
///   local header; no overlaps, no gaps;
/// - each local header agrees with its central directory record: name bytes, method, flags,
///   CRC-32 and both sizes (from the data descriptor when flag bit 3 says so).
///
/// It reads only headers: O(entries), no copy of the data. (libzip's `ZIP_CHECKCONS` open flag
/// compares local headers too, but reports one generic "inconsistent" error for the first
/// problem and ignores trailing data; this walk names the entry, the offset and the problem.)
package struct ZipLayout: Sendable {
    /// One central directory record, as stored.
    package struct Record: Sendable, Hashable {
        package var rawName: [UInt8]
        package var method: UInt16
        package var flags: UInt16
        package var crc32: UInt32
        package var compressedSize: UInt64
        package var uncompressedSize: UInt64
        package var localHeaderOffset: UInt64
        /// Whether the central record carries a ZIP64 extra field (header 0x0001).
        package var hasZip64Extra: Bool
    }

    /// A way the layout is not strict.
    package struct Problem: Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// Bytes after the end record and its comment, not all of them zero (all-zero bytes are
            /// ``ZipLayout/trailingPadding``).
            case trailingData
            /// The end record or the central directory can't be read as declared.
            case centralDirectoryInvalid
            /// Bytes no entry or record accounts for (before the first entry, between entries,
            /// before the central directory).
            case gap
            /// Two entries' bytes overlap.
            case overlap
            /// A local header disagrees with its central directory record.
            case localHeaderMismatch
        }

        package var kind: Kind
        package var message: String
        /// The record's index in the central directory, when the problem is about one entry.
        package var recordIndex: Int?
        package var offset: Int
    }

    /// The central directory's records, in order (empty when it could not be read).
    package var records: [Record] = []
    /// Every problem found, in the order of the data.
    package var problems: [Problem] = []
    /// Whether ZIP64 records (end record, locator, or per-entry extra fields) are used.
    package var usesZip64 = false
    /// Indices of records whose local header disagrees with them: their data must not be trusted.
    package var untrustedRecords: Set<Int> = []
    /// Bytes after the end record (and its comment) that are all zero: block padding, as libarchive
    /// (`bsdtar`, macOS's `tar`) adds when it writes a zip to standard output (whole 10,240-byte
    /// blocks). Zero bytes hold no record, so no reader finds entries in them, and Info-ZIP, Python's
    /// `zipfile` and libzip read the archive before them alike. Any non-zero byte after the end
    /// record makes all of it ``Problem/Kind/trailingData`` instead.
    package var trailingPadding: Range<Int>?

    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let centralSignature: UInt32 = 0x0201_4B50
    static let localSignature: UInt32 = 0x0403_4B50
    static let descriptorSignature: UInt32 = 0x0807_4B50

    /// Reads the layout of `bytes`.
    package init(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var reader = Reader(buffer)
            self.read(&reader)
        }
    }

    private mutating func problem(_ kind: Problem.Kind, _ message: String, at offset: Int, record: Int? = nil) {
        problems.append(Problem(kind: kind, message: message, recordIndex: record, offset: offset))
        if kind == .localHeaderMismatch, let record { untrustedRecords.insert(record) }
    }

    private mutating func read(_ data: inout Reader) {
        let count = data.count
        // The end record: 22 bytes plus a comment of up to 65,535, found from the end.
        guard count >= 22 else {
            problem(.centralDirectoryInvalid, "The data is too short to hold an end-of-central-directory record.", at: 0)
            return
        }
        var end: Int?
        var position = count - 22
        let lowest = max(0, count - 22 - 0xFFFF)
        while position >= lowest {
            if data.u32(position) == Self.endSignature {
                end = position
                break
            }
            position -= 1
        }
        guard let endOffset = end else {
            problem(.centralDirectoryInvalid, "No end-of-central-directory record was found.", at: count)
            return
        }
        let commentLength = Int(data.u16(endOffset + 20))
        let declaredEnd = endOffset + 22 + commentLength
        if declaredEnd < count, data.isZero(declaredEnd..<count) {
            trailingPadding = declaredEnd..<count
        } else if declaredEnd < count {
            problem(
                .trailingData,
                "\(count - declaredEnd) byte(s) follow the end-of-central-directory record (which ends at byte \(declaredEnd)); readers disagree about such data (a second archive appended, say).",
                at: declaredEnd)
        } else if declaredEnd > count {
            problem(
                .centralDirectoryInvalid, "The end record's comment runs \(declaredEnd - count) byte(s) past the end of the data.", at: endOffset + 20
            )
        }
        let disk = data.u16(endOffset + 4)
        let cdDisk = data.u16(endOffset + 6)
        var totalRecords = UInt64(data.u16(endOffset + 10))
        let diskRecords = data.u16(endOffset + 8)
        var cdSize = UInt64(data.u32(endOffset + 12))
        var cdOffset = UInt64(data.u32(endOffset + 16))
        var cdEndExpected = endOffset  // where the central directory must end
        if disk != 0 || cdDisk != 0 || UInt64(diskRecords) != totalRecords {
            problem(.centralDirectoryInvalid, "The archive claims to span several disks; orders are one file.", at: endOffset + 4)
            return
        }
        // ZIP64: a locator right before the end record, pointing at the ZIP64 end record.
        if endOffset >= 20, data.u32(endOffset - 20) == Self.zip64LocatorSignature {
            usesZip64 = true
            let recordOffset = data.u64(endOffset - 20 + 8)
            guard endOffset >= 76, recordOffset <= UInt64(endOffset - 76), data.u32(Int(recordOffset)) == Self.zip64EndSignature else {
                problem(.centralDirectoryInvalid, "The ZIP64 locator points at no ZIP64 end record.", at: endOffset - 20)
                return
            }
            let record = Int(recordOffset)
            let recordSize = data.u64(record + 4)
            if recordSize > UInt64(endOffset) || UInt64(record) + 12 + recordSize != UInt64(endOffset - 20) {
                problem(.gap, "Bytes between the ZIP64 end record and its locator are unaccounted for.", at: record)
            }
            totalRecords = data.u64(record + 32)
            cdSize = data.u64(record + 40)
            cdOffset = data.u64(record + 48)
            cdEndExpected = record
        }
        guard cdOffset <= UInt64(cdEndExpected), cdSize <= UInt64(cdEndExpected) - cdOffset else {
            problem(
                .centralDirectoryInvalid,
                "The end record places the central directory at byte \(cdOffset) with \(cdSize) bytes, which does not fit before the end record at byte \(cdEndExpected).",
                at: endOffset)
            return
        }
        if cdOffset + cdSize != UInt64(cdEndExpected) {
            problem(
                .gap, "\(UInt64(cdEndExpected) - cdOffset - cdSize) byte(s) between the central directory and the end record are unaccounted for.",
                at: Int(cdOffset + cdSize))
        }

        // The central directory: exactly `totalRecords` records filling exactly `cdSize` bytes.
        var cursor = Int(cdOffset)
        let cdEnd = Int(cdOffset + cdSize)
        guard totalRecords <= UInt64(cdSize / 46) else {
            problem(
                .centralDirectoryInvalid, "The end record declares \(totalRecords) entries, more than its \(cdSize)-byte central directory can hold.",
                at: endOffset + 10)
            return
        }
        records.reserveCapacity(Int(totalRecords))
        for index in 0..<Int(totalRecords) {
            guard cursor + 46 <= cdEnd, data.u32(cursor) == Self.centralSignature else {
                problem(.centralDirectoryInvalid, "Central directory record \(index + 1) of \(totalRecords) is missing or damaged.", at: cursor)
                return
            }
            let nameLength = Int(data.u16(cursor + 28))
            let extraLength = Int(data.u16(cursor + 30))
            let commentLength = Int(data.u16(cursor + 32))
            let next = cursor + 46 + nameLength + extraLength + commentLength
            guard next <= cdEnd else {
                problem(.centralDirectoryInvalid, "Central directory record \(index + 1) runs past the central directory.", at: cursor)
                return
            }
            var record = Record(
                rawName: data.bytes(cursor + 46, nameLength), method: data.u16(cursor + 10), flags: data.u16(cursor + 8),
                crc32: data.u32(cursor + 16), compressedSize: UInt64(data.u32(cursor + 20)),
                uncompressedSize: UInt64(data.u32(cursor + 24)), localHeaderOffset: UInt64(data.u32(cursor + 42)),
                hasZip64Extra: false)
            if let zip64 = Self.zip64Extra(data, at: cursor + 46 + nameLength, length: extraLength) {
                record.hasZip64Extra = true
                var field = zip64.lowerBound
                // The ZIP64 field holds, in this order, exactly the values whose 32-bit field is all ones.
                if record.uncompressedSize == 0xFFFF_FFFF, field + 8 <= zip64.upperBound {
                    record.uncompressedSize = data.u64(field)
                    field += 8
                }
                if record.compressedSize == 0xFFFF_FFFF, field + 8 <= zip64.upperBound {
                    record.compressedSize = data.u64(field)
                    field += 8
                }
                if record.localHeaderOffset == 0xFFFF_FFFF, field + 8 <= zip64.upperBound { record.localHeaderOffset = data.u64(field) }
            }
            usesZip64 = usesZip64 || record.hasZip64Extra
            records.append(record)
            cursor = next
        }
        if cursor != cdEnd {
            problem(.gap, "\(cdEnd - cursor) byte(s) after the last central directory record are unaccounted for.", at: cursor)
        }

        // Local headers, in the order of the data: each must match its record and follow the previous entry.
        var extents: [(start: Int, end: Int, index: Int)] = []
        extents.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            if let end = checkLocalHeader(&data, record: record, index: index, before: Int(cdOffset)) {
                extents.append((Int(record.localHeaderOffset), end, index))
            }
        }
        extents.sort { ($0.start, $0.index) < ($1.start, $1.index) }
        var expected = 0
        for extent in extents {
            if extent.start > expected {
                problem(
                    .gap,
                    expected == 0
                        ? "\(extent.start) byte(s) before the first entry are unaccounted for (data prepended, or another archive before this one)."
                        : "\(extent.start - expected) byte(s) before '\(Self.display(records[extent.index].rawName))' are unaccounted for.",
                    at: expected, record: extent.index)
            } else if extent.start < expected {
                problem(
                    .overlap,
                    "'\(Self.display(records[extent.index].rawName))' starts at byte \(extent.start), inside the previous entry (which ends at byte \(expected)).",
                    at: extent.start, record: extent.index)
                untrustedRecords.insert(extent.index)
            }
            expected = max(expected, extent.end)
        }
        if expected < Int(cdOffset), !extents.isEmpty || records.isEmpty {
            problem(.gap, "\(Int(cdOffset) - expected) byte(s) before the central directory are unaccounted for.", at: expected)
        } else if expected > Int(cdOffset) {
            problem(.overlap, "The last entry runs into the central directory at byte \(cdOffset).", at: Int(cdOffset))
        }
    }

    /// Checks entry `index`'s local header against its record; returns where the entry ends
    /// (after its data and descriptor), or `nil` when the header can't be read at all.
    private mutating func checkLocalHeader(_ data: inout Reader, record: Record, index: Int, before limit: Int) -> Int? {
        let name = Self.display(record.rawName)
        let start = Int(clamping: record.localHeaderOffset)
        guard start <= limit - 30, data.u32(start) == Self.localSignature else {
            problem(
                .localHeaderMismatch, "'\(name)': no local header at byte \(record.localHeaderOffset), where the central directory places it.",
                at: start, record: index)
            return nil
        }
        let flags = data.u16(start + 6)
        let method = data.u16(start + 8)
        var crc = data.u32(start + 14)
        var compressed = UInt64(data.u32(start + 18))
        var uncompressed = UInt64(data.u32(start + 22))
        let nameLength = Int(data.u16(start + 26))
        let extraLength = Int(data.u16(start + 28))
        let dataStart = start + 30 + nameLength + extraLength
        guard dataStart <= limit else {
            problem(.localHeaderMismatch, "'\(name)': its local header runs into the central directory.", at: start, record: index)
            return nil
        }
        var differences: [String] = []
        let localName = data.bytes(start + 30, nameLength)
        if localName != record.rawName { differences.append("name '\(Self.display(localName))'") }
        if method != record.method { differences.append("compression method \(method) (directory: \(record.method))") }
        if flags != record.flags { differences.append("flags 0x\(String(flags, radix: 16)) (directory: 0x\(String(record.flags, radix: 16)))") }
        let localZip64 = Self.zip64Extra(data, at: start + 30 + nameLength, length: extraLength)
        if let zip64 = localZip64 {
            usesZip64 = true
            if uncompressed == 0xFFFF_FFFF, zip64.count >= 8 { uncompressed = data.u64(zip64.lowerBound) }
            if compressed == 0xFFFF_FFFF, zip64.count >= 16 { compressed = data.u64(zip64.lowerBound + 8) }
        }
        guard record.compressedSize <= UInt64(limit - dataStart) else {
            problem(
                .localHeaderMismatch, "'\(name)': its \(record.compressedSize) bytes of data run into the central directory.", at: dataStart,
                record: index)
            return nil
        }
        var end = dataStart + Int(record.compressedSize)
        if flags & 0x0008 != 0 {
            // Sizes and CRC follow the data, in a descriptor with or without its signature. Its
            // sizes are 8 bytes when the *local* header has a ZIP64 field (APPNOTE 4.3.9.1),
            // whatever the central record carries: Python's streaming `force_zip64` write has the
            // field in the local header only.
            var descriptor = end
            if descriptor + 4 <= limit, data.u32(descriptor) == Self.descriptorSignature { descriptor += 4 }
            let wide = localZip64 != nil
            let length = wide ? 20 : 12
            guard descriptor + length <= limit else {
                problem(.localHeaderMismatch, "'\(name)': its data descriptor is missing.", at: end, record: index)
                return nil
            }
            crc = data.u32(descriptor)
            compressed = wide ? data.u64(descriptor + 4) : UInt64(data.u32(descriptor + 4))
            uncompressed = wide ? data.u64(descriptor + 12) : UInt64(data.u32(descriptor + 8))
            end = descriptor + length
        }
        if crc != record.crc32 { differences.append("CRC-32 \(String(crc, radix: 16)) (directory: \(String(record.crc32, radix: 16)))") }
        if compressed != record.compressedSize { differences.append("compressed size \(compressed) (directory: \(record.compressedSize))") }
        if uncompressed != record.uncompressedSize { differences.append("size \(uncompressed) (directory: \(record.uncompressedSize))") }
        if !differences.isEmpty {
            problem(
                .localHeaderMismatch,
                "'\(name)': the local header at byte \(start) disagrees with the central directory: \(differences.joined(separator: ", ")).",
                at: start, record: index)
        }
        return end
    }

    /// The range of the ZIP64 extended information (header 0x0001) in an extra field, if present.
    private static func zip64Extra(_ data: Reader, at start: Int, length: Int) -> Range<Int>? {
        var cursor = start
        let end = start + length
        while cursor + 4 <= end {
            let id = data.u16(cursor)
            let size = Int(data.u16(cursor + 2))
            guard cursor + 4 + size <= end else { return nil }
            if id == 0x0001 { return (cursor + 4)..<(cursor + 4 + size) }
            cursor += 4 + size
        }
        return nil
    }

    /// A name for messages: UTF-8 where valid, `\xNN` for other bytes, `\0` for NUL, at most 200 bytes.
    package static func display(_ raw: [UInt8]) -> String {
        if raw.count <= 200, !raw.contains(0), let text = String(validating: raw, as: UTF8.self) { return text }
        var text = ""
        for byte in raw.prefix(200) {
            switch byte {
            case 0: text += "\\0"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return raw.count > 200 ? text + "…(\(raw.count) bytes)" : text
    }
}

/// Little-endian reads that return 0 past the end (bounds are checked by the callers' logic;
/// a read past the end never traps).
struct Reader {
    let buffer: UnsafeRawBufferPointer
    var count: Int { buffer.count }

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    func u16(_ offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= buffer.count else { return 0 }
        return UInt16(buffer[offset]) | UInt16(buffer[offset + 1]) << 8
    }

    func u32(_ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= buffer.count else { return 0 }
        return UInt32(u16(offset)) | UInt32(u16(offset + 2)) << 16
    }

    func u64(_ offset: Int) -> UInt64 {
        guard offset >= 0, offset + 8 <= buffer.count else { return 0 }
        return UInt64(u32(offset)) | UInt64(u32(offset + 4)) << 32
    }

    /// Whether every byte in `range` is 0 (`false` for a range past the end).
    func isZero(_ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return false }
        return buffer[range].allSatisfy { $0 == 0 }
    }

    func bytes(_ offset: Int, _ length: Int) -> [UInt8] {
        guard offset >= 0, length >= 0, offset + length <= buffer.count else { return [] }
        return Array(buffer[offset..<(offset + length)])
    }
}
