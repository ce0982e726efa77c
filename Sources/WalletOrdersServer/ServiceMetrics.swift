public import Foundation
import Metrics
public import Prometheus
public import WalletOrdersStore

/// Where the service's metrics go: a Prometheus registry, served at `GET /metrics`.
///
/// Requests (count, duration, errors, by route), saves by result and pushes by outcome, with the
/// time from a save to its push, are recorded through swift-metrics; ``bootstrapped`` makes the
/// process's metrics system write into one Prometheus registry (once per process, as
/// swift-metrics allows).
public struct ServiceMetrics: Sendable {
    /// The registry `GET /metrics` prints.
    public let registry: PrometheusCollectorRegistry

    /// Serves `registry` (already the metrics system's backend, or one the caller fills).
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Sets the outbox gauges from `status`: `wallet_orders_push_outbox_pending` (parked
    /// included), `wallet_orders_push_outbox_parked`, and
    /// `wallet_orders_push_outbox_oldest_age_seconds` (how long the push that has waited longest
    /// has waited; 0 for an empty outbox). `GET /metrics` reads the outbox and sets them before
    /// every scrape, so they hold with or without a push worker in this process.
    public func record(_ status: PushOutboxStatus, now: Date = Date()) {
        func gauge(_ name: String, _ unit: String, _ help: String) -> Prometheus.Gauge {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(
                    namespace: "wallet_orders", subsystem: "push_outbox", metricName: name, unitName: unit, helpText: help))
        }
        gauge("pending", "", "Pushes waiting in the outbox, parked ones included.").set(Double(status.pending))
        gauge("parked", "", "Pushes parked because APNs refused their topic's credentials.").set(Double(status.parked))
        gauge("oldest_age", "seconds", "How long the push that has waited longest has waited (0: the outbox is empty).")
            .set(status.oldestEnqueuedAt.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }

    /// The metrics in Prometheus' text format, as `GET /metrics` serves them.
    public var exposition: String { String(decoding: registry.emitToBuffer(), as: UTF8.self) }

    /// The process's metrics system, bootstrapped with a Prometheus registry on first use.
    public static var bootstrapped: ServiceMetrics { shared }

    private static let shared: ServiceMetrics = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return ServiceMetrics(registry: registry)
    }()
}
