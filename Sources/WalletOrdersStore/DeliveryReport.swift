import Foundation
public import WalletOrders

/// "The push succeeded; why didn't the customer's order update?": each device registered for an
/// order, with its delivery trail (``DeliveryEvent``) and a verdict.
///
/// A fetch of an order names no device (Wallet's GET carries only the order's token), so a fetch
/// counts for a device when it follows that device's request for the changed orders that listed
/// the order. With several devices on one order a fetch may count for each of them.
public struct DeliveryReport: Sendable, Hashable, Codable {
    /// What the trail says of one device.
    public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable {
        /// It fetched (200) or confirmed (304) the stored version.
        case upToDate = "up-to-date"
        /// A push reached APNs (200) and the device never asked which orders changed after it:
        /// the device is off, in Low Power Mode, its Wallet hasn't run, or APNs hasn't delivered.
        case pushedNeverAsked = "pushed-never-asked"
        /// It asked after the push, and the answer didn't list the order: the tag it sent was
        /// already past the change (a tag that doesn't move with changes).
        case askedTagDidNotMove = "asked-tag-did-not-move"
        /// It was told the order changed and never fetched it.
        case askedNeverFetched = "asked-never-fetched"
        /// Its last fetch got another version than the stored one, or was refused (401).
        case fetchedOldVersion = "fetched-old-version"
        /// APNs refused the last push (its reason, and for credentials what would fix it), or
        /// never answered it.
        case pushRefused = "push-refused"
        /// No push went to it since it registered: no change since then, or none was pushed.
        case neverPushed = "never-pushed"

        /// The verdict in words.
        public var summary: String {
            switch self {
            case .upToDate: "up to date"
            case .pushedNeverAsked: "pushed but never asked"
            case .askedTagDidNotMove: "asked, but the tag didn't move"
            case .askedNeverFetched: "asked, but never fetched the order"
            case .fetchedOldVersion: "fetched an old version"
            case .pushRefused: "push refused"
            case .neverPushed: "never pushed"
            }
        }
    }

    /// One device and its trail.
    public struct Device: Sendable, Hashable, Codable {
        /// The device library identifier's hash in the order type's trail (``DeliveryEvent/hash(_:orderType:)``).
        public var device: String
        /// Whether it is registered now (APNs refusing its token, or the device unregistering,
        /// removes the registration; the trail stays).
        public var registered: Bool
        /// The push token's first characters, when the trail has its registration.
        public var pushTokenPrefix: String?
        public var verdict: Verdict
        /// Why, with the events that decided it.
        public var explanation: String
        /// Its registrations, the pushes to its token on the order type, its changed-orders
        /// requests, and the order's fetches that count for it; oldest first.
        public var trail: [DeliveryEvent]
    }

    /// The stored version, when the order is stored.
    public struct Version: Sendable, Hashable, Codable {
        public var updatedAt: String
        public var sha256: String
    }

    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    public var current: Version?
    public var devices: [Device]
    /// The order's fetches (they name no device), oldest first.
    public var fetches: [DeliveryEvent]

    /// Puts the trails together.
    ///
    /// - Parameters:
    ///   - registrations: The order's registrations now.
    ///   - registrationEvents: The order's registration trails (``DeliveryEvent/registrationTrailPrefix(for:)``).
    ///   - events: The fetch, push and changed-orders trails of the devices and tokens
    ///     (``DeliveryEvent/trailKeys(for:deviceHashes:tokenHashes:)``).
    public init(
        order: FullyQualifiedOrderIdentifier, current: OrderAccessRecord?, registrations: [DeviceRegistration],
        registrationEvents: [DeliveryEvent], events: [DeliveryEvent]
    ) {
        orderTypeIdentifier = order.orderTypeIdentifier
        orderIdentifier = order.orderIdentifier
        self.current = current.map { Version(updatedAt: $0.updatedAt.text, sha256: $0.sha256) }
        fetches = events.filter { $0.kind == .fetched && $0.orderIdentifier == order.orderIdentifier }
        // Devices: registered now, or in the order's registration trails.
        var tokens: [String: String] = [:]  // device hash → token hash
        var prefixes: [String: String] = [:]
        for event in registrationEvents where event.kind == .registered {
            guard let device = event.deviceHash else { continue }
            if let token = event.tokenHash { tokens[device] = token }
            prefixes[device] = event.detail.tokenPrefix
        }
        var registered = Set<String>()
        for registration in registrations {
            let device = DeliveryEvent.hash(registration.deviceIdentifier, orderType: order.orderTypeIdentifier)
            registered.insert(device)
            tokens[device] = DeliveryEvent.hash(registration.pushToken, orderType: order.orderTypeIdentifier)
            prefixes[device] = String(registration.pushToken.prefix(8))
        }
        devices = tokens.keys.sorted().map { device in
            let token = tokens[device]
            let trail =
                (registrationEvents.filter { $0.deviceHash == device }
                + events.filter { ($0.kind == .pushed && $0.tokenHash == token) || ($0.kind == .listed && $0.deviceHash == device) })
                .sorted { $0.at < $1.at }
            let (verdict, explanation, counted) = Self.verdict(
                order: order.orderIdentifier, current: current?.sha256, trail: trail, fetches: events.filter { $0.kind == .fetched })
            return Device(
                device: device, registered: registered.contains(device), pushTokenPrefix: prefixes[device], verdict: verdict,
                explanation: explanation, trail: (trail + counted).sorted { $0.at < $1.at })
        }
    }

