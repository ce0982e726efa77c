import Metrics
public import Prometheus

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
