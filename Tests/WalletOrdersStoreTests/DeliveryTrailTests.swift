import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestSupport

/// The delivery trail's storage (both stores) and the verdicts read from it.
@Suite(.serialized) struct DeliveryTrailTests {
    static let order = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.com.example.shop", orderIdentifier: "ORDER-1")
    static let device = DeliveryEvent.hash("device-1", orderType: order.orderTypeIdentifier)
    static let token = DeliveryEvent.hash("aa11bb22", orderType: order.orderTypeIdentifier)
    static let current = "c0ffee"
    static let start = Date(timeIntervalSince1970: 1_764_000_000)

    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    static func registered(_ seconds: Double) -> DeliveryEvent {
        DeliveryEvent(
            .registered, at: at(seconds), orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier,
            deviceHash: device, tokenHash: token, detail: .init(status: 201, tokenPrefix: "aa11bb22"))
    }

    static func pushed(_ seconds: Double, status: Int? = 200, reason: String? = nil) -> DeliveryEvent {
        DeliveryEvent(
            .pushed, at: at(seconds), orderTypeIdentifier: order.orderTypeIdentifier, tokenHash: token,
            detail: .init(status: status, reason: reason, apnsID: "A1"))
    }

    static func listed(_ seconds: Double, tag: String?, orders: [String]) -> DeliveryEvent {
        DeliveryEvent(
            .listed, at: at(seconds), orderTypeIdentifier: order.orderTypeIdentifier, deviceHash: device,
            detail: .init(status: orders.isEmpty ? 204 : 200, tagSent: tag, tagAnswered: "t2", orderIdentifiers: orders))
    }

    static func fetched(_ seconds: Double, status: Int = 200, sha: String? = current) -> DeliveryEvent {
        DeliveryEvent(
            .fetched, at: at(seconds), orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier,
            detail: .init(status: status, sha256: status == 401 ? nil : sha, updatedAt: "2025-11-22T00:00:00Z"))
    }

    /// The verdict of one device with `events` (besides its registration).
    static func verdict(_ events: [DeliveryEvent]) -> (DeliveryReport.Verdict, String) {
        let record = OrderAccessRecord(identifier: order, authenticationToken: "t", updatedAt: "2025-11-22T00:00:00Z", sha256: current)
        let report = DeliveryReport(
            order: order, current: record, registrations: [DeviceRegistration(deviceIdentifier: "device-1", pushToken: "aa11bb22")],
            registrationEvents: [registered(0)], events: events)
        return (report.devices[0].verdict, report.devices[0].explanation)
    }

    @Test("One device has another hash in each order type's trail: merchants on one service can't link a customer across their reports")
    func hashPerOrderType() {
        let shop = DeliveryEvent.hash("device-1", orderType: "order.com.example.shop")
        let returns = DeliveryEvent.hash("device-1", orderType: "order.com.example.returns")
        #expect(shop != returns)
        #expect(shop == DeliveryEvent.hash("device-1", orderType: "order.com.example.shop"))
        #expect(shop.count == 12 && shop.allSatisfy(\.isHexDigit))
    }

    @Test("Each verdict from the trail that shows it")
    func verdicts() {
        let order = Self.order.orderIdentifier
        #expect(Self.verdict([]).0 == .neverPushed)
        #expect(Self.verdict([Self.pushed(10)]).0 == .pushedNeverAsked)
        #expect(Self.verdict([Self.pushed(10), Self.listed(5, tag: nil, orders: [order])]).0 == .pushedNeverAsked, "asked before the push")
        let tag = Self.verdict([Self.pushed(10), Self.listed(11, tag: "t9", orders: [])])
        #expect(tag.0 == .askedTagDidNotMove)
        #expect(tag.1.contains("t9"))
        #expect(Self.verdict([Self.pushed(10), Self.listed(11, tag: "t1", orders: [order])]).0 == .askedNeverFetched)
        #expect(Self.verdict([Self.pushed(10), Self.listed(11, tag: "t1", orders: [order]), Self.fetched(12)]).0 == .upToDate)
        #expect(Self.verdict([Self.pushed(10), Self.listed(11, tag: "t1", orders: [order]), Self.fetched(12, status: 304)]).0 == .upToDate)
        let old = Self.verdict([Self.pushed(10), Self.listed(11, tag: "t1", orders: [order]), Self.fetched(12, sha: "0ld")])
        #expect(old.0 == .fetchedOldVersion)
        #expect(Self.verdict([Self.pushed(10), Self.listed(11, tag: "t1", orders: [order]), Self.fetched(12, status: 401)]).0 == .fetchedOldVersion)
        let refused = Self.verdict([Self.pushed(10, status: 410, reason: "Unregistered")])
        #expect(refused.0 == .pushRefused)
        #expect(refused.1.contains("410") && refused.1.contains("Unregistered"))
        #expect(Self.verdict([Self.pushed(10, status: nil, reason: "timeout")]).0 == .pushRefused)
        // A fetch before the listing counts for nothing; a later push after an up-to-date fetch of the current version doesn't undo it.
        #expect(Self.verdict([Self.fetched(1), Self.pushed(10)]).0 == .pushedNeverAsked)
    }

