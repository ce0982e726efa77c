import CWalletOrdersOpenSSL
package import Foundation

/// SHA-256 through libcrypto, with the algorithm fetched once per process.
package enum SHA256 {
    /// The fetched `EVP_MD`. Fetching once avoids OpenSSL 3's per-call implicit fetch.
    private struct FetchedDigest: @unchecked Sendable {  // EVP_MD is immutable and reference counted once fetched.
        let md: OpaquePointer
    }
    private static let fetched: FetchedDigest = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("EVP_MD_fetch(SHA256) failed: \(OpenSSLError.drain(function: "EVP_MD_fetch"))")
        }
        return FetchedDigest(md: md)
    }()

    /// The SHA-256 digest of `bytes`.
    ///
    /// The corresponding C function is `EVP_Digest`.
    package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        let ok = bytes.withUnsafeBytes { buffer in
            digest.withUnsafeMutableBytes { out in
                EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, fetched.md, nil)
            }
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA256) failed")
        return digest
    }

    /// The digest as 64 lowercase hexadecimal characters.
    package static func hexHash(_ bytes: some ContiguousBytes) -> String {
        Hex.encode(hash(bytes))
    }
}

/// Lowercase hexadecimal encoding.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex, two characters per byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Random bytes from OpenSSL's CSPRNG.
package enum SecureRandom {
    /// `count` random bytes. The corresponding C function is `RAND_bytes`.
    package static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return out
    }
}
