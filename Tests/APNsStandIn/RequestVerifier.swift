import Crypto
import Foundation
import Synchronization

/// The stand-in's checks of one request, in APNs' order: the route, the caller, then what the push
/// says. Each refusal is a status and one of APNs' `reason` strings (or, for a payload other than
/// `{}`, the stand-in's own `BadPayload`, which real APNs doesn't check).
struct RequestVerifier: Sendable {
    struct Refusal: Error, Hashable {
        var status: Int
        var reason: String
    }

    let clientCertificatesAccepted: Bool
    let tokenKey: APNsStandIn.ProviderTokenKey?
    let publicKey: P256.Signing.PublicKey?
    let maximumTokenAge: TimeInterval
    /// Provider tokens whose signature verified, with their `iat`: a provider sends the same
    /// token for many pushes (APNs asks it to, for up to an hour), so each is verified once; its
    /// age is still checked on every push.
    private let verifiedTokens = VerifiedTokens()

    /// The last few tokens that verified (a provider has one at a time; a handful covers a rollover).
    final class VerifiedTokens: Sendable {
        private let tokens = Mutex<[(jwt: String, issuedAt: Double)]>([])

        func issuedAt(_ jwt: String) -> Double? {
            tokens.withLock { tokens in tokens.first { $0.jwt == jwt }?.issuedAt }
        }

        func remember(_ jwt: String, issuedAt: Double) {
            tokens.withLock { tokens in
                tokens.insert((jwt, issuedAt), at: 0)
                if tokens.count > 8 { tokens.removeLast() }
            }
        }
    }

    init(configuration: APNsStandIn.Configuration) throws {
        clientCertificatesAccepted = configuration.clientCertificateAuthorityPEM != nil
        tokenKey = configuration.providerToken
        publicKey = try configuration.providerToken.map { try P256.Signing.PublicKey(pemRepresentation: $0.publicKeyPEM) }
        maximumTokenAge = configuration.maximumTokenAge
    }

    /// `nil` when the request is a good push; the refusal otherwise.
    func check(_ request: IncomingRequest, clientCertificateUID: String?, now: Date = Date()) -> Refusal? {
        do {
            try checkRoute(request)
            try checkCaller(request, clientCertificateUID: clientCertificateUID, now: now)
            try checkPush(request)
            return nil
        } catch let refusal as Refusal {
            return refusal
        } catch {
            return Refusal(status: 500, reason: "InternalServerError")
        }
    }

    private func checkRoute(_ request: IncomingRequest) throws {
        guard request.path.hasPrefix("/3/device/") else { throw Refusal(status: 404, reason: "BadPath") }
        guard request.method == "POST" else { throw Refusal(status: 405, reason: "MethodNotAllowed") }
        let token = request.deviceToken
        guard !token.isEmpty, token.count <= 200, token.allSatisfy(\.isHexDigit) else {
            throw Refusal(status: 400, reason: "BadDeviceToken")
        }
    }

    private func checkCaller(_ request: IncomingRequest, clientCertificateUID: String?, now: Date) throws {
        guard let topic = request.headers["apns-topic"], !topic.isEmpty else {
            throw Refusal(status: 400, reason: "MissingTopic")
        }
        if request.headers["authorization"] != nil {
            guard tokenKey != nil else { throw Refusal(status: 403, reason: "InvalidProviderToken") }
            try checkProviderToken(request.bearerToken, now: now)
        } else if let uid = clientCertificateUID, clientCertificatesAccepted {
            // APNs ties a certificate to its topic: the subject UID is the order type identifier.
            guard uid == topic else { throw Refusal(status: 400, reason: "TopicDisallowed") }
        } else {
            throw Refusal(status: 403, reason: "MissingProviderToken")
        }
    }

    private func checkProviderToken(_ jwt: String?, now: Date) throws {
        let invalid = Refusal(status: 403, reason: "InvalidProviderToken")
        guard let jwt, let tokenKey, let publicKey else { throw invalid }
        if let iat = verifiedTokens.issuedAt(jwt) {
            if now.timeIntervalSince1970 - iat > maximumTokenAge { throw Refusal(status: 403, reason: "ExpiredProviderToken") }
            return
        }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Self.base64URLDecode(parts[0]), let claimsData = Self.base64URLDecode(parts[1]),
            let signatureData = Self.base64URLDecode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { throw invalid }
        guard header["alg"] as? String == "ES256", header["kid"] as? String == tokenKey.keyID,
            claims["iss"] as? String == tokenKey.teamID, let iat = (claims["iat"] as? NSNumber)?.doubleValue
        else { throw invalid }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw invalid }
        if now.timeIntervalSince1970 - iat > maximumTokenAge {
            throw Refusal(status: 403, reason: "ExpiredProviderToken")
        }
        verifiedTokens.remember(jwt, issuedAt: iat)
    }

    private func checkPush(_ request: IncomingRequest) throws {
        guard let pushType = request.headers["apns-push-type"] else {
            throw Refusal(status: 400, reason: "InvalidPushType")
        }
        guard pushType == "background" else { throw Refusal(status: 400, reason: "InvalidPushType") }
        guard request.headers["apns-priority"] == "5" else { throw Refusal(status: 400, reason: "BadPriority") }
        if request.bodyTooLarge { throw Refusal(status: 413, reason: "PayloadTooLarge") }
        if request.body.isEmpty { throw Refusal(status: 400, reason: "PayloadEmpty") }
        if request.body == Array("{}".utf8) { return }  // what every order push carries
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            object.isEmpty
        else { throw Refusal(status: 400, reason: "BadPayload") }
    }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
