public import Foundation
public import WalletOrders

/// What the order web service needs to know of a stored order to answer a device: who may
/// fetch it and which version it is, without reading the archive.
public struct OrderAccessRecord: Sendable, Hashable {
    /// The order.
    public var identifier: FullyQualifiedOrderIdentifier
    /// The order's `authenticationToken`, or `nil` for an order without one (which no device
    /// can fetch or register for).
    public var authenticationToken: String?
    /// The token the order had before a version changed it, if one did: a device registered
    /// with it can only learn the new one from the version that carries it.
    public var previousAuthenticationToken: String?
    /// The stored version's `updatedAt`.
    public var updatedAt: Timestamp
    /// The stored archive's SHA-256 (lowercase hex): the entity tag of the archive.
    public var sha256: String

    /// Creates a record.
    public init(
        identifier: FullyQualifiedOrderIdentifier, authenticationToken: String?, previousAuthenticationToken: String? = nil,
        updatedAt: Timestamp, sha256: String
    ) {
        self.identifier = identifier
        self.authenticationToken = authenticationToken
        self.previousAuthenticationToken = previousAuthenticationToken
        self.updatedAt = updatedAt
        self.sha256 = sha256
    }
}

/// What registering a device for an order did (Apple's 201 and 200).
public enum DeviceRegistrationResult: String, Sendable, Hashable, Codable {
    /// The device was not registered for the order before (HTTP 201).
    case created
    /// The device was registered already (HTTP 200); the registration's push token was updated
    /// when it changed (the device's registrations for other orders keep theirs).
    case alreadyRegistered
    /// The order (or pass) is not stored (deleted since it was read, for instance): nothing was
    /// registered. The web service answers it as it answers an unknown one (HTTP 401).
    case notFound
}

/// The orders of one type that changed for a device since a tag, and the tag to send next time
/// (Apple's `OrderIdentifiers`: `orderIdentifiers` and `lastModified`).
public struct ChangedOrders: Sendable, Hashable, Codable {
    /// The `orderIdentifier`s of the device's orders of the type that changed since the tag.
    public var orderIdentifiers: [String]
    /// The opaque tag the device echoes back as `ordersModifiedSince`: the store's change
    /// sequence, marked with the store it came from (see ``DeviceRegistrationStoring``).
    public var lastModified: String

    /// Creates a list.
    public init(orderIdentifiers: [String], lastModified: String) {
        self.orderIdentifiers = orderIdentifiers
        self.lastModified = lastModified
    }
}

/// One device registered for an order's updates, with the push token it registered with.
///
/// The push token belongs to the registration (device and order), not to the device: registering
/// for one order, with that order's token, changes nothing of the device's registrations for
/// other orders, and APNs refusing a token removes only the registrations its push was for.
public struct DeviceRegistration: Sendable, Hashable, Codable {
    /// The device library identifier Wallet sent.
    public var deviceIdentifier: String
    /// The APNs push token the device registered with.
    public var pushToken: String

    /// Creates a registration.
    public init(deviceIdentifier: String, pushToken: String) {
        self.deviceIdentifier = deviceIdentifier
        self.pushToken = pushToken
    }

    /// The error for a customer link secret that isn't 32 bytes.
    package static func checkSecret(_ secret: [UInt8]) throws {
        guard secret.count == 32 else {
            throw WalletOrdersError(
                .invalidConfiguration, "A customer link secret is 32 bytes; this one has \(secret.count).",
                hint: "Take the secret from the store the links were made with.")
        }
    }

    /// The store-information key under which a secret accepted with
    /// ``DeviceRegistrationStoring/acceptCustomerLinkSecret(_:)`` is kept (its hex follows).
    package static let acceptedSecretKeyPrefix = "acceptedCustomerLinkSecret:"

    /// A secret as the stores keep it: 64 lowercase hex digits.
    package static func hex(_ secret: [UInt8]) -> String {
        secret.map { String(format: "%02x", $0) }.joined()
    }

