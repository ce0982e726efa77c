import Foundation
import CWalletOrdersZip
import Synchronization

/// Writes zip archives into memory: no temporary files, one output buffer, deflate through zlib.
///
/// Written by hand rather than through libzip: an order archive is a handful of small entries,
/// and libzip's source layers, per-entry copies and per-stream deflate allocation cost more than
/// the compression itself. The format is the plain one every reader accepts (and what libzip
/// wrote for us before): local header, data, central directory, end record; no data
/// descriptors, no extra fields, no ZIP64 (orders are far below its limits; larger input is
/// refused).
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

    /// The deflate level archives are written with unless asked otherwise (zlib's 1–9).
    package static let defaultLevel: Int32 = 9

    /// Writes `entries`, in the given order, and returns the archive's bytes.
    ///
    /// Every entry gets the same timestamp, Unix permissions 0644, UTF-8 names and (when
    /// deflated) compression `level`, so equal input gives equal output.
    ///
    /// The corresponding C functions are zlib's `deflateInit2`, `deflateReset`, `deflate` and `crc32_z`.
    package static func write(_ entries: [Entry], timestamp: DOSTimestamp, level: Int32 = defaultLevel) throws(ZipError)
        -> [UInt8]
    {
        guard entries.count < 0xFFFF else {
            throw ZipError(function: "ZipWriter.write", code: ZIP_ER_INVAL, message: "Too many entries for a zip without ZIP64")
        }
        var capacity = 22
        for entry in entries { capacity += entry.bytes.count + 76 + 2 * entry.path.utf8.count + 64 }
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var central: [UInt8] = []
        central.reserveCapacity(entries.count * 80)
        let flagsForLevel: UInt16 = level >= 8 ? 0x0002 : level <= 2 ? 0x0004 : 0  // "maximum" / "fast" / normal

        for entry in entries {
            let name = Array(entry.path.utf8)
            let crc = entry.bytes.withUnsafeBytes { buffer in
                UInt32(crc32_z(0, buffer.baseAddress?.assumingMemoryBound(to: Bytef.self), buffer.count))
            }
            let data = entry.deflate ? try Deflater.deflate(entry.bytes, level: level) : entry.bytes
            let offset = out.count
            guard offset <= 0xFFFF_FFFF - data.count, entry.bytes.count < 0xFFFF_FFFF, name.count < 0xFFFF else {
                throw ZipError(
                    function: "ZipWriter.write(\(entry.path))", code: ZIP_ER_INVAL, message: "Entry too large for a zip without ZIP64")
            }
            let method: UInt16 = entry.deflate ? 8 : 0
            let needed: UInt16 = entry.deflate ? 20 : 10
            let flags: UInt16 = (entry.deflate ? flagsForLevel : 0) | (name.allSatisfy { $0 < 0x80 } ? 0 : 0x0800)

            // Local file header.
            append32(0x0403_4B50, to: &out)
            append16(needed, to: &out)
            append16(flags, to: &out)
            append16(method, to: &out)
            append16(timestamp.time, to: &out)
            append16(timestamp.date, to: &out)
            append32(crc, to: &out)
            append32(UInt32(data.count), to: &out)
            append32(UInt32(entry.bytes.count), to: &out)
            append16(UInt16(name.count), to: &out)
            append16(0, to: &out)
            out += name
            out += data

            // Central directory header.
            append32(0x0201_4B50, to: &central)
            append16(0x033F, to: &central)  // made by: Unix, zip 6.3
            append16(needed, to: &central)
            append16(flags, to: &central)
            append16(method, to: &central)
            append16(timestamp.time, to: &central)
            append16(timestamp.date, to: &central)
            append32(crc, to: &central)
            append32(UInt32(data.count), to: &central)
            append32(UInt32(entry.bytes.count), to: &central)
            append16(UInt16(name.count), to: &central)
            append16(0, to: &central)  // extra field
            append16(0, to: &central)  // comment
            append16(0, to: &central)  // disk
            append16(0, to: &central)  // internal attributes
            append32(UInt32(0o100644) << 16, to: &central)  // regular file, rw-r--r--
            append32(UInt32(offset), to: &central)
            central += name
        }
        let centralOffset = out.count
        guard centralOffset <= 0xFFFF_FFFF - central.count else {
            throw ZipError(function: "ZipWriter.write", code: ZIP_ER_INVAL, message: "Archive too large for a zip without ZIP64")
        }
        out += central
        // End of central directory record.
        append32(0x0605_4B50, to: &out)
        append16(0, to: &out)
        append16(0, to: &out)
        append16(UInt16(entries.count), to: &out)
        append16(UInt16(entries.count), to: &out)
        append32(UInt32(central.count), to: &out)
        append32(UInt32(centralOffset), to: &out)
        append16(0, to: &out)
        return out
    }

    private static func append16(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    private static func append32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 24))
    }
}

/// Raw deflate with reused zlib streams: setting up a stream allocates and clears a few hundred
/// KiB, which for a 4 KB `order.json` costs more than compressing it. A few idle streams per
/// level are kept (thread-safe); `deflateReset` makes a reused stream behave as a new one, so
/// output doesn't depend on reuse.
enum Deflater {
    final class Stream: @unchecked Sendable {  // used by one caller at a time (taken from the pool)
        let pointer: UnsafeMutablePointer<z_stream>
        let level: Int32

        init(level: Int32) throws(ZipError) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: z_stream())
            self.level = level
            guard CWalletOrdersZip_deflateInitRaw(pointer, level) == Z_OK else {
                pointer.deallocate()
                throw ZipError(function: "deflateInit2", code: ZIP_ER_MEMORY, message: "Setting up deflate failed")
            }
        }

        deinit {
            deflateEnd(pointer)
            pointer.deallocate()
        }
    }

    private static let idle = Mutex<[Stream]>([])
    private static let maximumIdle = 16

    static func deflate(_ bytes: [UInt8], level: Int32) throws(ZipError) -> [UInt8] {
        let reused = idle.withLock { streams -> Stream? in
            guard let index = streams.lastIndex(where: { $0.level == level }) else { return nil }
            return streams.remove(at: index)
        }
        let stream: Stream
        if let reused { stream = reused } else { stream = try Stream(level: level) }
        defer {
            idle.withLock { streams in
                if streams.count < maximumIdle { streams.append(stream) }
            }
        }
        let z = stream.pointer
        guard deflateReset(z) == Z_OK else {
            throw ZipError(function: "deflateReset", code: ZIP_ER_INTERNAL, message: "Resetting deflate failed")
        }
        let bound = Int(deflateBound(z, uLong(bytes.count)))
        var out = [UInt8](repeating: 0, count: bound)
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                z.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                z.pointee.avail_in = uInt(input.count)
                z.pointee.next_out = output.baseAddress
                z.pointee.avail_out = uInt(output.count)
                let status = CWalletOrdersZip.deflate(z, Z_FINISH)
                z.pointee.next_in = nil
                z.pointee.next_out = nil
                return status
            }
        }
        guard status == Z_STREAM_END else {
            throw ZipError(function: "deflate", code: ZIP_ER_INTERNAL, message: "Deflate did not finish (zlib status \(status))")
        }
        out.removeSubrange(Int(z.pointee.total_out)...)
        return out
    }
}
