import Foundation
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization
public import WalletOrdersStore

/// Collects delivery events (``DeliveryEvent``) as requests and pushes happen and writes them to
/// the store in batches, off the request's path: a Wallet GET adds an event to a list in memory,
/// not a write. It runs as a service of the group (``OrderServer/services``): it writes what it
/// holds every ``interval`` and when the group shuts down.
///
/// At most ``capacity`` events wait; past that the oldest are dropped and counted
/// (`wallet_orders_delivery_events_dropped_total`). Events are diagnostics: those waiting when a
/// process dies are lost, and a failed write is logged and dropped, never retried for ever.
public final class DeliveryTrailRecorder: Service, Sendable {
    private let store: any DeliveryTrailStoring
    private let pending = Mutex<[DeliveryEvent]>([])
    private let logger: Logger
    /// How often waiting events are written.
    public let interval: Duration
    /// The most events that wait.
    public let capacity: Int

    public init(store: any DeliveryTrailStoring, interval: Duration = .milliseconds(500), capacity: Int = 10_000, logger: Logger) {
        self.store = store
        self.interval = interval
        self.capacity = capacity
        self.logger = logger
    }

    /// Adds an event to the next write.
    public func record(_ event: DeliveryEvent) {
        record([event])
    }

    /// Adds events to the next write.
    public func record(_ events: [DeliveryEvent]) {
        guard !events.isEmpty else { return }
        let dropped = pending.withLock { pending -> Int in
            pending.append(contentsOf: events)
            let excess = pending.count - capacity
            guard excess > 0 else { return 0 }
            pending.removeFirst(excess)
            return excess
        }
        if dropped > 0 { Counter(label: "wallet_orders_delivery_events_dropped_total").increment(by: dropped) }
    }

    /// Writes every waiting event now (a report reads the trail after this).
    public func flush() async {
        let events = pending.withLock { pending -> [DeliveryEvent] in
            defer { pending = [] }
            return pending
        }
        guard !events.isEmpty else { return }
        do {
            try await store.recordDeliveryEvents(events)
        } catch {
            logger.warning("could not record the delivery trail", metadata: ["events": "\(events.count)", "error": "\(error)"])
        }
    }

    /// Writes the waiting events every ``interval`` until the group shuts down, then once more.
    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await flush()
        }
        await flush()
    }
}
