import Foundation
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The intake's order of work: validate → sign → store → notify, and nothing after a refusal.
@Suite(.dedicatedThreads) struct OrderIntakeTests {
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
        #expect(result.refusal?.code == .validationFailed)
        #expect(result.report.errors.contains { $0.location.jsonPointer == "/status" })
        #expect(result.built == nil && result.archive == nil && result.receipt == nil)
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
        #expect(result.archive?.version.contentDigest == built.manifest.contentDigest)
        #expect(result.receipt?.result == .added && result.receipt?.storeChanged == true)
        #expect(recorder.notified.map(\.identifier) == [SampleVersions.identifier])
        // What the intake vouched for without opening the archive, validation of the bytes confirms.
        let (checked, report) = VerifiedOrderArchive.checking(bytes: built.bytes, validator: TestPKI.validator)
        #expect(report.isValid)
        #expect(try checked.get().version == result.archive?.version)
        #expect(try checked.get().status == result.archive?.status)
    }

    @Test("Saving the same archive again changes nothing and notifies no one")
    func unchangedStoreIsNotNotified() async throws {
        let recorder = Recorder()
        let intake = OrderIntake(validator: TestPKI.validator, store: InMemoryOrderStore(), notifier: recorder, onStep: recorder.record)
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        #expect(try await intake.submit(signedArchive: bytes).get().receipt?.storeChanged == true)
        let again = try await intake.submit(signedArchive: bytes).get()
        #expect(again.receipt?.result == .added && again.receipt?.storeChanged == false)
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

    @Test("Without a store the intake validates and signs, and the caller keeps the archive")
    func withoutStore() async throws {
        let recorder = Recorder()
        let intake = OrderIntake(validator: try OrderValidator(), onStep: recorder.record)
        let result = try await intake.submit(source: try Self.source(), builder: Self.builder, signingTime: TestPKI.signingTime).get()
        #expect(result.built != nil && result.receipt == nil)
        #expect(recorder.steps == [.validating, .signing])
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
