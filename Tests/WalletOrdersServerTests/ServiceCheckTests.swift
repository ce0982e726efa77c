import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersServiceCheck
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("wallet-orders check-service: the checker against this service and against deviant ones (live HTTP)", .serialized)
struct ServiceCheckTests {
    static func checker(_ url: String, merchantKey: String? = nil, timeout: Duration = .seconds(10)) throws -> ServiceChecker {
        try ServiceChecker(
            .init(
                serviceURL: url, order: ServiceUnderTest.order, authenticationToken: ServiceUnderTest.token, merchantAPIKey: merchantKey,
                timeout: timeout))
    }

    @Test("This service with the merchant key and signing: every check passes, the change reaches the device, the device is unregistered")
    func thisServiceHasNoFindings() async throws {
        let service = try MerchantBuildTests.service()
        #expect(try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        let report = try await service.runLive { client in
            try await Self.checker("http://127.0.0.1:\(try #require(client.port))/", merchantKey: ServiceUnderTest.apiKey).check()
        }
        #expect(report.findings.isEmpty, "\(report.rendered(as: .text))")
        #expect(report.checks.allSatisfy { $0.outcome == .passed }, "\(report.rendered(as: .text))")
        #expect(Set(report.checks.map(\.ruleID)) == Set(ServiceCheckRule.all.map(\.id)), "every rule was checked")
        #expect(report.checks.count == 22)
        // The change step made a new version; the test device is no longer registered.
        let stored = try #require(try await service.store.archive(for: ServiceUnderTest.order))
        #expect(try OrderArchive(bytes: stored).order().updatedAt > "2025-11-21T00:00:00Z")
    }

    @Test("This service without signing: the change checks are skipped and say why; nothing else changes")
    func changeSkippedWithoutSigning() async throws {
        let service = try ServiceUnderTest()
        #expect(try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        let report = try await service.runLive { client in
            try await Self.checker("http://127.0.0.1:\(try #require(client.port))", merchantKey: ServiceUnderTest.apiKey).check()
        }
        #expect(report.findings.isEmpty, "\(report.rendered(as: .text))")
        let skipped = report.checks.filter { $0.outcome == .skipped }
        #expect(Set(skipped.map(\.ruleID)) == ["service.change-moves-tag", "service.change-served"])
        #expect(skipped.allSatisfy { $0.skipReason?.contains("building isn't configured on the service") == true }, "\(skipped)")
    }

    @Test("A service that follows the protocol: no findings")
    func deviantServiceWithoutDeviations() async throws {
        let report = try await DeviantOrderService(nil).run { url in try await Self.checker(url).check() }
        #expect(report.findings.isEmpty, "\(report.rendered(as: .text))")
        #expect(report.passed)
    }

    static let planted: [(DeviantOrderService.Deviation, String, Diagnostic.Severity)] = [
        (.ownMediaType, "service.media-type", .error),
        (.epochLastModified, "service.last-modified", .error),
        (.numericIfModifiedSince, "service.not-modified", .error),
        (.notFoundForUnknownOrder, "service.unknown-order", .error),
        (.floatingPointTags, "service.tag", .warning),
        (.ignoresTag, "service.tag", .error),
    ]

    @Test("Each planted deviation is reported with its rule, and nothing else", arguments: planted)
    func plantedDeviation(_ deviation: DeviantOrderService.Deviation, ruleID: String, severity: Diagnostic.Severity) async throws {
        let report = try await DeviantOrderService(deviation).run { url in try await Self.checker(url).check() }
        #expect(report.findings.map(\.ruleID) == [ruleID], "\(report.rendered(as: .text))")
        #expect(report.findings.first?.severity == severity)
        #expect(report.passed == (severity == .warning))
    }

    @Test("What a finding says: the request, what was expected and what came back")
    func findingContents() async throws {
        let media = try await DeviantOrderService(.ownMediaType).run { url in try await Self.checker(url).check() }
        let finding = try #require(media.findings.first)
        #expect(finding.request.method == "GET")
        #expect(finding.request.path == "/v1/orders/\(ServiceUnderTest.orderPath)")
        #expect(finding.expected == "Content-Type: application/vnd.apple.finance.order")
        #expect(finding.actual == "Content-Type: application/vnd.apple.order")

        let unknown = try await DeviantOrderService(.notFoundForUnknownOrder).run { url in try await Self.checker(url).check() }
        #expect(unknown.findings.first?.expected == "401")
        #expect(unknown.findings.first?.actual.hasPrefix("404") == true)
        let epoch = try await DeviantOrderService(.epochLastModified).run { url in try await Self.checker(url).check() }
        #expect(epoch.findings.first?.message.contains("epoch seconds") == true)
        #expect(epoch.findings.first?.actual == "Last-Modified: \(DeviantOrderService.updatedAt.secondsSince1970)")
        // If-Modified-Since is still checked: with the order's updatedAt as an HTTP-date.
        #expect(epoch.checks.contains { $0.ruleID == "service.not-modified" }, "\(epoch.rendered(as: .text))")
        #expect(!epoch.checks.contains { $0.outcome == .skipped && $0.ruleID == "service.not-modified" }, "\(epoch.rendered(as: .text))")
        #expect(epoch.findings.count == 1, "\(epoch.rendered(as: .text))")
    }

    @Test("Garbage JSON in the list is a finding, and the token it echoes is not in any output")
    func garbageList() async throws {
        let report = try await DeviantOrderService(.garbageList).run { url in try await Self.checker(url).check() }
        #expect(report.findings.map(\.ruleID) == ["service.changed-orders"], "\(report.rendered(as: .text))")
        #expect(report.findings.first?.message == "The body is not JSON.")
        for format in ServiceCheckReport.Format.allCases {
            let text = report.rendered(as: format)
            #expect(!text.contains(ServiceUnderTest.token), "\(format)")
            #expect(text.contains("[token]"), "\(format)")
        }
    }

    @Test(
        "A body over 8 MiB is a finding, with a Content-Length or streamed; the archive checks that need it are skipped",
        arguments: [DeviantOrderService.Deviation.hugeOrderBody, .hugeStreamedOrderBody])
    func hugeBody(_ deviation: DeviantOrderService.Deviation) async throws {
        let report = try await DeviantOrderService(deviation).run { url in try await Self.checker(url).check() }
        #expect(report.findings.map(\.ruleID) == ["service.order"], "\(report.rendered(as: .text))")
        #expect(report.findings.first?.actual.contains("over 8388608 bytes") == true)
    }

    @Test("A slow answer is a finding within the timeout; later requests are skipped, the device is still unregistered")
    func slowService() async throws {
        let started = ContinuousClock.now
        // 5 s for each request: enough for every other answer on a loaded machine; the list never comes.
        let report = try await DeviantOrderService(.slowList).run { url in try await Self.checker(url, timeout: .seconds(5)).check() }
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(report.findings.map(\.ruleID) == ["service.changed-orders"], "\(report.rendered(as: .text))")
        #expect(report.findings.first?.actual.contains("nothing within 5 s") == true)
        #expect(report.checks.contains { $0.ruleID == "service.unregister" && $0.skipReason?.contains("stopped answering") == true })
    }

    @Test("No service at the URL: the checker throws service-unreachable, quickly")
    func unreachable() async throws {
        await #expect(throws: WalletOrdersError(.serviceUnreachable, "")) {
            try await Self.checker("http://127.0.0.1:1", timeout: .seconds(2)).check()
        }
    }

    @Test("JUnit: one test case per check, failures for errors, skips with their reason; JSON counts them")
    func formats() async throws {
        let report = try await DeviantOrderService(.ownMediaType).run { url in try await Self.checker(url).check() }
        let junit = report.rendered(as: .junit)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == report.checks.count)
        #expect(junit.components(separatedBy: "<failure ").count - 1 == 1)
        #expect(junit.contains(#"classname="wallet-orders.check-service.service.media-type""#))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.rendered(as: .json).utf8)) as? [String: Any])
        #expect(json["passed"] as? Bool == false)
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["errors"] as? Int == 1)
        #expect(summary["checks"] as? Int == report.checks.count)
    }
}
