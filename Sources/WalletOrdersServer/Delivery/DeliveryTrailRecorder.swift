import Foundation
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization
public import WalletOrdersStore

/// Collects delivery events (``DeliveryEvent``) as requests and pushes happen and writes them to
/// the store in batches, off the request's path: a Wallet GET adds an event to a table in
/// memory, not a write. It runs as a service of the group (``OrderServer/services``): it writes
/// what it holds every ``interval`` and when the group shuts down.
///
/// What waits is bounded, so that no flood of requests turns into a flood of writes: of each
/// trail only the newest ``DeliveryTrailLimits/perTrail`` events wait (the store would keep no
/// more), and at most ``capacity`` in all; past that new events are dropped and counted
/// (`wallet_orders_delivery_events_dropped_total`). A write is then at most ``capacity`` rows
/// every ``interval``, however many requests came. Events are diagnostics: those waiting when a
/// process dies are lost, and a failed write is logged and dropped, never retried for ever.
public final class DeliveryTrailRecorder: Service, Sendable {
    private struct Pending {
        var byTrail: [String: [DeliveryEvent]] = [:]
        var count = 0
    }

    private let store: any DeliveryTrailStoring
    private let pending = Mutex(Pending())
    private let logger: Logger
    /// How often waiting events are written.
    public let interval: Duration
    /// The most events that wait.
    public let capacity: Int
    /// What ``interval`` is waited on (tests move it by hand).
    private let clock: any ServiceClock

    /// Creates a writer for `store` that writes every `interval` on `clock`, holding at most
    /// `capacity` events in between.
    public init(
        store: any DeliveryTrailStoring, interval: Duration = .milliseconds(500), capacity: Int = 2_000, logger: Logger,
        clock: any ServiceClock = SystemServiceClock()
    ) {
        self.store = store
        self.interval = interval
        self.capacity = capacity
        self.logger = logger
        self.clock = clock
    }

    /// Adds an event to the next write. An event like the trail's last one but for its time (a
    /// device fetching the same version again) only moves that one's time: a trail keeps the
    /// newest of a run of repeats, not the run.
    public func record(_ event: DeliveryEvent) {
        let key = event.trailKey
        let dropped = pending.withLock { pending -> Bool in
            guard let count = pending.byTrail[key]?.count else {
                guard pending.count < capacity else { return true }
                pending.count += 1
                pending.byTrail[key] = [event]
                return false
            }
            // Mutated in place in the dictionary (no copy of the trail).
            if let last = pending.byTrail[key]?.last, last.kind == event.kind, last.detail == event.detail {
                pending.byTrail[key]![count - 1].at = event.at
                return false
            }
            if count >= DeliveryTrailLimits.perTrail {
                pending.byTrail[key]!.removeFirst()  // the store would drop it too
            } else if pending.count >= capacity {
                return true
            } else {
                pending.count += 1
            }
            pending.byTrail[key]!.append(event)
            return false
        }
        if dropped { Counter(label: "wallet_orders_delivery_events_dropped_total").increment() }
    }

    /// Writes every waiting event now (a report reads the trail after this).
    public func flush() async {
        let events = pending.withLock { pending -> [DeliveryEvent] in
            defer { pending = Pending() }
            return pending.byTrail.values.joined().sorted { $0.at < $1.at }
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
            // The wait ends at the group's shutdown too: the last write below comes at once.
            try? await cancelWhenGracefulShutdown { try await self.clock.sleep(for: self.interval) }
            await flush()
        }
        await flush()
    }
}
