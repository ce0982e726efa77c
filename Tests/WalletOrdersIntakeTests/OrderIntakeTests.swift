import Foundation
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The intake's order of work: validate → sign → store → notify, and nothing after a refusal.
@Suite struct OrderIntakeTests {
    /// The sample's files with `order.json` edited by `edit`.
    static func source(_ edit: (String) -> String = { $0 }) throws -> OrderSource {
        var files = try OrderSource(directory: Repository.sample(SampleVersions.sampleName)).files
        let json = String(decoding: try #require(files[OrderArchive.orderPath]), as: UTF8.self)
        files[OrderArchive.orderPath] = Array(edit(json).utf8)
        return OrderSource(files: files)
    }

    static var builder: OrderArchiveBuilder {
        OrderArchiveBuilder(identity: TestPKI.identity(for: SampleVersions.identifier.orderTypeIdentifier))
    }

    @Test("A source with errors stops at validation: no signature, no save, no notification; the report says why")
    func refusedSource() async throws {
        let recorder = Recorder()
        let store = InMemoryOrderStore()
        let intake = OrderIntake(validator: TestPKI.validator, store: store, notifier: recorder, onStep: recorder.record)
        let source = try Self.source { $0.replacingOccurrences(of: #""status": "open""#, with: #""status": "opne""#) }
        let result = try await intake.submit(source: source, builder: Self.builder, signingTime: TestPKI.signingTime)
        guard case .refused(let refusal, let order) = result.outcome else {
            Issue.record("taken: \(result)")
            return
        }
        #expect(refusal.code == .validationFailed && order == nil)
        #expect(result.report.errors.contains { $0.location.jsonPointer == "/status" })
        #expect(recorder.steps == [.validating])
        #expect(recorder.notified.isEmpty)
        #expect(await store.count == 0)
    }

    @Test("A source signed by an identity the validator doesn't trust is refused before signing when it would be stored")
    func untrustedIdentity() async throws {
        let recorder = Recorder()
        let intake = OrderIntake(validator: try OrderValidator(), store: InMemoryOrderStore(), onStep: recorder.record)
        let result = try await intake.submit(source: try Self.source(), builder: Self.builder, signingTime: TestPKI.signingTime)
        #expect(result.refusal?.code == .validationFailed)
        #expect(result.report.errors.contains { $0.ruleID == ValidationRule.certificateUntrusted.id })
        #expect(recorder.steps == [.validating])
    }

    @Test("A valid source: validated, signed once, stored as the builder made it, then the notifier is told")
    func acceptedSource() async throws {
        let recorder = Recorder()
        let store = InMemoryOrderStore()
        let intake = OrderIntake(validator: TestPKI.validator, store: store, notifier: recorder, onStep: recorder.record)
        let source = try Self.source()
        let result = try await intake.submit(source: source, builder: Self.builder, signingTime: TestPKI.signingTime).get()
        #expect(recorder.steps == [.validating, .signing, .saving, .notifying])
        let built = try #require(result.built)
        #expect(built.bytes == (try Self.builder.build(source, signingTime: TestPKI.signingTime).bytes))
        #expect(try await store.archive(for: SampleVersions.identifier) == built.bytes)
        #expect(result.archive.version.contentDigest == built.manifest.contentDigest)
        #expect(result.receipt.result == .added && result.receipt.storeChanged)
        #expect(recorder.notified.map(\.identifier) == [SampleVersions.identifier])
        // What the intake vouched for without opening the archive, validation of the bytes confirms.
        let (checked, report) = VerifiedOrderArchive.checking(bytes: built.bytes, validator: TestPKI.validator)
        #expect(report.isValid)
        #expect(try checked.get().version == result.archive.version)
        #expect(try checked.get().status == result.archive.status)
    }

    @Test("Saving the same archive again changes nothing and notifies no one")
    func unchangedStoreIsNotNotified() async throws {
        let recorder = Recorder()
        let intake = OrderIntake(validator: TestPKI.validator, store: InMemoryOrderStore(), notifier: recorder, onStep: recorder.record)
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        #expect(try await intake.submit(signedArchive: bytes).get().receipt.storeChanged)
        let again = try await intake.submit(signedArchive: bytes).get()
        #expect(again.receipt.result == .added && !again.receipt.storeChanged)
        #expect(recorder.steps == [.validating, .saving, .notifying, .validating, .saving])
        #expect(recorder.notified.count == 1)
    }

    @Test("A signed archive that doesn't verify is refused with the report, and not stored")
    func refusedArchive() async throws {
        let recorder = Recorder()
        let store = InMemoryOrderStore()
        let intake = OrderIntake(validator: TestPKI.validator, store: store, notifier: recorder, onStep: recorder.record)
        var broken = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        broken[broken.count / 2] ^= 0xFF
        let result = try await intake.submit(signedArchive: broken)
        #expect(result.refusal?.code == .archiveRejected)
        #expect(!result.report.isValid)
        #expect(recorder.steps == [.validating])
        #expect(await store.count == 0)
    }

    @Test("An updatedAt too far ahead is refused after validation and before signing")
    func futureSourceIsNotSigned() async throws {
        let recorder = Recorder()
        let future = Timestamp(Date().addingTimeInterval(30 * 86_400)).text
        let intake = OrderIntake(
            validator: TestPKI.validator, store: InMemoryOrderStore(), updatedAtLimit: .default, onStep: recorder.record)
        let source = try Self.source { $0.replacingOccurrences(of: SampleVersions.updatedAtLine, with: #""updatedAt": "\#(future)""#) }
        let result = try await intake.submit(source: source, builder: Self.builder, signingTime: TestPKI.signingTime)
        #expect(result.refusal?.code == .updatedAtInFuture)
        #expect(recorder.steps == [.validating])
    }

    @Test("Without a store the intake validates and signs, and the caller keeps the archive; submitting needs a store")
    func withoutStore() async throws {
        let recorder = Recorder()
        let intake = OrderIntake(validator: try OrderValidator(), onStep: recorder.record)
        let signed = try intake.prepare(source: try Self.source(), builder: Self.builder, signingTime: TestPKI.signingTime).get()
        #expect(signed.built.bytes == signed.archive.bytes)
        #expect(recorder.steps == [.validating, .signing])
        for submit in [
            { _ = try await intake.submit(source: try Self.source(), builder: Self.builder, signingTime: TestPKI.signingTime) },
            { _ = try await intake.submit(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) },
            { _ = try await intake.submit(source: try Self.source(), signer: { _ in OrderIntake.Signer(builder: Self.builder) }) },
        ] as [() async throws -> Void] {
            let error = await #expect(throws: WalletOrdersError.self) { try await submit() }
            #expect(error?.code == .invalidConfiguration)
        }
        do {
            _ = try await intake.save(signedArchives: [try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")])
            Issue.record("a batch saved without a store")
        } catch let error as WalletOrdersError {
            #expect(error.code == .invalidConfiguration)
        }
        #expect(recorder.steps == [.validating, .signing])
    }

    @Test("A signer chosen by the order's type: asked once with the type order.json names, before validation; its template fills in files")
    func signerByOrderType() async throws {
        let recorder = Recorder()
        let store = InMemoryOrderStore()
        let intake = OrderIntake(validator: TestPKI.validator, store: store, notifier: recorder, onStep: recorder.record)
        var files = try Self.source().files
        let template = OrderBatchTemplate(files: files.filter { $0.key != OrderArchive.orderPath })
        files = files.filter { $0.key == OrderArchive.orderPath }  // order.json alone: the template brings the images
        let asked = Mutex<[String]>([])
        let result = try await intake.submit(
            source: OrderSource(files: files),
            signer: { type in
                asked.withLock { $0.append(type) }
                return OrderIntake.Signer(builder: Self.builder, template: template)
            }, signingTime: TestPKI.signingTime
        ).get()
        #expect(asked.withLock { $0 } == [SampleVersions.identifier.orderTypeIdentifier])
        #expect(result.built?.bytes == (try Self.builder.build(try Self.source(), signingTime: TestPKI.signingTime).bytes))
        #expect(result.receipt.result == .added)
        #expect(recorder.steps == [.validating, .signing, .saving, .notifying])

        // No order type: nothing to choose, refused before validation, the signer never asked.
        let untyped = try Self.source { $0.replacingOccurrences(of: #""orderTypeIdentifier""#, with: #""orderTypeIdentifer""#) }
        let refused = try await intake.submit(
            source: untyped,
            signer: { _ in
                Issue.record("asked for a signer without an order type")
                return OrderIntake.Signer(builder: Self.builder)
            })
        #expect(refused.refusal?.code == .invalidOrder)
        // What the signer throws (a type outside the caller's scope) is thrown, and nothing is signed.
        struct NotYours: Error {}
        await #expect(throws: NotYours.self) {
            try await intake.submit(source: try Self.source(), signer: { _ in throw NotYours() })
        }
        #expect(recorder.steps == [.validating, .signing, .saving, .notifying])
        #expect(await store.count == 1)

        // The source's own files win over the template's, and what it skipped is still noted.
        var changed = template.files
        let image = try #require(changed.keys.sorted().first)
        changed[image] = [0x00]
        var withJunk = try Self.source().files
        withJunk[".DS_Store"] = [0x01]
        let again = try await intake.submit(
            source: OrderSource(files: withJunk),
            signer: { _ in OrderIntake.Signer(builder: Self.builder, template: OrderBatchTemplate(files: changed)) },
            signingTime: TestPKI.signingTime
        ).get()
        let plain = try Self.builder.build(OrderSource(files: withJunk), signingTime: TestPKI.signingTime)
        #expect(again.built?.bytes == plain.bytes)
        #expect(again.built?.diagnostics == plain.diagnostics && !plain.diagnostics.isEmpty, "the skipped .DS_Store is noted")
    }
}

/// Records the intake's steps and notifications.
final class Recorder: OrderChangeNotifier, Sendable {
    private let state = Mutex<(steps: [OrderIntake.Step], notified: [OrderSaveReceipt])>(([], []))
    func record(_ step: OrderIntake.Step) { state.withLock { $0.steps.append(step) } }
    func ordersChanged(_ receipts: [OrderSaveReceipt]) async { state.withLock { $0.notified += receipts } }
    var steps: [OrderIntake.Step] { state.withLock { $0.steps } }
    var notified: [OrderSaveReceipt] { state.withLock { $0.notified } }
}

/// The ways in that once went around the intake: a store copy, the demo, the example server.
@Suite struct OneWayInTests {
    @Test("A store copy goes through the intake: each page validated and saved, the notifier told of what it wrote, not of what was there")
    func copyNotifies() async throws {
        let source = InMemoryOrderStore()
        let destination = InMemoryOrderStore()
        let archives = try (0..<3).map { try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "N-\($0)") }
        _ = try await source.intake().save(signedArchives: archives)
        #expect(try await destination.intake().save(signedArchive: archives[0]) == .added)
        let recorder = Recorder()
        let intake = OrderIntake(validator: TestPKI.validator, store: destination, notifier: recorder, onStep: recorder.record)
        let report = try await OrderStoreCopy.copy(from: source, through: intake, batchSize: 2)
        #expect(report.written == 2 && report.unchanged == 1)
        #expect(Set(recorder.notified.map(\.identifier.orderIdentifier)) == ["N-1", "N-2"])
        #expect(recorder.steps == [.validating, .saving, .notifying, .validating, .saving, .notifying])
        // An archive the intake's validator doesn't trust is not copied: the copy validates again.
        let untrusting = OrderIntake(validator: try OrderValidator(), store: InMemoryOrderStore())
        let refused = try await OrderStoreCopy.copy(from: source, through: untrusting)
        #expect(refused.written == 0 && refused.failures.map(\.code) == Array(repeating: "archive-rejected", count: 3))
    }

    @Test("Outside the intake and the stores themselves, no source saves into a store or parses order.json to choose a signer")
    func noWayAround() throws {
        let folders = ["Sources", "Examples"].map { Repository.root.appendingPathComponent($0) }
        let allowed = ["Sources/WalletOrdersIntake/", "Sources/WalletOrdersStore/", "Sources/WalletOrdersPostgres/"]
        var found: [String] = []
        for folder in folders {
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" || file.pathExtension == "md" {
                let path = String(file.path.dropFirst(Repository.root.path.count + 1))
                guard !allowed.contains(where: { path.hasPrefix($0) }) else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for call in [".save(verifiedArchives:", ".save(verifiedArchive:", ".saveMerging("] where text.contains(call) {
                    found.append("\(path): \(call)")
                }
                if path == "Sources/WalletOrdersServer/MerchantRoutes.swift", text.contains("JSONParser") {
                    found.append("\(path): JSONParser.parse")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
