import Foundation
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization
public import WalletOrdersIntake
public import WalletOrdersStore

/// How the push worker drains the outbox.
public struct PushWorkerConfiguration: Sendable, Hashable {
    /// Pushes claimed, and sent concurrently, at a time (default 32). Claims take order types in
    /// turn, so another merchant's push waits behind at most the batches in flight of a large
    /// fan-out, not the whole of it.
    public var batchSize: Int
    /// Batches in flight at once (default 2): while one waits for its last answers, others are
    /// claimed, sent and recorded, so up to `batchSize × concurrentBatches` pushes are in flight
    /// on the APNs connection.
    public var concurrentBatches: Int
    /// How long a claim lasts: a push claimed by a worker that died is sent again after it
    /// (default ``defaultLease``). It must outlast the slowest send, or a slow APNs gets the push
    /// twice: ``APNsClient`` waits up to 10 s to connect and 30 s for an answer, and sends a push a
    /// second time on a lost connection or an expired provider token.
    public var lease: Duration
    /// Two minutes: longer than the APNs client's slowest send (twice 10 s to connect and 30 s for
    /// an answer), so a push is sent twice only when its worker died.
    public static let defaultLease = Duration.seconds(120)
    /// How often the outbox is looked at when nothing wakes the worker: saves by other processes
    /// and retries coming due are found this way (default 1 s).
    public var pollInterval: Duration
    /// The first retry's delay; each further attempt doubles it, up to ``maximumBackoff``, and a
    /// random part of it (each delay drawn from half to all of its step) spreads retries out (default 1 s).
    public var initialBackoff: Duration
    /// The longest delay between two attempts (default 15 minutes). Attempts are not capped: a
    /// push is retried until it is delivered, a newer change for the same token and topic
    /// supersedes it, or APNs says its token is gone.
    public var maximumBackoff: Duration
    /// How often the worker tries one parked push of each topic whose credentials APNs refused,
    /// to find out whether they work again (default 60 s). A delivered push of the topic, from
    /// any worker, resumes its parked pushes at once.
    public var parkedProbeInterval: Duration

    /// Creates a configuration.
    public init(
        batchSize: Int = 32, concurrentBatches: Int = 2, lease: Duration = PushWorkerConfiguration.defaultLease, pollInterval: Duration = .seconds(1),
        initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(900), parkedProbeInterval: Duration = .seconds(60)
    ) {
        self.batchSize = max(1, batchSize)
        self.concurrentBatches = max(1, concurrentBatches)
        self.lease = lease
        self.pollInterval = pollInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.parkedProbeInterval = parkedProbeInterval
    }
}

/// Drains the durable push outbox: claims due pushes, sends them, and records each outcome.
///
/// | outcome | what becomes of the push |
/// |---|---|
/// | delivered | removed |
/// | the token is gone (410, `BadDeviceToken`, `Unregistered`, `DeviceTokenNotForTopic`) | removed with the registrations it was for (that token, that order type) |
/// | a passing failure (429, 5xx, no connection, a timeout) | retried with exponential backoff and jitter (half to all of each step), capped at ``PushWorkerConfiguration/maximumBackoff`` (or after `Retry-After`), for as long as it takes |
/// | APNs refused the credentials (``PushOutcome/credentialsRefused(reason:)``) | parked with every push of its topic; an error log line and the gauge `wallet_orders_push_topic_parked{topic}` = 1 say so; one is tried every ``PushWorkerConfiguration/parkedProbeInterval``, and the first delivered push of the topic resumes them all |
/// | APNs refused the push for another reason (``PushOutcome/rejected(reason:)``: `BadTopic`, `BadPath`, `PayloadTooLarge`, an unexpected status) | parked the same way: a Wallet push carries nothing but its token and topic, so such a refusal says the topic or the endpoint is wrong, and every push of the topic would get it; the error log line names the reason |
///
/// A service of swift-service-lifecycle: on graceful shutdown it stops claiming and waits for the
/// pushes it is sending, so none is left claimed. Delivery is at least once: a worker killed
/// mid-send leaves its claims to expire (``PushWorkerConfiguration/lease``) and be sent again.
public final class PushWorker: Service, OrderChangeNotifier, Sendable {
    private let outbox: any PushOutboxStoring
    private let sender: any PushSender
    private let configuration: PushWorkerConfiguration
    private let logger: Logger
    private let trail: DeliveryTrailRecorder?
    private let clock: any ServiceClock
    private let signal = Mutex(WakeSignal())
    private let parking = Mutex(Parking())

