import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// One row of the save decision table (spec §4.3), with the `updatedAt` texts of the versions.
struct SaveCase: Sendable, CustomTestStringConvertible {
    var name: String
    var stored: String?
    var incoming: String
    var result: SaveOrderResult
    /// Whether the incoming archive is stored afterwards (otherwise the earlier one stays).
    var incomingKept: Bool

    var testDescription: String { name }
}

/// One row of the contains table: the stored `updatedAt` (or none) and the date asked about.
struct ContainsCase: Sendable, CustomTestStringConvertible {
    var name: String
    var stored: String?
    var updatedDate: Timestamp?
    var result: ContainsOrderResult

    var testDescription: String { name }
}

@Suite("Order stores follow FinanceKit's decision tables", .serialized)
struct OrderStoreContractTests {
    static let saveCases: [SaveCase] = [
        SaveCase(name: "no stored order → added, inserted", stored: nil, incoming: "2025-11-21T00:00:00Z", result: .added, incomingKept: true),
        SaveCase(
            name: "stored older → added, replaced", stored: "2025-11-20T08:31:44Z", incoming: "2025-11-21T00:00:00Z", result: .added,
            incomingKept: true),
        SaveCase(
            name: "stored newer → newerExisting, kept", stored: "2025-11-22T00:00:00Z", incoming: "2025-11-21T00:00:00Z", result: .newerExisting,
            incomingKept: false),
        SaveCase(
            name: "stored older by a fraction of a second → added", stored: "2025-11-21T00:00:00.5Z", incoming: "2025-11-21T00:00:00.75Z",
            result: .added, incomingKept: true),
        SaveCase(
            name: "stored newer by a fraction of a second → newerExisting", stored: "2025-11-21T00:00:00.000000002Z",
            incoming: "2025-11-21T00:00:00.000000001Z", result: .newerExisting, incomingKept: false),
        SaveCase(
            name: "offsets normalized: +02:00 text sorts later but is the earlier instant → added", stored: "2025-11-21T02:00:00+02:00",
            incoming: "2025-11-21T01:00:00Z", result: .added, incomingKept: true),
        SaveCase(
            name: "offsets normalized: incoming in +02:00 is the earlier instant → newerExisting", stored: "2025-11-21T00:00:00Z",
            incoming: "2025-11-21T01:00:00+02:00", result: .newerExisting, incomingKept: false),
    ]

