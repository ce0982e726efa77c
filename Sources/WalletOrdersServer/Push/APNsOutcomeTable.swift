public import Foundation

/// What each APNs answer means for a push: the one place that turns a status and `reason` into a
/// ``PushOutcome``.
///
/// The rules, first match wins:
///
/// | Answer | Outcome |
/// |---|---|
/// | 200 | ``PushOutcome/delivered`` |
/// | reason `IdleTimeout`, `Shutdown`, `InternalServerError`, `ServiceUnavailable`, `TooManyRequests`, `TooManyProviderTokenUpdates` (any status) | ``PushOutcome/retryLater(after:reason:)`` |
/// | 410 (any reason; APNs sends `Unregistered`, `ExpiredToken`) | ``PushOutcome/deviceGone(reason:)`` |
/// | 400 `BadDeviceToken`, `DeviceTokenNotForTopic` | ``PushOutcome/deviceGone(reason:)`` |
/// | 429, and 500 to 599 (any reason) | ``PushOutcome/retryLater(after:reason:)`` |
/// | 403 (any reason: `BadCertificate`, `BadCertificateEnvironment`, `ExpiredProviderToken`, `InvalidProviderToken`, `MissingProviderToken`, `Forbidden`), 400 `TopicDisallowed` | ``PushOutcome/credentialsRefused(reason:)`` |
/// | anything else: other 400s (`BadTopic`, `MissingTopic`, `BadPriority`, `InvalidPushType`, `PayloadEmpty`, …), 404 `BadPath`, 405 `MethodNotAllowed`, 413 `PayloadTooLarge`, unexpected statuses | ``PushOutcome/rejected(reason:)`` (parked by ``PushWorker`` like refused credentials, never dropped) |
///
/// `retryLater` carries the `Retry-After` header's delay when APNs sent one (seconds, or an
/// HTTP date). The outcome's reason is APNs' `reason`, or `HTTP <status>` when the body had none.
///
/// Failures with no answer at all are ``APNsClient``'s to classify: a refused or lost connection,
/// a timeout → `retryLater`; a TLS handshake the service refused because of the client
/// certificate, or a service certificate the client doesn't trust → `credentialsRefused`.
///
/// - Note: `ExpiredProviderToken` reaches this table only when the push already failed with it
///   once: ``APNsClient`` signs a new token and retries once first.
///
/// - Note: APNs also answers `BadDeviceToken` for a token of the other environment (a development
///   token sent to production). With the wrong ``APNsConfiguration/Endpoint`` every push says
///   `deviceGone`; pick the endpoint that matches the devices.
public enum APNsOutcomeTable {
    /// Reasons that mean "try again later", whatever the status.
    public static let retryReasons: Set<String> = [
        "IdleTimeout", "Shutdown", "InternalServerError", "ServiceUnavailable", "TooManyRequests",
        "TooManyProviderTokenUpdates",
    ]
    /// 400 reasons that mean the device token is no good for the topic.
    public static let deviceGoneReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]

    /// The outcome of an answer with `status`, the body's `reason` and the `Retry-After` header.
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - reason: The `reason` of the JSON body, if any.
    ///   - retryAfter: The `Retry-After` header, if any.
    ///   - now: The time an HTTP-date `Retry-After` is measured from.
    public static func outcome(status: Int, reason: String?, retryAfter: String? = nil, now: Date = Date()) -> PushOutcome {
        let reasonText = reason.flatMap { $0.isEmpty ? nil : $0 } ?? "HTTP \(status)"
        if status == 200 { return .delivered }
        if let reason, retryReasons.contains(reason) {
            return .retryLater(after: retryAfterDelay(retryAfter, now: now), reason: reasonText)
        }
        if status == 410 { return .deviceGone(reason: reasonText) }
        if status == 400, let reason, deviceGoneReasons.contains(reason) { return .deviceGone(reason: reasonText) }
        if status == 429 || (500...599).contains(status) {
            return .retryLater(after: retryAfterDelay(retryAfter, now: now), reason: reasonText)
        }
        if status == 403 || (status == 400 && reason == "TopicDisallowed") { return .credentialsRefused(reason: reasonText) }
        return .rejected(reason: reasonText)
    }

    /// The delay a `Retry-After` header asks for: whole seconds (`120`) or an HTTP date
    /// (`Wed, 21 Oct 2015 07:28:00 GMT`, measured from `now`, never negative); `nil` when absent
    /// or unreadable.
    public static func retryAfterDelay(_ header: String?, now: Date = Date()) -> Duration? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                let seconds = max(0, date.timeIntervalSince(now))
                return .milliseconds(Int64((seconds * 1000).rounded()))
            }
        }
        return nil
    }
}