    /// The worker's wake-ups: one that comes while the worker drains is kept for its next wait.
    private struct WakeSignal {
        /// A wake came while no one waited.
        var pending = false
        /// The worker's loop, waiting for a wake.
        var waiter: CheckedContinuation<Void, Never>?
        /// The group is shutting down: every wait ends at once.
        var finished = false
    }

    /// Topics whose credentials APNs refused, as this worker knows them.
    private struct Parking {
        /// Parked topics, with the reason APNs gave.
        var topics: [String: String] = [:]
        /// Whether the outbox held parked pushes when last looked at (parked by any worker).
        var outboxHasParked = false
        /// When parked pushes are next tried, on the worker's clock.
        var nextProbe = Date.distantPast
    }

    /// Creates a worker for `outbox` (which must also remove registrations whose token is gone:
    /// the order store does both); each push sent is noted in `trail` with APNs's answer. `clock`
    /// is what the poll, the retries' due times and the parked probe go by (tests move it by hand).
    public init(
        outbox: any PushOutboxStoring, sender: any PushSender, configuration: PushWorkerConfiguration = .init(), logger: Logger,
        trail: DeliveryTrailRecorder? = nil, clock: any ServiceClock = SystemServiceClock()
    ) {
        self.outbox = outbox
        self.sender = sender
        self.configuration = configuration
        self.logger = logger
        self.trail = trail
        self.clock = clock
    }

