import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Prometheus
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("GET /metrics: the push outbox's depth and oldest wait, each family once (live HTTP)")
struct OutboxMetricsTests {
    /// The value of the sample (no labels) `name` in Prometheus text.
    static func value(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    @Test(
        "A push waiting without an APNs sender shows as pending 1 with a growing oldest age; an empty outbox as 0 and 0",
        arguments: ServiceStore.allCases)
    func outboxGauges(store kind: ServiceStore) async throws {
        try await kind.withStore { store in
            let metrics = ServiceMetrics(registry: PrometheusCollectorRegistry())
            var configuration = try OrderServer.Configuration(port: 0, apiKeys: [], validator: TestPKI.validator)
            configuration.logRate = (0.01, 3)
            configuration.connections = .liveTestClient
            let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: Logger(label: "test"), metrics: metrics)
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            try await server.application().test(.live) { client in
                var text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(Self.value(text, "wallet_orders_push_outbox_pending") == 0, "\(text)")
                #expect(Self.value(text, "wallet_orders_push_outbox_oldest_age_seconds") == 0)

                _ = try await store.register(deviceIdentifier: "phone", pushToken: "0123456789abcdef", for: SampleVersions.identifier)
                _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
                try await Task.sleep(for: .milliseconds(1_100))
                text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(Self.value(text, "wallet_orders_push_outbox_pending") == 1, "\(text)")
                #expect(Self.value(text, "wallet_orders_push_outbox_parked") == 0)
                #expect((Self.value(text, "wallet_orders_push_outbox_oldest_age_seconds") ?? 0) >= 1, "\(text)")

                // Prometheus refuses an exposition that declares a family twice.
                let families = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
                #expect(Set(families).count == families.count, "a family declared twice: \(families)")
            }
        }
    }
}