    /// The 32 bytes of a secret kept as 64 hex digits; `nil` for anything else.
    package static func secret(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

/// How many device registrations the store takes: a registration past either cap is refused and
/// nothing is stored. Wallet registers each of a customer's devices once per order, so real orders
/// have a handful and real devices one per order they hold; the caps keep one order's token from
/// pinning a store with registrations (or a save from fanning out to them), and one device
/// identifier from collecting registrations without end.
public struct RegistrationLimits: Sendable, Hashable {
    /// Registrations one order, or one pass, may have (default 1,000).
    public var maximumPerOrder: Int
    /// Registrations one device identifier may have, over all orders (default 100), and over all
    /// passes.
    public var maximumPerDevice: Int

    /// Creates limits; each is at least 1.
    public init(maximumPerOrder: Int = 1_000, maximumPerDevice: Int = 100) {
        self.maximumPerOrder = max(1, maximumPerOrder)
        self.maximumPerDevice = max(1, maximumPerDevice)
    }

    /// 1,000 per order, 100 per device.
    public static let `default` = RegistrationLimits()
    /// No practical limit: for moving registrations that a store already holds (`OrderStoreCopy`).
    public static let unlimited = RegistrationLimits(maximumPerOrder: .max, maximumPerDevice: .max)

    /// Throws when one more registration would pass a cap, given the archive's (an order's or a
    /// pass's) and the device's registrations now (the same rule for every store).
    ///
    /// - Throws: ``WalletOrdersError/Code/orderRegistrationLimit`` or
    ///   ``WalletOrdersError/Code/deviceRegistrationLimit``.
    package func checkNewRegistration(archiveHas: Int, deviceHas: Int, of kind: ArchiveKind = .order) throws {
        if archiveHas >= maximumPerOrder {
            throw WalletOrdersError(
                .orderRegistrationLimit, "The \(kind) has \(maximumPerOrder) device registrations, as many as it may have.",
                hint: "A device registered before keeps working; unregister devices that no longer hold the \(kind).")
        }
        if deviceHas >= maximumPerDevice {
            throw WalletOrdersError(
                .deviceRegistrationLimit, "The device has \(maximumPerDevice) registrations, as many as it may have.",
                hint: "Unregister the device from \(kind)s it no longer holds.")
        }
    }
}

/// Device registrations for Wallet's order web service, kept in the order store so that a save
/// and the pushes it causes are one transaction.
///
/// The tag of ``changedOrders(deviceIdentifier:orderTypeIdentifier:since:)`` is the store's
/// change sequence, not `updatedAt`: it never repeats or goes back, whatever clocks and
/// `updatedAt` values the merchant's systems use. It names the store that gave it out (a short
/// key derived from the store's random identifier), so a tag the store can't have issued, from
/// another store, another server (an epoch, a decimal, a date), an earlier version of this
/// service (bare decimals) or ahead of the store's sequence (a store restored from a backup), is
/// answered with every one of the device's orders of the type: the device fetches each once
/// (cheaply, with `If-Modified-Since`) and continues with a tag of this store. Never a 204 that
/// would leave it without the changes it missed.
public protocol DeviceRegistrationStoring: Sendable {
    /// The access record of a stored order, or `nil` when no such order is stored.
    func accessRecord(for identifier: FullyQualifiedOrderIdentifier) async throws -> OrderAccessRecord?

    /// The access record of a stored order and, when `wantsArchive` asks for it given that
    /// record, the archive of the version the record describes; `nil` when no such order is
    /// stored. Wallet's order fetch reads both at once: its 304 reads no archive, and its 200's
    /// body is the version its `ETag` names, whatever a save does meanwhile.
    func accessRecord(for identifier: FullyQualifiedOrderIdentifier, archiveIf wantsArchive: (OrderAccessRecord) -> Bool) async throws
        -> (record: OrderAccessRecord, archive: [UInt8]?)?

    /// Registers `deviceIdentifier` for updates of `order`, pushed to `pushToken`; registering
    /// again replaces that registration's push token and nothing else. A new registration past
    /// `limits` is refused and nothing is stored (the check and the insert are one transaction).
    ///
    /// - Throws: ``WalletOrdersError/Code/orderRegistrationLimit`` or
    ///   ``WalletOrdersError/Code/deviceRegistrationLimit`` for a new registration past a cap.
    func register(
        deviceIdentifier: String, pushToken: String, for order: FullyQualifiedOrderIdentifier, limits: RegistrationLimits
    ) async throws -> DeviceRegistrationResult

    /// Removes the device's registration for `order`; `false` when there was none.
    @discardableResult
    func unregister(deviceIdentifier: String, from order: FullyQualifiedOrderIdentifier) async throws -> Bool

    /// The device's orders of `orderTypeIdentifier` changed after `tag` (all of them for `nil`
    /// and for a tag this store didn't give out), or `nil` when none did (Apple's 204).
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` when `tag` is longer than 1024 characters,
    ///   which no server's tag is.
    func changedOrders(deviceIdentifier: String, orderTypeIdentifier: String, since tag: String?) async throws
        -> ChangedOrders?

    /// Whether `deviceIdentifier` is registered for any order of `orderTypeIdentifier`: a
    /// changed-orders request from any other device speaks for no one (it names no order and
    /// carries no token), so the delivery trail doesn't keep it.
    func isRegistered(deviceIdentifier: String, orderTypeIdentifier: String) async throws -> Bool

    /// Removes the registrations with `pushToken` for orders of `orderTypeIdentifier` and the
    /// pushes waiting for them (APNs said the token is gone for that topic); returns how many
    /// registrations. The token's registrations for other order types are kept.
    @discardableResult
    func removeRegistrations(pushToken: String, orderTypeIdentifier: String) async throws -> Int

    /// How many registrations the store holds for `order`.
    func registrationCount(for order: FullyQualifiedOrderIdentifier) async throws -> Int

    /// Sets the stored `order`'s previous token (``OrderAccessRecord/previousAuthenticationToken``)
    /// when it has none: what `OrderStoreCopy` carries over, so that devices registered with it
    /// keep working after the move. Returns whether it was set.
    @discardableResult
    func keepPreviousAuthenticationToken(_ token: String, for order: FullyQualifiedOrderIdentifier) async throws -> Bool

    /// The devices registered for `order`, by device identifier (what `OrderStoreCopy` moves).
    func registrations(for order: FullyQualifiedOrderIdentifier) async throws -> [DeviceRegistration]

    /// Replaces the store's customer link secret: moving to another store keeps every link
    /// customers already have working (`OrderStoreCopy` takes the source's).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` unless `secret` is 32 bytes.
    func setCustomerLinkSecret(_ secret: [UInt8]) async throws

    /// A random secret made with the store (32 bytes), shared by every server on it: the key of
    /// customer links ("Add to Apple Wallet"), which are derived, not stored.
    func customerLinkSecret() async throws -> [UInt8]

    /// Also accepts links made with `secret` (another store's, whose orders were copied in),
    /// while new links go on being made with ``customerLinkSecret()``: the links both stores gave
    /// out keep working (`OrderStoreCopy`).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` unless `secret` is 32 bytes.
    func acceptCustomerLinkSecret(_ secret: [UInt8]) async throws

    /// Every secret a customer link may be made with: ``customerLinkSecret()`` first, then each
    /// accepted with ``acceptCustomerLinkSecret(_:)``.
    func customerLinkSecrets() async throws -> [[UInt8]]
}

extension DeviceRegistrationStoring {
    /// Registers `deviceIdentifier` for updates of `order` within ``RegistrationLimits/default``.
    public func register(deviceIdentifier: String, pushToken: String, for order: FullyQualifiedOrderIdentifier) async throws
        -> DeviceRegistrationResult
    {
        try await register(deviceIdentifier: deviceIdentifier, pushToken: pushToken, for: order, limits: .default)
    }
}

/// One push waiting in the outbox, claimed by a worker for a while (its lease).
public struct PendingPush: Sendable, Hashable {
    /// The outbox entry.
    public var id: Int64
    /// The device's APNs push token.
    public var pushToken: String
    /// The APNs topic: the order type identifier.
    public var topic: String
    /// How many times it was claimed, this time included.
    public var attempts: Int
    /// When the change that caused it was saved (for the save-to-push latency).
    public var enqueuedAt: Date

    /// Creates a pending push.
    public init(id: Int64, pushToken: String, topic: String, attempts: Int, enqueuedAt: Date) {
        self.id = id
        self.pushToken = pushToken
        self.topic = topic
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
    }
}

/// What to do with a claimed push once it was tried.
public enum PushCompletion: Sendable, Hashable {
    /// Done (delivered, or dropped for good): remove it from the outbox.
    case remove
    /// Done, and APNs said the device token is gone for the push's topic: remove it and the
    /// registrations it was for (its token, for orders of its topic), as
    /// ``DeviceRegistrationStoring/removeRegistrations(pushToken:orderTypeIdentifier:)`` does.
    case tokenGone
    /// Try again no sooner than `notBefore`.
    case retry(notBefore: Date)
    /// APNs refused the provider's credentials for the push's topic: keep it, parked (no worker
    /// claims it) until ``PushOutboxStoring/resumeParkedPushes(topic:now:)``. Changes for the
    /// same token and topic fold into it meanwhile.
    case park
}

/// A claimed push and what became of it, for ``PushOutboxStoring/complete(_:)``.
public struct CompletedPush: Sendable, Hashable {
    /// The push, as it was claimed.
    public var push: PendingPush
    /// What to do with it.
    public var completion: PushCompletion

    /// Creates a completed push.
    public init(_ push: PendingPush, _ completion: PushCompletion) {
        self.push = push
        self.completion = completion
    }
}

/// What the outbox holds.
public struct PushOutboxStatus: Sendable, Hashable {
    /// Pushes waiting, parked ones included.
    public var pending: Int
    /// Pushes parked because APNs refused the credentials of their topic.
    public var parked: Int
    /// When the earliest push not yet due (and not parked) becomes due.
    public var nextDue: Date?
    /// When the push that has waited longest was enqueued (parked ones included); `nil` for an
    /// empty outbox.
    public var oldestEnqueuedAt: Date?

    /// Creates a status.
    public init(pending: Int, parked: Int, nextDue: Date?, oldestEnqueuedAt: Date? = nil) {
        self.pending = pending
        self.parked = parked
        self.nextDue = nextDue
        self.oldestEnqueuedAt = oldestEnqueuedAt
    }
}

/// The durable push outbox: a save that changes an order enqueues one push per registered
/// device in its own transaction, so a crash, a restart or an APNs outage loses none.
///
/// Pushes are coalesced: while a push for a (token, topic) pair waits, further changes add
/// nothing, since a push names no order and the device asks for everything that changed. Workers
/// claim due pushes with a lease; a push whose worker died becomes due again when its lease
/// runs out, so delivery is at least once. Claims take order types in turn, so one order's
/// fan-out to many devices doesn't hold up another merchant's push. A push leaves the outbox only
/// when it was delivered, superseded by a newer one for the same token and topic, or its token
/// is gone; one whose credentials APNs refused is parked, not dropped.
public protocol PushOutboxStoring: Sendable {
    /// Claims up to `limit` due pushes for `lease`, the order types in turn (the first due push of
    /// each type, then the second, …), oldest first within a type. Parked pushes are left.
    func claimPushes(limit: Int, lease: Duration, now: Date) async throws -> [PendingPush]

    /// Claims the oldest parked push of each parked topic for `lease`: a worker sends these to
    /// find out whether APNs takes the topic's credentials again.
    func claimParkedPushes(lease: Duration, now: Date) async throws -> [PendingPush]

    /// Makes the parked pushes of `topic` due at `now` (its credentials work again); returns how many.
    @discardableResult
    func resumeParkedPushes(topic: String, now: Date) async throws -> Int

    /// Records what became of claimed pushes, all in one transaction (a worker records a batch
    /// of sends at once: one commit, not one per push).
    func complete(_ completed: [CompletedPush]) async throws

    /// Gives claimed pushes back unsent (a worker shutting down), due at once.
    func release(_ pushes: [PendingPush]) async throws

    /// How many pushes wait in the outbox (and how many are parked), and when the earliest one
    /// not yet due becomes due.
    func outboxStatus(now: Date) async throws -> PushOutboxStatus
}

extension PushOutboxStoring {
    /// Records what became of one claimed push.
    public func complete(_ push: PendingPush, _ completion: PushCompletion) async throws {
        try await complete([CompletedPush(push, completion)])
    }
}