    /// Looks at the outbox now (called after a save in this process).
    public func wake() {
        let waiter = signal.withLock { signal -> CheckedContinuation<Void, Never>? in
            guard let waiter = signal.waiter else {
                signal.pending = true
                return nil
            }
            signal.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Looks at the outbox now: the ``OrderIntake`` of this process changed the store.
    public func ordersChanged(_ receipts: [OrderSaveReceipt]) async {
        wake()
    }

    /// Drains the outbox, then waits for a wake (a save in this process, a topic resumed) or the
    /// poll interval on the clock, whichever comes first, and again, until the group shuts down.
    public func run() async throws {
        await withGracefulShutdownHandler {
            // The first drain sends whatever waits from before the start.
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                await drain()
                await waitForWork()
            }
        } onGracefulShutdown: { [self] in
            signal.withLock { $0.finished = true }
            wake()
        }
    }

    /// Returns at a wake or after ``PushWorkerConfiguration/pollInterval`` on the clock: saves by
    /// other processes and retries coming due are found by the poll. Both waits are child tasks,
    /// so they run where the worker runs.
    private func waitForWork() async {
        // A wake that came while the worker drained (a topic it resumed, a save): drain again at once.
        let woken = signal.withLock { signal -> Bool in
            defer { signal.pending = false }
            return signal.pending || signal.finished
        }
        if woken { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [clock, configuration] in try? await clock.sleep(for: configuration.pollInterval) }
            group.addTask { await self.nextWake() }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Returns at the next wake (at once when one came since the last wait, or the group is
    /// shutting down), or when the task is cancelled.
    private func nextWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = signal.withLock { signal -> Bool in
                    // Cancelled before this wait began: the handler below found no waiter to resume.
                    if signal.pending || signal.finished || Task.isCancelled {
                        signal.pending = false
                        return true
                    }
                    signal.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = signal.withLock { signal -> CheckedContinuation<Void, Never>? in
                defer { signal.waiter = nil }
                return signal.waiter
            }
            waiter?.resume()
        }
    }

    /// Tries parked pushes when it is time, then sends every due push, ``PushWorkerConfiguration/concurrentBatches``
    /// batches at a time, until none is due.
    func drain() async {
        await probeParkedPushes()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<configuration.concurrentBatches {
                group.addTask { await self.drainBatches() }
            }
        }
    }

    /// Claims, sends and records one batch after another until a claim comes back short.
    private func drainBatches() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let claimed: [PendingPush]
            do {
                claimed = try await outbox.claimPushes(limit: configuration.batchSize, lease: configuration.lease, now: clock.now)
            } catch {
                logger.error("could not read the push outbox", metadata: ["error": "\(error)"])
                return
            }
            if claimed.isEmpty { return }
            await send(claimed, probing: false)
            if claimed.count < configuration.batchSize { return }
        }
    }

    /// Every ``PushWorkerConfiguration/parkedProbeInterval``: one parked push of each parked
    /// topic, to learn whether APNs takes its credentials again.
    private func probeParkedPushes() async {
        let now = clock.now
        let due = parking.withLock { parking -> Bool in
            guard now >= parking.nextProbe else { return false }
            parking.nextProbe = now.adding(configuration.parkedProbeInterval)
            return true
        }
        guard due else { return }
        do {
            let status = try await outbox.outboxStatus(now: now)
            parking.withLock { $0.outboxHasParked = status.parked > 0 }
            guard status.parked > 0 else { return }
            let probes = try await outbox.claimParkedPushes(lease: configuration.lease, now: now)
            await send(probes, probing: true)
        } catch {
            logger.error("could not read the push outbox", metadata: ["error": "\(error)"])
        }
    }

    /// Sends `pushes` concurrently, records every outcome in one transaction, then resumes the
    /// parked pushes of every topic one of them reached APNs with.
    private func send(_ pushes: [PendingPush], probing: Bool) async {
        let sent = await withTaskGroup(of: (CompletedPush, reachedAPNs: Bool).self) { group in
            for push in pushes {
                group.addTask { await self.send(push, probing: probing) }
            }
            var sent: [(CompletedPush, reachedAPNs: Bool)] = []
            sent.reserveCapacity(pushes.count)
            for await result in group { sent.append(result) }
            return sent
        }
        do {
            try await outbox.complete(sent.map(\.0))
        } catch {
            // The claims run out and the pushes are sent again: at least once.
            logger.error("could not record the outcome of pushes", metadata: ["pushes": "\(sent.count)", "error": "\(error)"])
        }
        for topic in Set(sent.filter(\.reachedAPNs).map(\.0.push.topic)).sorted() { await resume(topic) }
    }

    /// Sends one push and says what to record of it, and whether APNs took the credentials (it
    /// delivered the push, or judged its token).
    private func send(_ push: PendingPush, probing: Bool) async -> (CompletedPush, reachedAPNs: Bool) {
        if !probing, parking.withLock({ $0.topics[push.topic] }) != nil {
            // Parked topic: kept without a request; the probe finds out when it works again.
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "parked")]).increment()
            return (CompletedPush(push, .park), false)
        }
        let receipt = await sender.sendReporting(PushNotification(deviceToken: push.pushToken, topic: push.topic))
        let outcome = receipt.outcome
        trail?.record(
            DeliveryEvent(
                .pushed, at: clock.now, orderTypeIdentifier: push.topic, tokenHash: DeliveryEvent.hash(push.pushToken, orderType: push.topic),
                detail: .init(
                    status: receipt.status, reason: Self.reason(of: outcome), apnsID: receipt.apnsID, credential: receipt.credential,
                    fix: receipt.fix)))
        var completion = Self.completion(for: outcome, of: push, configuration: configuration, now: clock.now)
        if probing, case .retry = completion { completion = .park }  // unknown yet whether the credentials work
        let token = String(push.pushToken.prefix(8)) + "…"
        switch outcome {
        case .delivered:
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "delivered")]).increment()
            Timer(label: "wallet_orders_save_to_push_seconds").recordSeconds(clock.now.timeIntervalSince(push.enqueuedAt))
        case .deviceGone(let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "device_gone")]).increment()
            logger.notice(
                "device token gone; its registrations for the topic were removed",
                metadata: ["token": "\(token)", "apns.topic": "\(push.topic)", "reason": "\(reason)"])
        case .rejected(let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "rejected")]).increment()
            park(push.topic, reason: reason, receipt: receipt, because: "APNs refused a push of the topic")
        case .retryLater(_, let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "retry")]).increment()
            logger.warning("push will be retried", metadata: ["token": "\(token)", "attempt": "\(push.attempts)", "reason": "\(reason)"])
        case .credentialsRefused(let reason):
            park(push.topic, reason: reason, receipt: receipt, because: "APNs refused the credentials for the topic")
        }
        if case .park = completion {
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "parked")]).increment()
        }
        switch outcome {
        case .delivered, .deviceGone: return (CompletedPush(push, completion), true)
        case .retryLater, .rejected, .credentialsRefused: return (CompletedPush(push, completion), false)
        }
    }

    /// Marks `topic` parked; the first time, with the error line and the gauge an operator alerts on.
    private func park(_ topic: String, reason: String, receipt: PushReceipt, because cause: String) {
        let first = parking.withLock { parking -> Bool in
            parking.outboxHasParked = true
            return parking.topics.updateValue(reason, forKey: topic) == nil
        }
        guard first else { return }
        Gauge(label: "wallet_orders_push_topic_parked", dimensions: [("topic", topic)]).record(1)
        logger.error(
            "\(cause); its pushes are parked until one gets through",
            metadata: [
                "apns.topic": "\(topic)", "apns.reason": "\(reason)", "apns.credential": "\(receipt.credential ?? "none")",
                "fix": "\(receipt.fix ?? "")", "probe_seconds": "\(configuration.parkedProbeInterval.seconds)",
            ])
    }

    /// APNs took `topic`'s credentials: its parked pushes, if any, are due again.
    private func resume(_ topic: String) async {
        let (wasParked, outboxHasParked) = parking.withLock { ($0.topics.removeValue(forKey: topic), $0.outboxHasParked) }
        guard wasParked != nil || outboxHasParked else { return }
        do {
            let resumed = try await outbox.resumeParkedPushes(topic: topic, now: clock.now)
            if wasParked != nil || resumed > 0 {
                Gauge(label: "wallet_orders_push_topic_parked", dimensions: [("topic", topic)]).record(0)
                logger.notice(
                    "APNs takes the credentials for the topic again; its parked pushes resume",
                    metadata: ["apns.topic": "\(topic)", "resumed": "\(resumed)"])
                wake()
            }
        } catch {
            if let wasParked { parking.withLock { $0.topics[topic] = wasParked } }
            logger.error("could not resume parked pushes", metadata: ["apns.topic": "\(topic)", "error": "\(error)"])
        }
    }

    /// The reason of an outcome that isn't a delivery.
    static func reason(of outcome: PushOutcome) -> String? {
        switch outcome {
        case .delivered: nil
        case .retryLater(_, let reason), .deviceGone(let reason), .credentialsRefused(let reason), .rejected(let reason): reason
        }
    }

    /// What to do with a push after `outcome`: the retry schedule lives here.
    static func completion(for outcome: PushOutcome, of push: PendingPush, configuration: PushWorkerConfiguration, now: Date)
        -> PushCompletion
    {
        switch outcome {
        case .delivered: return .remove
        case .deviceGone: return .tokenGone
        case .credentialsRefused, .rejected: return .park
        case .retryLater(let after, _):
            let exponent = min(max(push.attempts - 1, 0), 30)
            let ceiling = min(configuration.maximumBackoff.seconds, configuration.initialBackoff.seconds * pow(2, Double(exponent)))
            let backoff = ceiling * Double.random(in: 0.5...1)
            return .retry(notBefore: now.addingTimeInterval(max(backoff, after?.seconds ?? 0)))
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
