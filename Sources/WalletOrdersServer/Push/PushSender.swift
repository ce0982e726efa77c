/// One push to one device: Wallet's order update notification.
///
/// Wallet's protocol fixes everything else: the topic is the order type identifier, the push
/// type `background`, the priority 5 and the payload `{}` (Apple's protocol). The push names no order;
/// the device asks the web service which of its orders changed.
public struct PushNotification: Sendable, Hashable {
    /// The APNs device token the device registered with (hex).
    public var deviceToken: String
    /// The APNs topic: the order type identifier.
    public var topic: String

    /// Creates a notification for `deviceToken` on `topic`.
    public init(deviceToken: String, topic: String) {
        self.deviceToken = deviceToken
        self.topic = topic
    }
}

/// What became of one push.
public enum PushOutcome: Sendable, Hashable {
    /// APNs accepted it (HTTP 200).
    case delivered
    /// A passing failure (429, 5xx, a lost connection): try again, no sooner than `after` when
    /// the service said when (`Retry-After`).
    case retryLater(after: Duration?, reason: String)
    /// The device token is no longer valid for the topic (410 `Unregistered`, `ExpiredToken`,
    /// 400 `BadDeviceToken`, `DeviceTokenNotForTopic`): remove its registrations.
    case deviceGone(reason: String)
    /// APNs refused the provider's credentials (403: `InvalidProviderToken`,
    /// `ExpiredProviderToken`, `BadCertificate`, `BadCertificateEnvironment`,
    /// `MissingProviderToken`, `Forbidden`…; 400 `TopicDisallowed`; a client certificate refused
    /// in the TLS handshake; no credentials for the topic): the push is parked, not dropped, until
    /// the credentials work again.
    case credentialsRefused(reason: String)
    /// A failure of the push itself that retrying won't fix (`BadTopic`, `PayloadTooLarge`,
    /// `BadPriority`…): the push is dropped and the reason logged; the registration is kept.
    case rejected(reason: String)
}

/// Sends pushes: ``APNsClient`` in production, anything else in tests of the outbox worker.
public protocol PushSender: Sendable {
    /// Sends one notification and says what became of it; never throws (a failure is an outcome).
    func send(_ notification: PushNotification) async -> PushOutcome
}
