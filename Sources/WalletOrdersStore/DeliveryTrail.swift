public import Foundation
public import WalletOrders
import WalletOrdersInterop

/// One thing that happened on the way from a change to a device: a registration, a push and
/// what APNs answered, a device asking which orders changed, a fetch of the order.
///
/// Events are kept in short trails (``DeliveryTrailLimits``): one per registration (its
/// registrations and removals), one per push token and order type (its pushes: a push names no
/// order), one per device and order type (its changed-orders requests: they name no order), one
/// per order (its fetches: they name no device). ``DeliveryReport`` puts them together for an
/// order. Device identifiers and push tokens are kept only as short hashes
/// (``DeliveryEvent/hash(_:orderType:)``), and a token's first characters for people to recognise it.
public struct DeliveryEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The device registered for the order (or registered again).
        case registered
        /// The device unregistered, or its registration was removed because APNs said its token
        /// is gone (``Detail/reason``).
        case unregistered
        /// A push to the token on the order type was sent, with APNs's answer.
        case pushed
        /// The device asked which of its orders of the type changed.
        case listed
        /// The order was fetched.
        case fetched
    }

    /// What an event carries besides its kind; each kind fills its own fields.
    public struct Detail: Sendable, Hashable, Codable {
        /// `pushed`: APNs's HTTP status (none when it never answered); `listed`: 200 or 204;
        /// `fetched`: 200, 304 or 401.
        public var status: Int?
        /// `pushed`: APNs's `reason`, or why there was no answer; `unregistered`: why.
        public var reason: String?
        /// `pushed`: APNs's `apns-id`.
        public var apnsID: String?
        /// `pushed`: the credential used (the provider token's key and team, or the certificate).
        public var credential: String?
        /// `pushed`: what would fix a refused push.
        public var fix: String?
        /// `registered`: the push token's first 8 characters.
        public var tokenPrefix: String?
        /// `listed`: the `ordersModifiedSince` tag the device sent (cut to 64 characters).
        public var tagSent: String?
        /// `listed`: the tag answered (`lastModified`).
        public var tagAnswered: String?
        /// `listed`: the order identifiers answered (at most 64).
        public var orderIdentifiers: [String]?
        /// `fetched`: whether `If-None-Match` or `If-Modified-Since` were given.
        public var ifNoneMatch: Bool?
        public var ifModifiedSince: Bool?
        /// `fetched`: the version answered (200) or confirmed (304): its SHA-256 and `updatedAt`.
        public var sha256: String?
        public var updatedAt: String?

        public init(
            status: Int? = nil, reason: String? = nil, apnsID: String? = nil, credential: String? = nil, fix: String? = nil,
            tokenPrefix: String? = nil, tagSent: String? = nil, tagAnswered: String? = nil, orderIdentifiers: [String]? = nil,
            ifNoneMatch: Bool? = nil, ifModifiedSince: Bool? = nil, sha256: String? = nil, updatedAt: String? = nil
        ) {
            self.status = status
            self.reason = reason
            self.apnsID = apnsID
            self.credential = credential
            self.fix = fix
            self.tokenPrefix = tokenPrefix
            self.tagSent = tagSent
            self.tagAnswered = tagAnswered
            self.orderIdentifiers = orderIdentifiers
            self.ifNoneMatch = ifNoneMatch
            self.ifModifiedSince = ifModifiedSince
            self.sha256 = sha256
            self.updatedAt = updatedAt
        }
    }

    public var kind: Kind
    /// When it happened.
    public var at: Date
    /// The order type (the push topic).
    public var orderTypeIdentifier: String
    /// The order (`registered`, `unregistered`, `fetched`).
    public var orderIdentifier: String?
    /// The device's hash (`registered`, `unregistered`, `listed`).
    public var deviceHash: String?
    /// The push token's hash (`registered`, `pushed`).
    public var tokenHash: String?
    public var detail: Detail

    public init(
        _ kind: Kind, at: Date, orderTypeIdentifier: String, orderIdentifier: String? = nil, deviceHash: String? = nil,
        tokenHash: String? = nil, detail: Detail = Detail()
    ) {
        self.kind = kind
        self.at = at
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.deviceHash = deviceHash
        self.tokenHash = tokenHash
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey {
        case kind, at, orderTypeIdentifier, orderIdentifier, deviceHash, tokenHash, detail
    }

    /// `at` is an RFC 3339 date-time in JSON (whatever the encoder's date strategy).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        at = try Timestamp(rfc3339: try container.decode(String.self, forKey: .at)).date
        orderTypeIdentifier = try container.decode(String.self, forKey: .orderTypeIdentifier)
        orderIdentifier = try container.decodeIfPresent(String.self, forKey: .orderIdentifier)
        deviceHash = try container.decodeIfPresent(String.self, forKey: .deviceHash)
        tokenHash = try container.decodeIfPresent(String.self, forKey: .tokenHash)
        detail = try container.decode(Detail.self, forKey: .detail)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(Timestamp(at).text, forKey: .at)
        try container.encode(orderTypeIdentifier, forKey: .orderTypeIdentifier)
        try container.encodeIfPresent(orderIdentifier, forKey: .orderIdentifier)
        try container.encodeIfPresent(deviceHash, forKey: .deviceHash)
        try container.encodeIfPresent(tokenHash, forKey: .tokenHash)
        try container.encode(detail, forKey: .detail)
    }

    /// A device identifier or push token as the trail of `orderType` keeps it: 12 hexadecimal
    /// characters of a SHA-256 of both (no trail holds the identifier or the token itself).
    ///
    /// The order type is in the hash so that one device has another hash in each order type's
    /// trail: merchants sharing a service can't link a customer across their reports.
    public static func hash(_ identifier: String, orderType: String) -> String {
        String(SHA256.hexHash(Array("wallet-orders delivery\u{0}\(orderType)\u{0}\(identifier)".utf8)).prefix(12))
    }

    /// The trail the event belongs to (see the type's discussion); events of one trail are
    /// bounded together.
    public var trailKey: String {
        Self.trailKey(kind, type: orderTypeIdentifier, order: orderIdentifier, device: deviceHash, token: tokenHash)
    }

    /// The parts of a key are separated by U+001F (unit separator), which no identifier holds
    /// in practice (and no store's text type refuses, as NUL would be).
    static func trailKey(_ kind: Kind, type: String, order: String?, device: String?, token: String?) -> String {
        switch kind {
        case .registered, .unregistered: "registration\u{1F}\(type)\u{1F}\(order ?? "")\u{1F}\(device ?? "")"
        case .pushed: "push\u{1F}\(type)\u{1F}\(token ?? "")"
        case .listed: "list\u{1F}\(type)\u{1F}\(device ?? "")"
        case .fetched: "fetch\u{1F}\(type)\u{1F}\(order ?? "")"
        }
    }

    /// The start of the keys of `order`'s registration trails (one a device).
    public static func registrationTrailPrefix(for order: FullyQualifiedOrderIdentifier) -> String {
        ["registration", order.orderTypeIdentifier, order.orderIdentifier, ""].joined(separator: "\u{1F}")
    }

    /// The start of the keys of the registration trails of the event's order, for a
    /// registration event (``DeliveryTrailLimits/perOrder`` bounds them together); else `nil`.
    package var orderRegistrationPrefix: String? {
        guard kind == .registered || kind == .unregistered, let orderIdentifier else { return nil }
        return Self.registrationTrailPrefix(
            for: FullyQualifiedOrderIdentifier(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier))
    }

    /// The trails an order's report reads: its fetches, each device's registration and
    /// changed-orders requests, each token's pushes.
    public static func trailKeys(
        for order: FullyQualifiedOrderIdentifier, deviceHashes: [String], tokenHashes: [String]
    ) -> [String] {
        let type = order.orderTypeIdentifier
        var keys = [trailKey(.fetched, type: type, order: order.orderIdentifier, device: nil, token: nil)]
        keys += deviceHashes.map { trailKey(.registered, type: type, order: order.orderIdentifier, device: $0, token: nil) }
        keys += deviceHashes.map { trailKey(.listed, type: type, order: nil, device: $0, token: nil) }
        keys += tokenHashes.map { trailKey(.pushed, type: type, order: nil, device: nil, token: $0) }
        return keys
    }
}

