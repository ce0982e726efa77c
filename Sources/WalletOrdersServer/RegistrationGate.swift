import Foundation
import HTTPTypes
import Hummingbird
import WalletOrdersStore

/// What every device registration goes through before the store sees it, for orders and passes
/// alike: the client's rates (one bucket for refused registrations, one for accepted ones, so
/// wrong tokens from an address don't hold back a device there with the right one) and Apple's
/// `PushToken` body, read within its size limit.
struct RegistrationGate: Sendable {
    let trustedProxies: TrustedProxies
    /// Per client address: registrations with the archive's token, and refused ones (a wrong
    /// token or an unknown archive); `nil`: no limit.
    let limiters: (accepted: RateLimiter, refused: RateLimiter)?

    /// The key the client's rates are kept under; `nil` when there are no rates.
    func client(_ request: Request, _ context: OrderRequestContext) -> String? {
        limiters.map { _ in
            IPAddressRange.limitKey(
                trustedProxies.client(
                    socketAddress: context.remoteAddress?.ipAddress ?? "unknown", forwardedFor: request.headers[values: .xForwardedFor]))
        }
    }

    /// Counts a refused registration: 429 once the client refused too often.
    func refused(_ client: String?) throws {
        if let client, let wait = limiters?.refused.acquire(client) { throw Self.tooManyRegistrations(wait: wait) }
    }

    /// Counts an accepted registration: 429 once the client registered too often.
    func accepted(_ client: String?) throws {
        if let client, let wait = limiters?.accepted.acquire(client) { throw Self.tooManyRegistrations(wait: wait) }
    }

    /// The push token of the registration's body (Apple's `PushToken`), at most
    /// ``OrderServiceLimits/maximumRegistrationBodyBytes``.
    func pushToken(_ request: Request, _ context: OrderRequestContext) async throws -> String {
        var limited = context
        limited.maxUploadSize = OrderServiceLimits.maximumRegistrationBodyBytes
        let token: String
        do {
            token = try await request.decode(as: RegistrationBody.self, context: limited).pushToken
        } catch let error as HTTPError where error.status == .badRequest {
            throw ServiceError.badRequest(
                "bad-body", "The body is not a JSON object with a string pushToken.", hint: #"Send {"pushToken": "<hex>"}."#)
        } catch let error where ServiceError.isBodyStreamFailure(error) {
            throw ServiceError.bodyIncomplete
        }
        guard PushNotification.isPlausible(deviceToken: token) else {
            throw ServiceError.badRequest("bad-push-token", "pushToken is not an APNs device token (8 to 200 hexadecimal digits).")
        }
        return token
    }

    private static func tooManyRegistrations(wait: Double) -> ServiceError {
        ServiceError(
            .tooManyRequests, code: "rate-limited", "Too many registrations from this client.",
            hint: "Wallet registers a device once per order or pass; try again after Retry-After seconds.",
            headers: [.retryAfter: String(max(1, Int(wait.rounded(.up))))])
    }
}

/// The body of a registration (Apple's `PushToken`).
struct RegistrationBody: Decodable {
    /// The device's APNs token, in hexadecimal.
    var pushToken: String
}
