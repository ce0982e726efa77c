import CWalletOrdersZip
import Foundation

/// Reads zip archives from memory with libzip.
///
/// Not `Sendable`: a libzip archive handle is mutable state. Open, read and close it inside
/// one task.
package final class ZipReader {
    /// What the central directory says about one entry.
    package struct EntryInfo: Sendable, Hashable {
        /// The entry's index in the central directory.
        package var index: Int
        /// The name's raw bytes, as stored.
        package var rawName: [UInt8]
        /// The name as UTF-8 (invalid sequences replaced with U+FFFD; see ``hasValidUTF8Name``).
        package var name: String
        /// Whether ``rawName`` is valid UTF-8.
        package var hasValidUTF8Name: Bool
        /// The uncompressed size the directory declares.
        package var uncompressedSize: UInt64
        /// The compressed size the directory declares.
        package var compressedSize: UInt64
        /// The `ZIP_CM_*` compression method (0 stored, 8 deflate).
        package var compressionMethod: UInt16
        /// The `ZIP_EM_*` encryption method (0 none).
        package var encryptionMethod: UInt16
        /// The host system that wrote the entry (`ZIP_OPSYS_*`).
        package var hostSystem: UInt8
        /// The external attributes (Unix mode in the upper 16 bits when written on Unix).
        package var externalAttributes: UInt32

        /// Whether the entry is a directory (its name ends with `/`).
        package var isDirectory: Bool { rawName.last == UInt8(ascii: "/") }

        /// Whether the entry is a Unix symbolic link.
        package var isSymbolicLink: Bool {
            (hostSystem == UInt8(ZIP_OPSYS_UNIX) || hostSystem == UInt8(ZIP_OPSYS_OS_X))
                && (externalAttributes >> 16) & 0o170000 == 0o120000
        }
    }

    private let archive: OpaquePointer
    /// Every entry in central-directory order.
    package let entries: [EntryInfo]

    /// Opens an archive held in memory. The bytes are copied once into libzip's buffer.
    ///
    /// The corresponding C functions are `zip_source_buffer_create`, `zip_open_from_source`,
    /// `zip_get_num_entries`, `zip_stat_index`, `zip_get_name` and `zip_file_get_external_attributes`.
    package init(bytes: [UInt8]) throws(ZipError) {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        // No buffer for no bytes: libzip skips an empty buffer, so it would never free it.
        let copy = bytes.isEmpty ? nil : malloc(bytes.count)!
        bytes.withUnsafeBytes { source in
            if let copy, let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) }
        }
        guard let source = zip_source_buffer_create(copy, zip_uint64_t(bytes.count), copy == nil ? 0 : 1, &error) else {
            free(copy)
            throw ZipError(function: "zip_source_buffer_create", error: &error)
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)  // zip_open_from_source takes ownership only on success.
            throw ZipError(function: "zip_open_from_source", error: &error)
        }
        self.archive = archive
        let count = zip_get_num_entries(archive, 0)
        var entries: [EntryInfo] = []
        entries.reserveCapacity(Int(max(count, 0)))
        for index in 0..<max(count, 0) {
            let position = zip_uint64_t(index)
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, position, zip_flags_t(ZIP_FL_ENC_RAW), &stat) == 0 else { continue }
            let rawName =
                zip_get_name(archive, position, zip_flags_t(ZIP_FL_ENC_RAW)).map {
                    Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)))
                } ?? []
            var hostSystem: zip_uint8_t = 0
            var attributes: zip_uint32_t = 0
            _ = zip_file_get_external_attributes(archive, position, 0, &hostSystem, &attributes)
            let decoded = String(validating: rawName, as: UTF8.self)
            entries.append(
                EntryInfo(
                    index: Int(index),
                    rawName: rawName,
                    name: decoded ?? String(decoding: rawName, as: UTF8.self),
                    hasValidUTF8Name: decoded != nil,
                    uncompressedSize: stat.size,
                    compressedSize: stat.comp_size,
                    compressionMethod: UInt16(truncatingIfNeeded: stat.comp_method),
                    encryptionMethod: stat.encryption_method,
                    hostSystem: hostSystem,
                    externalAttributes: attributes
                )
            )
        }
        self.entries = entries
    }

    deinit { zip_discard(archive) }

    /// Reads and decompresses one entry, refusing to produce more than `limit` bytes.
    ///
    /// libzip checks the CRC-32 when the whole entry has been read.
    /// The corresponding C functions are `zip_fopen_index`, `zip_fread` and `zip_fclose`.
    package func read(_ entry: EntryInfo, limit: Int) throws(ZipError) -> [UInt8] {
        guard let file = zip_fopen_index(archive, zip_uint64_t(entry.index), 0) else {
            throw ZipError(function: "zip_fopen_index(\(entry.name))", archive: archive)
        }
        defer { zip_fclose(file) }
        let expected = Int(min(entry.uncompressedSize, UInt64(limit)))
        var bytes = [UInt8](repeating: 0, count: expected + 1)
        var total = 0
        while total < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                zip_fread(file, buffer.baseAddress! + total, zip_uint64_t(buffer.count - total))
            }
            if read < 0 { throw ZipError(function: "zip_fread(\(entry.name))", error: zip_file_get_error(file)) }
            if read == 0 { break }
            total += Int(read)
        }
        if total > expected {
            throw ZipError(
                function: "zip_fread(\(entry.name))", code: ZIP_ER_INCONS,
                message: "Entry expands past its declared size or the \(limit)-byte limit")
        }
        bytes.removeSubrange(total...)
        return bytes
    }
}