    /// The verdict of one device's trail, why, and the fetches that counted for it.
    static func verdict(order: String, current: String?, trail: [DeliveryEvent], fetches: [DeliveryEvent])
        -> (Verdict, String, [DeliveryEvent])
    {
        let pushes = trail.filter { $0.kind == .pushed }
        let listings = trail.filter { $0.kind == .listed }
        let listed = listings.filter { $0.detail.orderIdentifiers?.contains(order) == true }
        /// The fetches after `event`.
        func fetchesAfter(_ event: DeliveryEvent) -> [DeliveryEvent] { fetches.filter { $0.at >= event.at } }
        // Up to date: after a listing of the order, a fetch got (or confirmed) the stored version.
        if let current, let first = listed.first,
            let fetch = fetchesAfter(first).last(where: { ($0.detail.status == 200 || $0.detail.status == 304) && $0.detail.sha256 == current })
        {
            return (.upToDate, "It fetched the stored version at \(Self.time(fetch.at)) (\(fetch.detail.status ?? 0)).", [fetch])
        }
        guard let push = pushes.last else {
            return (.neverPushed, "No push went to its token on this order type since it registered.", [])
        }
        guard push.detail.status == 200 else {
            var text =
                push.detail.status.map { "APNs answered the push at \(Self.time(push.at)) with \($0)" }
                ?? "The push at \(Self.time(push.at)) got no answer from APNs"
            if let reason = push.detail.reason { text += " (\(reason))" }
            text += "."
            if let credential = push.detail.credential { text += " It was sent with the \(credential) on the topic \(push.orderTypeIdentifier)." }
            if let fix = push.detail.fix { text += " " + fix }
            return (.pushRefused, text, [])
        }
        let pushedAt = "The push at \(Self.time(push.at)) reached APNs" + (push.detail.apnsID.map { " (apns-id \($0))" } ?? "")
        let asked = listings.filter { $0.at >= push.at }
        guard !asked.isEmpty else {
            return (
                .pushedNeverAsked,
                pushedAt + "; the device hasn't asked which orders changed since (off, Low Power Mode, or APNs hasn't delivered yet).",
                []
            )
        }
        guard let listing = asked.first(where: { $0.detail.orderIdentifiers?.contains(order) == true }) else {
            let last = asked[asked.count - 1]
            return (
                .askedTagDidNotMove,
                pushedAt + "; the device asked at \(Self.time(last.at)) with the tag \(last.detail.tagSent ?? "(none)") and the answer "
                    + "(\(last.detail.status ?? 0)) didn't list the order.",
                []
            )
        }
        guard let fetch = fetchesAfter(listing).last else {
            return (.askedNeverFetched, pushedAt + "; the order was listed at \(Self.time(listing.at)) and not fetched since.", [])
        }
        let got = fetch.detail.status == 401 ? "was refused (401: the token doesn't match)" : "got version \(fetch.detail.updatedAt ?? "?")"
        return (.fetchedOldVersion, pushedAt + "; the last fetch at \(Self.time(fetch.at)) \(got), not the stored one.", [fetch])
    }

    static func time(_ date: Date) -> String {
        Timestamp(date).text
    }
}

extension DeviceRegistrationStoring where Self: DeliveryTrailStoring {
    /// The delivery report of `order` (``DeliveryReport``), from the store's registrations and trails.
    public func deliveryReport(for order: FullyQualifiedOrderIdentifier) async throws -> DeliveryReport {
        let registrations = try await registrations(for: order)
        let registrationEvents = try await deliveryEvents(trailKeyPrefix: DeliveryEvent.registrationTrailPrefix(for: order))
        var devices = Set(registrations.map { DeliveryEvent.hash($0.deviceIdentifier, orderType: order.orderTypeIdentifier) })
        var tokens = Set(registrations.map { DeliveryEvent.hash($0.pushToken, orderType: order.orderTypeIdentifier) })
        for event in registrationEvents {
            if let device = event.deviceHash { devices.insert(device) }
            if let token = event.tokenHash { tokens.insert(token) }
        }
        let events = try await deliveryEvents(
            trailKeys: DeliveryEvent.trailKeys(for: order, deviceHashes: devices.sorted(), tokenHashes: tokens.sorted()))
        return DeliveryReport(
            order: order, current: try await accessRecord(for: order), registrations: registrations,
            registrationEvents: registrationEvents, events: events)
    }
}
