import CWalletOrdersOpenSSL
import Foundation

/// Scoped access to OpenSSL memory BIOs. BIOs are mutable handles: they never escape these functions.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes` (no copy).
    ///
    /// The corresponding C function is `BIO_new_mem_buf`; the BIO borrows the buffer, so it
    /// must not outlive the closure, and it doesn't.
    static func withReadOnly<Result, Failure: Error>(
        _ bytes: some ContiguousBytes,
        _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = bytes.withUnsafeBytes { buffer in
            // An empty buffer has no base address; give OpenSSL a valid pointer to zero bytes.
            var empty: UInt8 = 0
            let base = buffer.baseAddress ?? withUnsafeMutablePointer(to: &empty) { UnsafeRawPointer($0) }
            guard let bio = BIO_new_mem_buf(base, Int32(buffer.count)) else {
                fatalError("BIO_new_mem_buf failed: out of memory")
            }
            defer { BIO_free(bio) }
            do throws(Failure) {
                return .success(try body(bio))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Runs `body` with a fresh writable memory BIO and returns what it wrote.
    ///
    /// The corresponding C functions are `BIO_new(BIO_s_mem())` and `BIO_get_mem_data`.
    static func collecting<Failure: Error>(
        _ body: (OpaquePointer) throws(Failure) -> Void
    ) throws(Failure) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("BIO_new failed: out of memory") }
        defer { BIO_free(bio) }
        try body(bio)
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = CWalletOrdersOpenSSL_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
