import WalletOrdersInterop

/// Secrets drawn from OpenSSL's generator, as text: the stores' link secrets, `init`'s
/// `authenticationToken`, the service checker's made-up identifiers.
package enum RandomSecret {
    /// `count` random bytes as lowercase hex (`2 × count` characters).
    package static func hex(bytes count: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in SecureRandom.bytes(count) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `length` characters drawn evenly from A–Z, a–z and 0–9 (5.95 bits each: 32 characters hold
    /// 190 bits), safe in a header, a URL and JSON without escaping.
    package static func token(length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(length)
        while text.count < length {
            // 62 × 4 = 248: a byte of 248 or more is dropped, so each character is equally likely.
            for byte in SecureRandom.bytes(length) where byte < 248 && text.count < length {
                text.append(alphabet[Int(byte % 62)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