    @Test(
        "Events come back by trail, oldest first; each trail keeps its newest, and a registration trail is found by order",
        arguments: StoreKind.webServiceCases)
    func storage(_ kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            var events = [Self.registered(0)]
            for second in 1...40 { events.append(Self.pushed(Double(second))) }
            events.append(Self.listed(50, tag: "t1", orders: [Self.order.orderIdentifier]))
            events.append(Self.fetched(51))
            try await store.recordDeliveryEvents(Array(events.prefix(20)))
            try await store.recordDeliveryEvents(Array(events.dropFirst(20)))
            let keys = DeliveryEvent.trailKeys(for: Self.order, deviceHashes: [Self.device], tokenHashes: [Self.token])
            let read = try await store.deliveryEvents(trailKeys: keys)
            let pushes = read.filter { $0.kind == .pushed }
            #expect(pushes.count == DeliveryTrailLimits.perTrail)
            #expect(pushes.map(\.at) == events.filter { $0.kind == .pushed }.suffix(DeliveryTrailLimits.perTrail).map(\.at))
            #expect(read.contains(Self.fetched(51)) && read.contains(Self.listed(50, tag: "t1", orders: [Self.order.orderIdentifier])))
            #expect(read.map(\.at) == read.map(\.at).sorted())
            let registrations = try await store.deliveryEvents(trailKeyPrefix: DeliveryEvent.registrationTrailPrefix(for: Self.order))
            #expect(registrations == [Self.registered(0)])
            // Another order whose identifier starts like this one's has a trail of its own.
            let other = FullyQualifiedOrderIdentifier(orderTypeIdentifier: Self.order.orderTypeIdentifier, orderIdentifier: "ORDER-10")
            #expect(try await store.deliveryEvents(trailKeyPrefix: DeliveryEvent.registrationTrailPrefix(for: other)).isEmpty)
        }
    }

    @Test(
        "One order type's flood stays within its share: it pushes out its own oldest events, never another type's trail",
        arguments: StoreKind.webServiceCases)
    func orderTypeShare(_ kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            try await store.recordDeliveryEvents([Self.fetched(0)])
            let flooding = "order.com.example.flood"
            func fetch(_ index: Int) -> DeliveryEvent {
                DeliveryEvent(
                    .fetched, at: Self.at(Double(index)), orderTypeIdentifier: flooding, orderIdentifier: "F-\(index)",
                    detail: .init(status: 200))
            }
            let flood = DeliveryTrailLimits.perOrderType + 10_000
            for batch in stride(from: 0, to: flood, by: 5_000) {
                try await store.recordDeliveryEvents((batch..<min(batch + 5_000, flood)).map(fetch))
            }
            func kept(_ range: Range<Int>) async throws -> Int {
                var count = 0
                for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 5_000) {
                    let keys = (chunk..<min(chunk + 5_000, range.upperBound)).map { fetch($0).trailKey }
                    count += try await store.deliveryEvents(trailKeys: keys).count
                }
                return count
            }
            #expect(try await kept(0..<10_000) == 0, "the type's oldest went")
            #expect(try await kept((flood - 1_000)..<flood) == 1_000, "its newest stayed")
            let other = try await store.deliveryEvents(trailKeys: DeliveryEvent.trailKeys(for: Self.order, deviceHashes: [], tokenHashes: []))
            #expect(other == [Self.fetched(0)], "another type's trail is untouched")
        }
    }

    @Test(
        "One order's registrations stay within its share: the newest over all its devices; another order's trail stays",
        arguments: StoreKind.webServiceCases)
    func orderShare(_ kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            let other = FullyQualifiedOrderIdentifier(orderTypeIdentifier: Self.order.orderTypeIdentifier, orderIdentifier: "ORDER-2")
            let kept = DeliveryEvent(
                .registered, at: Self.at(0), orderTypeIdentifier: other.orderTypeIdentifier, orderIdentifier: other.orderIdentifier,
                deviceHash: Self.device, detail: .init(status: 201))
            try await store.recordDeliveryEvents([kept])
            // Seen: one customer's order token registering made-up devices again and again.
            var events: [DeliveryEvent] = []
            for device in 0..<30 {
                for second in 0..<DeliveryTrailLimits.perTrail {
                    events.append(
                        DeliveryEvent(
                            .registered, at: Self.at(Double(1 + device * 100 + second)), orderTypeIdentifier: Self.order.orderTypeIdentifier,
                            orderIdentifier: Self.order.orderIdentifier, deviceHash: DeliveryEvent.hash("made-up-\(device)", orderType: "t"),
                            detail: .init(status: 200)))
                }
                try await store.recordDeliveryEvents(Array(events.suffix(DeliveryTrailLimits.perTrail)))
            }
            let registrations = try await store.deliveryEvents(trailKeyPrefix: DeliveryEvent.registrationTrailPrefix(for: Self.order))
            #expect(registrations == Array(events.suffix(DeliveryTrailLimits.perOrder)))
            #expect(try await store.deliveryEvents(trailKeyPrefix: DeliveryEvent.registrationTrailPrefix(for: other)) == [kept])
        }
    }
}
