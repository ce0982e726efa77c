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

    /// Whether `token` can be an APNs device token: 8 to 200 hexadecimal digits (64 today; Apple
    /// says not to assume a length, and 100 bytes is the most it has announced). Registration
    /// refuses any other with 400, so a token it takes is one the APNs client sends.
    public static func isPlausible(deviceToken token: String) -> Bool {
        (8...200).contains(token.utf8.count) && token.utf8.allSatisfy(\.isHexDigit)
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
    /// Any other refusal (`BadTopic`, `MissingTopic`, `BadPriority`, `PayloadTooLarge`, 404
    /// `BadPath`, an unexpected status): retrying the same request won't change it, and since a
    /// Wallet push carries only its token and topic, neither would another push of the topic. The
    /// push is parked with its topic, like ``credentialsRefused(reason:)``, not dropped.
    case rejected(reason: String)
}

/// Sends pushes: ``APNsClient`` in production, anything else in tests of the outbox worker.
public protocol PushSender: Sendable {
    /// Sends one notification and says what became of it; never throws (a failure is an outcome).
    func send(_ notification: PushNotification) async -> PushOutcome

    /// Sends one notification and says what became of it with what APNs said (its status,
    /// `apns-id`, the credential used); by default the outcome of ``send(_:)`` alone.
    func sendReporting(_ notification: PushNotification) async -> PushReceipt
}

/// One push's outcome and what APNs said, for the delivery trail (``DeliveryTrailRecorder``).
public struct PushReceipt: Sendable, Hashable {
    /// What became of the push.
    public var outcome: PushOutcome
    /// APNs's HTTP status; `nil` when no answer came (a lost connection, a refused handshake).
    public var status: Int?
    /// APNs's `apns-id` for the push.
    public var apnsID: String?
    /// The credential the push was sent with: the provider token's key and team, or the client
    /// certificate; `nil` when none was (no credentials for the topic).
    public var credential: String?

    public init(outcome: PushOutcome, status: Int? = nil, apnsID: String? = nil, credential: String? = nil) {
        self.outcome = outcome
        self.status = status
        self.apnsID = apnsID
        self.credential = credential
    }

    /// What would fix a push APNs refused for its credentials or its topic, by APNs's reason;
    /// `nil` for other outcomes.
    public var fix: String? {
        guard case .credentialsRefused(let reason) = outcome else {
            if case .deviceGone(let reason) = outcome, reason.hasPrefix("DeviceTokenNotForTopic") {
                return "The device registered with a token of another topic: the order's type (the topic) must be the pass type the "
                    + "device's Wallet registered for; check that the order type identifier of the archive is the APNs topic."
            }
            return nil
        }
        if reason.hasPrefix("no APNs credentials") {
            return "The service has no credentials for this topic: give apns.tokenKey (with apns.keyID and apns.teamID), or put "
                + "the order type's identity in the signing folder (signing.directory)."
        }
        switch reason.split(separator: " ").first.map(String.init) ?? reason {
        case "InvalidProviderToken":
            return "APNs doesn't take the provider token: check apns.keyID and apns.teamID, and that the .p8 is an APNs auth key "
                + "of that team (Certificates, Identifiers & Profiles → Keys)."
        case "ExpiredProviderToken":
            return "The provider token is older than an hour by APNs's clock: check this server's clock (NTP)."
        case "MissingProviderToken":
            return "No credential was sent: give apns.tokenKey, apns.keyID and apns.teamID, or the Order Type ID certificate."
        case "BadCertificate":
            return "APNs refused the client certificate: use the Order Type ID certificate of this order type, with its key, "
                + "chained to Apple's WWDR intermediate, and not expired."
        case "BadCertificateEnvironment":
            return "The certificate is for the other APNs environment: set apns.environment (production or development) to match."
        case "TopicDisallowed", "Forbidden":
            return "The credential may not push to this topic: the order type identifier must belong to the team of the key, "
                + "or be the Order Type ID certificate's own (its subject UID)."
        default:
            return "Check the APNs credentials for this topic (apns.* settings or the signing folder), then the parked pushes resume."
        }
    }
}

extension PushSender {
    /// Sends `notification` and says what became of it, with what APNs said: the outcome alone
    /// unless the sender knows more (``APNsClient`` does).
    public func sendReporting(_ notification: PushNotification) async -> PushReceipt {
        PushReceipt(outcome: await send(notification))
    }
}
