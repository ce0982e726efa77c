import CWalletOrdersZip
import Foundation

/// Writes zip archives into memory with libzip: no temporary files.
package enum ZipWriter {
    /// One file to add.
    package struct Entry: Sendable {
        /// The path inside the archive (`/`-separated, UTF-8).
        package var path: String
        /// The file's bytes.
        package var bytes: [UInt8]
        /// Whether to deflate (`true`) or store the bytes.
        package var deflate: Bool

        package init(path: String, bytes: [UInt8], deflate: Bool = true) {
            self.path = path
            self.bytes = bytes
            self.deflate = deflate
        }
    }

    /// A DOS date and time as stored in zip headers (local time with no zone: we always pass UTC).
    package struct DOSTimestamp: Sendable, Hashable {
        package var date: UInt16
        package var time: UInt16

        /// Converts UTC calendar fields (years before 1980 clamp to 1980-01-01 00:00:00).
        package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            guard year >= 1980 else {
                date = UInt16((1 << 5) | 1)
                time = 0
                return
            }
            date = UInt16(((min(year, 2107) - 1980) << 9) | (month << 5) | day)
            time = UInt16((hour << 11) | (minute << 5) | (second / 2))
        }
    }

    /// Entries smaller than this are stored even when marked `deflate`: zlib's fixed cost per
    /// entry (clearing its hash table, building Huffman trees) is about 0.1 M instructions, a
    /// fifth of an RSA signature, and buys at most a few hundred bytes on a file this small
    /// (a 421-byte manifest deflates to 264).
    package static let minimumDeflatedSize = 1_024

    /// Writes `entries`, in the given order, and returns the archive's bytes.
    ///
    /// Every entry gets the same timestamp, Unix permissions 0644 and UTF-8 names, so equal input
    /// gives equal output. Entries marked `deflate` (of at least ``minimumDeflatedSize`` bytes)
    /// are compressed here with one ``Deflater`` at zlib `level` (kept for the next archive) and handed to libzip already
    /// compressed (see ``PrecompressedSource``); an entry that deflate would not make smaller is
    /// stored instead.
    ///
    /// The corresponding C functions are `zip_source_buffer_create`, `zip_open_from_source`,
    /// `zip_source_buffer`, `zip_source_function`, `zip_file_add`, `zip_set_file_compression`,
    /// `zip_file_set_dostime`, `zip_file_set_external_attributes`, `zip_close` and
    /// `zip_source_read`. Ownership: `zip_source_buffer` is given `malloc`ed copies with
    /// `freep = 1`, so libzip frees them; a function source holds a retained
    /// ``PrecompressedSource`` that its `ZIP_SOURCE_FREE` releases; `zip_file_add` takes
    /// ownership of its source only on success (we free it otherwise); `zip_source_keep` keeps
    /// the output buffer source alive past `zip_close`, and we free it.
    package static func write(_ entries: [Entry], timestamp: DOSTimestamp, level: Int32 = 6) throws(ZipError) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let output = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw ZipError(function: "zip_source_buffer_create", error: &error)
        }
        defer { zip_source_free(output) }
        zip_source_keep(output)  // zip_close/zip_discard would free it otherwise.
        guard let archive = zip_open_from_source(output, ZIP_TRUNCATE, &error) else {
            throw ZipError(function: "zip_open_from_source", error: &error)
        }
        var closed = false
        defer { if !closed { zip_discard(archive) } }

        var deflated = [[UInt8]?](repeating: nil, count: entries.count)
        let toDeflate = entries.indices.filter { entries[$0].deflate && entries[$0].bytes.count >= minimumDeflatedSize }
        if !toDeflate.isEmpty {
            try Deflater.borrow(level: level) { deflater throws(ZipError) in
                for index in toDeflate { deflated[index] = try deflater.deflate(entries[index].bytes) }
            }
        }
        for (entry, compressed) in zip(entries, deflated) {
            let source: OpaquePointer
            if let compressed {
                source = try PrecompressedSource.make(
                    in: archive, compressed: compressed, size: entry.bytes.count, crc: Deflater.crc32(entry.bytes))
            } else {
                source = try bufferSource(in: archive, copying: entry.bytes)
            }
            let index = zip_file_add(archive, entry.path, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
            guard index >= 0 else {
                zip_source_free(source)
                throw ZipError(function: "zip_file_add(\(entry.path))", archive: archive)
            }
            let position = zip_uint64_t(index)
            let method = compressed == nil ? ZIP_CM_STORE : ZIP_CM_DEFLATE
            guard zip_set_file_compression(archive, position, method, compressed == nil ? 0 : zip_uint32_t(level)) == 0,
                zip_file_set_dostime(archive, position, timestamp.time, timestamp.date, 0) == 0,
                zip_file_set_external_attributes(archive, position, 0, zip_uint8_t(ZIP_OPSYS_UNIX), 0o100644 << 16) == 0
            else {
                throw ZipError(function: "zip_file_set_*(\(entry.path))", archive: archive)
            }
        }
        guard zip_close(archive) == 0 else { throw ZipError(function: "zip_close", archive: archive) }
        closed = true
        return try readAll(output)
    }

    /// A libzip buffer source that owns a `malloc`ed copy of `bytes` (none for an empty entry:
    /// libzip drops a zero-length buffer without freeing it).
    private static func bufferSource(in archive: OpaquePointer, copying bytes: [UInt8]) throws(ZipError) -> OpaquePointer {
        let copy = bytes.isEmpty ? nil : malloc(bytes.count)!
        bytes.withUnsafeBytes { source in
            if let copy, let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) }
        }
        guard let source = zip_source_buffer(archive, copy, zip_uint64_t(bytes.count), copy == nil ? 0 : 1) else {
            free(copy)
            throw ZipError(function: "zip_source_buffer", archive: archive)
        }
        return source
    }

    /// Reads a whole buffer source.
    private static func readAll(_ source: OpaquePointer) throws(ZipError) -> [UInt8] {
        guard zip_source_open(source) == 0 else { throw ZipError(function: "zip_source_open", error: zip_source_error(source)) }
        defer { zip_source_close(source) }
        guard zip_source_seek(source, 0, SEEK_END) == 0 else {
            throw ZipError(function: "zip_source_seek", error: zip_source_error(source))
        }
        let size = zip_source_tell(source)
        guard size >= 0, zip_source_seek(source, 0, SEEK_SET) == 0 else {
            throw ZipError(function: "zip_source_tell", error: zip_source_error(source))
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress, zip_uint64_t(size)) }
        guard read == size else { throw ZipError(function: "zip_source_read", error: zip_source_error(source)) }
        return bytes
    }
}
