import CWalletOrdersZip
import Synchronization

/// Raw deflate (RFC 1951) with zlib, one state reused for every entry of an archive.
///
/// Why not libzip's own deflate: libzip 1.7 opens a fresh zlib stream for every entry with
/// `memLevel` 9, which allocates about 450 KB and clears a 128 KB hash table each time. Here one
/// stream serves every entry of an archive, with `memLevel` 6 (a 16 KB hash table, cleared by
/// `deflateReset`) and the same 32 KB window; on order files the output is as small. Libzip still
/// writes the archive: it receives the compressed bytes through ``PrecompressedSource``.
///
/// Streams are kept between archives too (``borrow(level:_:)``), so a batch starts one per
/// thread instead of one per archive.
///
/// Deflating remains the largest cost of a build after the RSA signature (about 0.3 M
/// instructions for the shipped sample's 4.5 kB `order.json`), which is why ``ZipWriter``
/// stores files under 1 KiB and whatever deflate would not shrink, and the builder offers `store`.
///
/// The corresponding C functions are `deflateInit2_`, `deflateBound`, `deflate`,
/// `deflateReset`, `deflateEnd` and `crc32`.
///
/// A deflater is used by one thread at a time: the one that created it, or the one that took it
/// from the pool (hence `@unchecked Sendable`).
package final class Deflater: @unchecked Sendable {
    private var stream = z_stream()
    /// The zlib level the stream was started at.
    package let level: Int32

    /// Idle deflaters, for ``borrow(level:_:)``: at most ``poolCapacity``, in practice one per
    /// thread that builds at once.
    private static let pool = Mutex<[Deflater]>([])
    /// The most idle deflaters kept (about 150 KB each).
    private static let poolCapacity = 16

    /// Runs `body` with an idle deflater at `level` (a new one when none is idle) and keeps it
    /// for the next caller afterwards, unless `body` threw: a stream zlib failed on is ended.
    package static func borrow<Result>(level: Int32, _ body: (Deflater) throws(ZipError) -> Result) throws(ZipError) -> Result {
        let idle = pool.withLock { deflaters -> Deflater? in
            guard let index = deflaters.lastIndex(where: { $0.level == level }) else { return nil }
            return deflaters.remove(at: index)
        }
        let deflater: Deflater
        if let idle { deflater = idle } else { deflater = try Deflater(level: level) }
        let result = try body(deflater)
        pool.withLock { deflaters in
            if deflaters.count < poolCapacity { deflaters.append(deflater) }
        }
        return result
    }

    /// Window bits: negative for raw deflate (no zlib header), as zip entries need.
    private static let windowBits: Int32 = -15
    /// Hash table of 2^(6+7) entries; lit buffer of 2^(6+6) symbols.
    private static let memoryLevel: Int32 = 6

    /// A deflater at zlib `level` (1 fastest … 9 smallest).
    package init(level: Int32) throws(ZipError) {
        self.level = level
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, Self.windowBits, Self.memoryLevel, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ZipError(function: "deflateInit2", code: ZIP_ER_ZLIB, systemCode: status, message: "zlib could not start a deflate stream")
        }
    }

    deinit { deflateEnd(&stream) }

    /// The raw deflate stream of `bytes`, or `nil` when it would not be smaller than `bytes`
    /// (the entry is then better stored).
    package func deflate(_ bytes: [UInt8]) throws(ZipError) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        var status = deflateReset(&stream)
        guard status == Z_OK else {
            throw ZipError(function: "deflateReset", code: ZIP_ER_ZLIB, systemCode: status, message: "zlib could not reset the deflate stream")
        }
        // deflateBound is an upper bound for one Z_FINISH call, so a single call always completes.
        let capacity = Int(deflateBound(&stream, uLong(bytes.count)))
        var produced = 0
        var output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                status = CWalletOrdersZip.deflate(&stream, Z_FINISH)
                produced = buffer.count - Int(stream.avail_out)
                stream.next_in = nil
                stream.next_out = nil
            }
            initialized = produced
        }
        guard status == Z_STREAM_END else {
            throw ZipError(function: "deflate", code: ZIP_ER_ZLIB, systemCode: status, message: "zlib could not finish the deflate stream")
        }
        guard produced < bytes.count else { return nil }
        output.removeLast(output.count - produced)
        return output
    }

    /// The CRC-32 of `bytes`, as zip headers store it.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(CWalletOrdersZip.crc32_z(0, buffer.baseAddress, z_size_t(buffer.count)))
        }
    }
}
