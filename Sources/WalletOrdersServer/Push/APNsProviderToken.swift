import Crypto
import Foundation
import Synchronization

/// Signs and caches APNs provider tokens: ES256 JWTs with the header `{"alg":"ES256","kid":…}` and
/// the claims `{"iss": <team ID>, "iat": <seconds since 1970>}`.
///
/// One token is reused for ``lifetime`` (APNs refuses tokens older than an hour, and new ones more
/// often than every 20 minutes), then a new one is signed. ``invalidate(_:)`` drops a token APNs
/// called expired, once, however many pushes saw it at the same time.
final class APNsProviderToken: Sendable {
    private struct Cached {
        var jwt: String
        var signedAt: ContinuousClock.Instant
    }

    let keyID: String
    let teamID: String
    let lifetime: Duration
    private let key: P256.Signing.PrivateKey
    private let cached = Mutex<Cached?>(nil)

    /// - Throws: ``APNsConfigurationError`` when `privateKeyPEM` isn't a P-256 key.
    init(keyID: String, teamID: String, privateKeyPEM: String, lifetime: Duration) throws {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw APNsConfigurationError("the provider token key is not a P-256 private key in PEM (\(error))")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.lifetime = lifetime
    }

    /// The current token, signing a new one when there is none or it has lived ``lifetime``.
    func current() throws -> String {
        let now = ContinuousClock.now
        return try cached.withLock { cached in
            if let token = cached, token.signedAt.duration(to: now) < lifetime { return token.jwt }
            let jwt = try sign(issuedAt: Date())
            cached = Cached(jwt: jwt, signedAt: now)
            return jwt
        }
    }

    /// Forgets `jwt` if it is still the current token (APNs said `ExpiredProviderToken`).
    func invalidate(_ jwt: String) {
        cached.withLock { cached in
            if cached?.jwt == jwt { cached = nil }
        }
    }

    /// A new token issued at `issuedAt`.
    func sign(issuedAt: Date) throws -> String {
        let header = #"{"alg":"ES256","kid":\#(JSONText.quoted(keyID))}"#
        let claims = #"{"iss":\#(JSONText.quoted(teamID)),"iat":\#(Int(issuedAt.timeIntervalSince1970))}"#
        let signingInput = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Self.base64URL(signature.rawRepresentation)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
