import Crypto
import Foundation
import WalletOrders

/// The `Authorization` header of Apple's web services: `AppleOrder <token>` for orders,
/// `ApplePass <token>` for passes.
enum AppleAuthorization {
    /// The token of `AppleOrder <token>` or `ApplePass <token>`, as `kind` says (the scheme is
    /// case-insensitive, as HTTP schemes are).
    static func token(_ header: String?, of kind: ArchiveKind) -> String? {
        guard let header, header.utf8.count <= 1_024 else { return nil }
        let scheme = kind == .order ? "appleorder " : "applepass "
        guard header.utf8.count > scheme.utf8.count, header.prefix(scheme.count).lowercased() == scheme else { return nil }
        let token = String(header.dropFirst(scheme.count).trimmingOptionalWhitespace)
        return token.isEmpty ? nil : token
    }

    /// Whether the header's scheme is `ApplePass`: the registration paths of both services are
    /// the same, and the scheme says which one a device speaks to.
    static func isPass(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.utf8.count > 10 && header.prefix(10).lowercased() == "applepass "
    }

    /// Whether `presented` opens an archive whose token is `current` (and was `previous` before a
    /// version changed it): never without a token, nor for an archive without one. Compared in
    /// constant time, and compared even when there is nothing to compare with (`current` `nil`
    /// for an unknown archive too), so that an unknown archive costs what a wrong token costs.
    ///
    /// The previous token opens it too: a device registered with it learns the new one only
    /// from the version that carries it. Both are always compared.
    static func admits(_ presented: String?, current: String?, previous: String?) -> Bool {
        let matchesCurrent = TokenComparison.equal(presented ?? "", current ?? "\u{0}no archive\u{0}")
        let matchesPrevious = TokenComparison.equal(presented ?? "", previous ?? "\u{0}no token\u{0}")
        // An archive whose current version has no token is open to no one, the previous token included.
        guard presented != nil, current != nil else { return false }
        return matchesCurrent || matchesPrevious && previous != nil
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
