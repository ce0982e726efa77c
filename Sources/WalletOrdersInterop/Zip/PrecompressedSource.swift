import CWalletOrdersZip

/// A libzip source of data that is already deflated: its `ZIP_SOURCE_STAT` reports the deflate
/// method, the uncompressed size and the CRC-32, so `zip_close` copies the bytes as they are
/// instead of compressing them again (libzip recompresses only when a source's method differs
/// from the entry's, and takes size and CRC from the source's stat).
final class PrecompressedSource {
    private let compressed: [UInt8]
    private let size: UInt64
    private let crc: UInt32
    private var position = 0
    private var error = zip_error_t()

    private init(compressed: [UInt8], size: Int, crc: UInt32) {
        self.compressed = compressed
        self.size = UInt64(size)
        self.crc = crc
        zip_error_init(&error)
    }

    deinit { zip_error_fini(&error) }

    /// A `zip_source_function` source over `compressed`. The source holds one retain on its
    /// context, released when libzip frees the source (`ZIP_SOURCE_FREE`).
    static func make(in archive: OpaquePointer, compressed: [UInt8], size: Int, crc: UInt32) throws(ZipError) -> OpaquePointer {
        let context = Unmanaged.passRetained(PrecompressedSource(compressed: compressed, size: size, crc: crc))
        guard let source = zip_source_function(archive, callback, context.toOpaque()) else {
            context.release()
            throw ZipError(function: "zip_source_function", archive: archive)
        }
        return source
    }

    private static let supported: zip_int64_t = [
        ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
    ]
    .reduce(0) { $0 | (zip_int64_t(1) << zip_int64_t($1.rawValue)) }

    private static let callback: zip_source_callback = { userdata, data, length, command in
        let context = Unmanaged<PrecompressedSource>.fromOpaque(userdata!)
        let source = context.takeUnretainedValue()
        switch command {
        case ZIP_SOURCE_OPEN:
            source.position = 0
            return 0
        case ZIP_SOURCE_READ:
            let count = min(Int(length), source.compressed.count - source.position)
            if count > 0, let data {
                source.compressed.withUnsafeBytes { bytes in
                    data.copyMemory(from: bytes.baseAddress! + source.position, byteCount: count)
                }
            }
            source.position += max(count, 0)
            return zip_int64_t(max(count, 0))
        case ZIP_SOURCE_CLOSE:
            return 0
        case ZIP_SOURCE_STAT:
            guard let data, length >= MemoryLayout<zip_stat_t>.size else { return -1 }
            let stat = data.assumingMemoryBound(to: zip_stat_t.self)
            zip_stat_init(stat)
            stat.pointee.valid = zip_uint64_t(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC)
            stat.pointee.size = source.size
            stat.pointee.comp_size = zip_uint64_t(source.compressed.count)
            stat.pointee.comp_method = zip_uint16_t(ZIP_CM_DEFLATE)
            stat.pointee.crc = source.crc
            return zip_int64_t(MemoryLayout<zip_stat_t>.size)
        case ZIP_SOURCE_ERROR:
            return zip_error_to_data(&source.error, data, length)
        case ZIP_SOURCE_FREE:
            context.release()
            return 0
        case ZIP_SOURCE_SUPPORTS:
            return supported
        default:
            zip_error_set(&source.error, ZIP_ER_OPNOTSUPP, 0)
            return -1
        }
    }
}