/// How much of the delivery trail a store keeps.
///
/// Only what a registered device or a request with an order's token did is recorded, and the
/// shares below keep one order type's traffic (one merchant's, or a flood with one customer's
/// token) from pushing other order types' trails out, and one order's from pushing out the
/// rest of its type's.
public enum DeliveryTrailLimits {
    /// Events kept per trail (a registration, a token's pushes, a device's requests, an order's
    /// fetches): the newest.
    public static let perTrail = 24
    /// Registration events kept per order, over all its devices' registration trails: the
    /// newest (ten devices' full trails; a real order has a handful of devices).
    public static let perOrder = 240
    /// Events kept per order type: the newest (a quarter of ``total``).
    public static let perOrderType = 50_000
    /// Events kept in all: the newest.
    public static let total = 200_000
}

/// Where the delivery trail is kept: in the order store, so every server on it sees every
/// device's trail.
public protocol DeliveryTrailStoring: Sendable {
    /// Appends `events`, then keeps the newest ``DeliveryTrailLimits/perTrail`` of each trail
    /// they belong to, the newest ``DeliveryTrailLimits/perOrder`` registration events of each
    /// order, the newest ``DeliveryTrailLimits/perOrderType`` of each order type and the newest
    /// ``DeliveryTrailLimits/total`` in all.
    func recordDeliveryEvents(_ events: [DeliveryEvent]) async throws

    /// The events of the trails `trailKeys` (``DeliveryEvent/trailKey``), oldest first.
    func deliveryEvents(trailKeys: [String]) async throws -> [DeliveryEvent]

    /// The events of every trail whose key starts with `prefix` (such as
    /// ``DeliveryEvent/registrationTrailPrefix(for:)``), oldest first.
    func deliveryEvents(trailKeyPrefix prefix: String) async throws -> [DeliveryEvent]
}

extension DeliveryTrailStoring {
    /// The smallest key after every key that starts with `prefix` (which ends with U+001F): the
    /// exclusive end of a range query for the prefix.
    package static func end(ofPrefix prefix: String) -> String {
        String(prefix.dropLast()) + "\u{20}"
    }
}

extension DeliveryEvent {
    /// The event as the stores keep it (JSON).
    package func encoded() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    package static func decoded(_ text: String) throws -> DeliveryEvent {
        try JSONDecoder().decode(DeliveryEvent.self, from: Data(text.utf8))
    }
}
