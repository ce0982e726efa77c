import CWalletOrdersOpenSSL
package import Foundation

/// SHA-256 through libcrypto, with the algorithm fetched once per process.
package enum SHA256 {
    /// The SHA-256 digest of `bytes`.
    ///
    /// The corresponding C function is `EVP_Digest`.
    package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] { MessageDigest.sha256.hash(bytes) }

    /// The digest as 64 lowercase hexadecimal characters.
    package static func hexHash(_ bytes: some ContiguousBytes) -> String { MessageDigest.sha256.hexHash(bytes) }
}

/// A message digest OpenSSL computes, fetched once: SHA-256 (order manifests, signatures) or
/// SHA-1 (pass manifests, which Apple's format fixes to SHA-1).
package struct MessageDigest: Sendable {
    /// The fetched `EVP_MD`. Fetching once avoids OpenSSL 3's per-call implicit fetch.
    private struct FetchedDigest: @unchecked Sendable {  // EVP_MD is immutable and reference counted once fetched.
        let md: OpaquePointer
    }
    private let fetched: FetchedDigest
    /// OpenSSL's name of the digest.
    package let name: String
    /// The digest's length in bytes.
    package let length: Int

    private init(_ name: String, length: Int) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            fatalError("EVP_MD_fetch(\(name)) failed: \(OpenSSLError.drain(function: "EVP_MD_fetch"))")
        }
        fetched = FetchedDigest(md: md)
        self.name = name
        self.length = length
    }

    /// SHA-256 (32 bytes).
    package static let sha256 = MessageDigest("SHA256", length: 32)
    /// SHA-1 (20 bytes).
    package static let sha1 = MessageDigest("SHA1", length: 20)

    /// The digest of `bytes`.
    ///
    /// The corresponding C function is `EVP_Digest`.
    package func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        var written: UInt32 = UInt32(length)
        let ok = bytes.withUnsafeBytes { buffer in
            digest.withUnsafeMutableBytes { out in
                EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &written, fetched.md, nil)
            }
        }
        precondition(ok == 1 && Int(written) == length, "EVP_Digest(\(name)) failed")
        return digest
    }

    /// The digest as lowercase hexadecimal characters, two per byte.
    package func hexHash(_ bytes: some ContiguousBytes) -> String {
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
