import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport
import WalletPasses

/// The pass web service's side of the store, on SQLite and PostgreSQL: registrations, the
/// serial numbers changed since a tag, the pushes a save queues and what APNs refusing a token
/// removes.
@Suite("Pass registrations and their pushes")
struct PassRegistrationTests {
    static let type = SamplePasses.passTypeIdentifier

    @Test(
        "Registering answers created, then already registered with the new token; an unknown pass registers nothing; unregistering removes it",
        arguments: StoreKind.webServiceCases)
    func register(kind: StoreKind) async throws {
        let pass = try SamplePasses.verified(serialNumber: "R-1")
        try await kind.withWebServiceStore { store in
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: pass.identifier) == .notFound)
            _ = try await store.save(verifiedPass: pass)
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: pass.identifier) == .created)
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "cccc3333", for: pass.identifier) == .alreadyRegistered)
            #expect(try await store.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: pass.identifier) == .created)
            #expect(
                try await store.registrations(for: pass.identifier) == [
                    DeviceRegistration(deviceIdentifier: "d1", pushToken: "cccc3333"),
                    DeviceRegistration(deviceIdentifier: "d2", pushToken: "bbbb2222"),
                ])
            #expect(try await store.isRegistered(deviceIdentifier: "d1", passTypeIdentifier: Self.type))
            // The pass's registrations are no order's.
            #expect(try await store.isRegistered(deviceIdentifier: "d1", orderTypeIdentifier: Self.type) == false)
            #expect(try await store.unregister(deviceIdentifier: "d1", from: pass.identifier))
            #expect(try await store.unregister(deviceIdentifier: "d1", from: pass.identifier) == false)
            #expect(try await store.registrations(for: pass.identifier).map(\.deviceIdentifier) == ["d2"])
            // A deleted pass takes its registrations with it: a pass saved again under the same
            // identifier has none.
            #expect(try await store.deletePass(pass.identifier))
            _ = try await store.save(verifiedPass: pass)
            #expect(try await store.registrations(for: pass.identifier).isEmpty)
        }
    }

    @Test("The caps hold for passes: past the pass's or the device's cap nothing is registered", arguments: StoreKind.webServiceCases)
    func caps(kind: StoreKind) async throws {
        let passes = try (0..<3).map { try SamplePasses.verified(serialNumber: "C-\($0)") }
        let limits = RegistrationLimits(maximumPerOrder: 2, maximumPerDevice: 2)
        try await kind.withWebServiceStore { store in
            _ = try await store.save(verifiedPasses: passes)
            let first = passes[0].identifier
            #expect(try await store.register(deviceIdentifier: "a", pushToken: "aaaa1111", for: first, limits: limits) == .created)
            #expect(try await store.register(deviceIdentifier: "b", pushToken: "aaaa1111", for: first, limits: limits) == .created)
            let perPass = await #expect(throws: WalletOrdersError.self) {
                try await store.register(deviceIdentifier: "c", pushToken: "aaaa1111", for: first, limits: limits)
            }
            #expect(perPass?.code == .orderRegistrationLimit)
            #expect(perPass?.message.contains("The pass has 2 device registrations") == true)
            #expect(try await store.register(deviceIdentifier: "a", pushToken: "aaaa1111", for: passes[1].identifier, limits: limits) == .created)
            let perDevice = await #expect(throws: WalletOrdersError.self) {
                try await store.register(deviceIdentifier: "a", pushToken: "aaaa1111", for: passes[2].identifier, limits: limits)
            }
            #expect(perDevice?.code == .deviceRegistrationLimit)
            #expect(try await store.registrations(for: passes[2].identifier).isEmpty)
        }
    }

    @Test(
        "Serial numbers since a tag: every pass without one or with another server's, only what changed after ours, nil when nothing did",
        arguments: StoreKind.webServiceCases)
    func changedPasses(kind: StoreKind) async throws {
        let passes = try (0..<3).map { try SamplePasses.verified(serialNumber: "S-\($0)") }
        let other = try SamplePasses.verified(serialNumber: "S-other", passTypeIdentifier: "pass.com.northwindoutfitters.coupon")
        try await kind.withWebServiceStore { store in
            _ = try await store.save(verifiedPasses: passes + [other])
            for pass in passes + [other] {
                #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: pass.identifier) == .created)
            }
            #expect(try await store.changedPasses(deviceIdentifier: "d0", passTypeIdentifier: Self.type, since: nil) == nil)
            let all = try #require(try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: nil))
            #expect(all.serialNumbers == ["S-0", "S-1", "S-2"])
            #expect(try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: all.lastUpdated) == nil)
            // Another server's tags (an epoch in seconds, as Apple's sample; milliseconds) get everything.
            for foreign in ["1351981923", "1351981923000", "2026-12-06T10:00:00Z"] {
                #expect(
                    try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: foreign)?.serialNumbers
                        == ["S-0", "S-1", "S-2"])
            }
            // Orders' changes move the one sequence but list no pass.
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            #expect(try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: all.lastUpdated) == nil)

            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "S-1", event: "Moved"))
            let changed = try #require(
                try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: all.lastUpdated))
            #expect(changed.serialNumbers == ["S-1"])
            #expect(changed.lastUpdated != all.lastUpdated, "the tag moves with every answer that lists a change")
            // Apple's SerialNumbers, lastUpdated a string.
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(changed)) as? [String: Any]
            #expect(json?["lastUpdated"] is String)
            #expect(json?["serialNumbers"] as? [String] == ["S-1"])

            let tooLong = await #expect(throws: WalletOrdersError.self) {
                try await store.changedPasses(deviceIdentifier: "d1", passTypeIdentifier: Self.type, since: String(repeating: "9", count: 1025))
            }
            #expect(tooLong?.code == .malformedToken)
            #expect(tooLong?.message.contains("passesUpdatedSince") == true)
        }
    }

    @Test(
        "A save that changes a pass queues one push per registered token, topic the pass type; an unchanged one queues none",
        arguments: StoreKind.webServiceCases)
    func pushes(kind: StoreKind) async throws {
        let pass = try SamplePasses.verified(serialNumber: "P-1")
        try await kind.withWebServiceStore { store in
            _ = try await store.save(verifiedPass: pass)
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: pass.identifier) == .created)
            #expect(try await store.register(deviceIdentifier: "d2", pushToken: "bbbb2222", for: pass.identifier) == .created)
            #expect(try await store.outboxStatus(now: Date()).pending == 0, "registering pushes nothing")
            _ = try await store.save(verifiedPass: pass)
            #expect(try await store.outboxStatus(now: Date()).pending == 0, "the same pass again changes nothing")
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "P-1", event: "Moved"))
            // A second change before the pushes went out folds into them.
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "P-1", event: "Moved", voided: true))
            let claimed = try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date())
            #expect(Set(claimed.map(\.pushToken)) == ["aaaa1111", "bbbb2222"])
            #expect(claimed.allSatisfy { $0.topic == Self.type })
        }
    }

    @Test(
        "APNs refusing a token for the pass type removes its registrations for that type only, and orders' for their type only",
        arguments: StoreKind.webServiceCases)
    func tokenGone(kind: StoreKind) async throws {
        let ticket = try SamplePasses.verified(serialNumber: "G-1")
        let coupon = try SamplePasses.verified(serialNumber: "G-2", passTypeIdentifier: "pass.com.northwindoutfitters.coupon")
        try await kind.withWebServiceStore { store in
            _ = try await store.save(verifiedPasses: [ticket, coupon])
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            let order = SampleVersions.identifier
            for pass in [ticket, coupon] {
                #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: pass.identifier) == .created)
            }
            #expect(try await store.register(deviceIdentifier: "d1", pushToken: "aaaa1111", for: order) == .created)
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "G-1", event: "Moved"))
            let push = try #require(try await store.claimPushes(limit: 10, lease: .seconds(30), now: Date()).first)
            #expect(push.topic == Self.type)
            try await store.complete(push, .tokenGone)
            #expect(try await store.registrations(for: ticket.identifier).isEmpty)
            #expect(try await store.registrations(for: coupon.identifier).count == 1)
            #expect(try await store.registrations(for: order).count == 1)
            #expect(try await store.removeRegistrations(pushToken: "aaaa1111", orderTypeIdentifier: order.orderTypeIdentifier) == 1)
            #expect(try await store.registrations(for: coupon.identifier).count == 1)
        }
    }

    @Test(
        "The access record names the pass's token, the one before it, when the version was saved and its digest; the archive only when asked",
        arguments: StoreKind.webServiceCases)
    func accessRecord(kind: StoreKind) async throws {
        let first = try SamplePasses.verified(serialNumber: "A-1")
        let second = try SamplePasses.verified(serialNumber: "A-1", event: "Moved", authenticationToken: "a-new-token-of-16-or-more-characters")
        try await kind.withWebServiceStore { store in
            #expect(try await store.passAccessRecord(for: first.identifier) == nil)
            _ = try await store.save(verifiedPass: first)
            let record = try #require(try await store.passAccessRecord(for: first.identifier))
            #expect(record.authenticationToken == SamplePasses.authenticationToken)
            #expect(record.previousAuthenticationToken == nil)
            #expect(record.sha256 == first.sha256)
            _ = try await store.save(verifiedPass: second)
            let read = try #require(try await store.passAccessRecord(for: first.identifier) { _ in true })
            #expect(read.record.authenticationToken == "a-new-token-of-16-or-more-characters")
            #expect(read.record.previousAuthenticationToken == SamplePasses.authenticationToken)
            #expect(read.record.modifiedAt > record.modifiedAt)
            #expect(read.record.sha256 == second.sha256)
            #expect(read.archive == second.bytes)
        }
    }
}
