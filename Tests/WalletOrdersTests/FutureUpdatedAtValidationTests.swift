import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("Validation warns about an updatedAt further ahead of the current time than a store accepts")
struct FutureUpdatedAtValidationTests {
    @Test("An archive dated 9999-12-31 gets the order.updated-at-in-future warning at /updatedAt, and stays valid")
    func farFutureWarns() throws {
        let archive = try SampleVersions.archive(updatedAt: "9999-12-31T23:59:59Z")
        let report = TestPKI.validator.validate(archiveBytes: archive, subject: "pinned.order")
        let finding = try #require(report.diagnostics.first { $0.ruleID == ValidationRule.orderUpdatedAtInFuture.id })
        #expect(finding.severity == .warning)
        #expect(finding.location.jsonPointer == "/updatedAt")
        #expect(finding.message.contains("9999-12-31T23:59:59Z") && finding.message.contains("1 day"), "\(finding.message)")
        #expect(finding.hint?.contains("Set updatedAt to the time of the change") == true, "\(String(describing: finding.hint))")
        #expect(report.errors.isEmpty, "a warning: validation alone can't know a store's clock")
    }

    @Test("The comparison is with the time validation runs: inside the day is quiet, and the same archive warns when validated earlier")
    func comparedWithNow() throws {
        let archive = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        let rule = ValidationRule.orderUpdatedAtInFuture.id
        func warns(at now: Date) -> Bool {
            TestPKI.validator.validate(archiveBytes: archive, subject: "a.order", now: now).diagnostics.contains { $0.ruleID == rule }
        }
        let updatedAt = try Timestamp(rfc3339: "2025-11-22T00:00:00Z").date
        #expect(!warns(at: Date()))
        #expect(!warns(at: updatedAt.addingTimeInterval(-86_400 + 60)))
        #expect(warns(at: updatedAt.addingTimeInterval(-86_400 - 60)))
    }

    @Test("The limit's margin: refused just outside, accepted just inside, and a negative margin is a configuration error")
    func limit() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try UpdatedAtLimit(margin: 90 * 60)
        let identifier = FullyQualifiedOrderIdentifier(orderTypeIdentifier: "order.com.example", orderIdentifier: "A")
        #expect(limit.refusal(of: identifier, updatedAt: Timestamp(now.addingTimeInterval(90 * 60 - 1)), now: now) == nil)
        let refusal = try #require(limit.refusal(of: identifier, updatedAt: Timestamp(now.addingTimeInterval(90 * 60 + 1)), now: now))
        #expect(refusal.code == .updatedAtInFuture)
        #expect(refusal.message.contains("90 minutes") && refusal.message.contains("2027-01-15T08:00:00Z"), "\(refusal.message)")
        #expect(throws: WalletOrdersError.self) { try UpdatedAtLimit(margin: -1) }
        #expect(UpdatedAtLimit.default.margin == 86_400)
    }
}