    @Test("Every row of the save table gives its result and store effect", arguments: StoreKind.allCases, saveCases)
    func saveTable(kind: StoreKind, row: SaveCase) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier
            let incoming = try SampleVersions.archive(updatedAt: row.incoming)
            var storedBytes: [UInt8]?
            if let stored = row.stored {
                storedBytes = try SampleVersions.archive(updatedAt: stored)
                #expect(try await store.intake().save(signedArchive: try #require(storedBytes)) == .added)
            }
            #expect(try await store.intake().save(signedArchive: incoming) == row.result)
            let after = try await store.archive(for: id)
            #expect(after == (row.incomingKept ? incoming : storedBytes))
            #expect(try await store.contains(matching: id) == .exists)
        }
    }

    @Test("Saving the same archive again is an idempotent .added", arguments: StoreKind.allCases)
    func idempotentResave(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            #expect(try await store.intake().save(signedArchive: bytes) == .added)
            #expect(try await store.intake().save(signedArchive: bytes) == .added)
            #expect(try await store.archive(for: SampleVersions.identifier) == bytes)
        }
    }

    /// Versions with the stored `updatedAt` instant and other files: (name, updatedAt text, status).
    static let conflictVersions: [(String, String, String?)] = [
        ("another status", "2025-11-21T00:00:00Z", "completed"),
        ("same instant written with another offset", "2025-11-21T01:00:00+01:00", nil),
    ]

    @Test(
        "Same updatedAt with different files throws updatedAtConflict naming both hashes and keeps the stored version",
        arguments: StoreKind.allCases, [0, 1])
    func conflict(kind: StoreKind, variant: Int) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let stored = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let (_, text, status) = Self.conflictVersions[variant]
            let incoming = try SampleVersions.archive(updatedAt: text, status: status)
            #expect(stored != incoming)
            #expect(try await store.intake().save(signedArchive: stored) == .added)
            let error = try await #require(throws: WalletOrdersError.self) {
                try await store.intake().save(signedArchive: incoming)
            }
            #expect(error.code == .updatedAtConflict)
            let storedDigest = await Self.hex(sha256Of: stored)
            let incomingDigest = await Self.hex(sha256Of: incoming)
            #expect(error.message.contains(String(storedDigest.prefix(12))))
            #expect(error.message.contains(String(incomingDigest.prefix(12))))
            #expect(try await store.archive(for: SampleVersions.identifier) == stored)
        }
    }

    @Test(
        "A rebuild of the same files (another signing time) at the stored updatedAt is added and leaves the store unchanged",
        arguments: StoreKind.allCases)
    func rebuild(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let stored = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let rebuilt = try SampleVersions.archive(
                updatedAt: "2025-11-21T00:00:00Z", signingTime: TestPKI.signingTime.addingTimeInterval(60))
            #expect(stored != rebuilt)
            #expect(try await store.intake().save(signedArchive: stored) == .added)
            let history = try await store.history(since: nil)
            #expect(try await store.intake().save(signedArchive: rebuilt) == .added)
            let receipts = try await store.intake().save(signedArchives: [rebuilt, stored])
            #expect(receipts.map { try? $0.get().result } == [.added, .added])
            #expect(receipts.map { try? $0.get().storeChanged } == [false, false])
            // The first archive stays, and the history records no change.
            #expect(try await store.archive(for: SampleVersions.identifier) == stored)
            #expect(try await store.history(since: history.newToken).isEmpty)
            // A new version still replaces it and says the store changed.
            let next = try await store.intake().save(
                signedArchives: [try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")])
            #expect(try next.first?.get().storeChanged == true)
        }
    }

    @Test("An archive that does not verify throws archiveRejected listing the findings, store unchanged", arguments: StoreKind.allCases)
    func rejected(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let good = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            #expect(try await store.intake().save(signedArchive: good) == .added)
            var tampered = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
            tampered[tampered.count / 3] ^= 0xFF
            let error = try await #require(throws: WalletOrdersError.self) {
                try await store.intake().save(signedArchive: tampered)
            }
            #expect(error.code == .archiveRejected)
            let report = TestPKI.validator.validate(archiveBytes: tampered, subject: "tampered")
            let firstError = try #require(report.errors.first)
            #expect(error.message.contains(firstError.ruleID))
            #expect(try await store.archive(for: SampleVersions.identifier) == good)
            #expect(try await store.contains(matching: SampleVersions.identifier, updatedDate: "2025-11-21T00:00:00Z") == .exists)
        }
    }

    @Test("An archive signed by an untrusted root is rejected", arguments: StoreKind.allCases)
    func untrusted(kind: StoreKind) async throws {
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let appleOnly = try OrderValidator()
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let error = try await #require(throws: WalletOrdersError.self) { try await store.intake(appleOnly).save(signedArchive: bytes) }
            #expect(error.code == .archiveRejected)
            #expect(try await store.contains(matching: SampleVersions.identifier) == .notFound)
        }
    }

    @Test("A declining confirmation gives .cancelled and leaves the store unchanged", arguments: StoreKind.allCases)
    func cancelled(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier
            let older = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let newer = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
            let recorder = ProposalRecorder()

            #expect(
                try await store.intake().save(
                    signedArchive: older,
                    confirm: {
                        await recorder.record($0)
                        return false
                    }) == .cancelled)
            #expect(try await store.contains(matching: id) == .notFound)

            #expect(
                try await store.intake().save(
                    signedArchive: older,
                    confirm: {
                        await recorder.record($0)
                        return true
                    }) == .added)
            #expect(
                try await store.intake().save(
                    signedArchive: newer,
                    confirm: {
                        await recorder.record($0)
                        return false
                    }) == .cancelled)
            #expect(try await store.archive(for: id) == older)

            // Nothing to change, nothing to ask.
            #expect(
                try await store.intake().save(
                    signedArchive: older,
                    confirm: {
                        await recorder.record($0)
                        return false
                    }) == .added)

            let proposals = await recorder.proposals
            #expect(proposals.count == 3)
            #expect(proposals.map(\.identifier) == [id, id, id])
            #expect(proposals.map(\.storedUpdatedAt) == [nil, nil, "2025-11-21T00:00:00Z"])
            #expect(proposals.map(\.incomingUpdatedAt) == ["2025-11-21T00:00:00Z", "2025-11-21T00:00:00Z", "2025-11-22T00:00:00Z"])
        }
    }

    @Test(
        "Another writer saving while the handler decides: the store decides again (a newer save wins without a second question; an older one is asked about afresh)",
        arguments: StoreKind.allCases)
    func savedWhileConfirming(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier
            let v1 = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let v2 = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
            let v3 = try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z")
            let recorder = ProposalRecorder()

            // v2 asks to insert; while it asks, v3 is saved: v2 is then older than what is stored.
            let first = try await store.intake().save(signedArchive: v2) { proposal in
                await recorder.record(proposal)
                _ = try? await store.intake().save(signedArchive: v3)
                return true
            }
            #expect(first == .newerExisting)
            #expect(try await store.archive(for: id) == v3)

            // On a fresh identifier's history: v2 asks to replace v1; meanwhile v1 is deleted, so
            // the store holds something else than was agreed to, and the handler is asked again.
            #expect(try await store.delete(id))
            #expect(try await store.intake().save(signedArchive: v1) == .added)
            let second = try await store.intake().save(signedArchive: v2) { proposal in
                await recorder.record(proposal)
                if proposal.storedUpdatedAt != nil { _ = try? await store.delete(id) }
                return true
            }
            #expect(second == .added)
            #expect(try await store.archive(for: id) == v2)
            let proposals = await recorder.proposals
            #expect(proposals.map(\.storedUpdatedAt) == [nil, "2025-11-21T00:00:00Z", nil])
        }
    }

    static let containsCases: [ContainsCase] = [
        ContainsCase(name: "nothing stored → notFound", stored: nil, updatedDate: nil, result: .notFound),
        ContainsCase(name: "nothing stored, with a date → notFound", stored: nil, updatedDate: "2025-11-21T00:00:00Z", result: .notFound),
        ContainsCase(name: "no date → exists", stored: "2025-11-21T00:00:00Z", updatedDate: nil, result: .exists),
        ContainsCase(name: "same instant → exists", stored: "2025-11-21T00:00:00Z", updatedDate: "2025-11-21T00:00:00Z", result: .exists),
        ContainsCase(
            name: "same instant in another offset → exists", stored: "2025-11-21T00:00:00Z", updatedDate: "2025-11-21T05:30:00+05:30", result: .exists
        ),
        ContainsCase(name: "stored later → newerExists", stored: "2025-11-21T00:00:00Z", updatedDate: "2025-11-20T23:59:59Z", result: .newerExists),
        ContainsCase(name: "stored earlier → olderExists", stored: "2025-11-21T00:00:00Z", updatedDate: "2025-11-21T00:00:01Z", result: .olderExists),
        ContainsCase(
            name: "stored earlier by a nanosecond → olderExists", stored: "2025-11-21T00:00:00Z", updatedDate: "2025-11-21T00:00:00.000000001Z",
            result: .olderExists),
    ]

    @Test("Every row of the contains table gives its result", arguments: StoreKind.allCases, containsCases)
    func containsTable(kind: StoreKind, row: ContainsCase) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            if let stored = row.stored {
                #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: stored)) == .added)
            }
            #expect(try await store.contains(matching: SampleVersions.identifier, updatedDate: row.updatedDate) == row.result)
        }
    }

    @Test("Identifiers are exact and case-sensitive; delete removes the order", arguments: StoreKind.allCases)
    func identifiersAndDelete(kind: StoreKind) async throws {
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            let upper = FullyQualifiedOrderIdentifier(
                orderTypeIdentifier: id.orderTypeIdentifier, orderIdentifier: id.orderIdentifier.uppercased())
            let otherType = FullyQualifiedOrderIdentifier(
                orderTypeIdentifier: id.orderTypeIdentifier + ".other", orderIdentifier: id.orderIdentifier)
            #expect(try await store.contains(matching: upper) == .notFound)
            #expect(try await store.contains(matching: otherType) == .notFound)
            #expect(try await store.archive(for: upper) == nil)
            #expect(try await store.delete(upper) == false)
            #expect(try await store.delete(id) == true)
            #expect(try await store.contains(matching: id) == .notFound)
            #expect(try await store.delete(id) == false)
        }
    }

    @Test("8 concurrent tasks saving interleaved versions end with the newest stored and no error", arguments: StoreKind.allCases)
    func concurrentSaves(kind: StoreKind) async throws {
        let versions = try (0..<8).map { try SampleVersions.archive(updatedAt: "2025-11-21T00:00:0\($0)Z") }
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let results = try await withThrowingTaskGroup(of: [SaveOrderResult].self) { group in
                for task in 0..<8 {
                    group.addTask {
                        var results: [SaveOrderResult] = []
                        for step in 0..<8 {
                            results.append(try await store.intake().save(signedArchive: versions[(task + step * 3) % 8]))
                        }
                        return results
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(results.count == 64)
            #expect(results.allSatisfy { $0 == .added || $0 == .newerExisting })
            #expect(try await store.archive(for: SampleVersions.identifier) == versions[7])
            #expect(try await store.contains(matching: SampleVersions.identifier, updatedDate: "2025-11-21T00:00:07Z") == .exists)
            #expect(try await store.list(OrderQuery()).orders.map(\.identifier) == [SampleVersions.identifier])
            // Every change that happened is in the history, once, in order: replacements only go forward.
            let history = try await store.history(since: nil)
            #expect(history.inserted == [SampleVersions.identifier])
        }
    }

    /// SHA-256 through Python's hashlib, an independent oracle.
    static func hex(sha256Of bytes: [UInt8]) async -> String {
        await SHA256Oracle.hex(bytes)
    }
}
