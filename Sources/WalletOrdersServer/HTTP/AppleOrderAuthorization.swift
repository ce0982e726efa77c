import Crypto
import Foundation

/// The `Authorization: AppleOrder <token>` header of Apple's order web service.
enum AppleOrderAuthorization {
    /// The token of `AppleOrder <token>` (the scheme is case-insensitive, as HTTP schemes are).
    static func token(_ header: String?) -> String? {
        guard let header, header.utf8.count <= 1_024 else { return nil }
        let scheme = "appleorder "
        guard header.utf8.count > scheme.utf8.count, header.prefix(scheme.count).lowercased() == scheme else { return nil }
        let token = String(header.dropFirst(scheme.count).trimmingOptionalWhitespace)
        return token.isEmpty ? nil : token
    }
}

/// Equality of secrets in time that doesn't depend on where they differ: both are hashed
/// (so their lengths don't matter either) and the digests compared byte by byte.
enum TokenComparison {
    static func equal(_ presented: String, _ expected: String) -> Bool {
        let a = SHA256.hash(data: Array(presented.utf8))
        let b = SHA256.hash(data: Array(expected.utf8))
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
