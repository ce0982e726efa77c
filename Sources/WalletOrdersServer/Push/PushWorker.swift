public import Foundation
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization
public import WalletOrdersStore

/// How the push worker drains the outbox.
public struct PushWorkerConfiguration: Sendable, Hashable {
    /// Pushes claimed, and sent concurrently, at a time (default 64).
    public var batchSize: Int
    /// How long a claim lasts: a push claimed by a worker that died is sent again after it
    /// (default 30 s; a push takes well under a second).
    public var lease: Duration
    /// How often the outbox is looked at when nothing wakes the worker: saves by other processes
    /// and retries coming due are found this way (default 1 s).
    public var pollInterval: Duration
    /// The first retry's delay; each further attempt doubles it, up to ``maximumBackoff``, and a
    /// random part of it (full jitter, half to all) spreads retries out (default 1 s).
    public var initialBackoff: Duration
    /// The longest delay between two attempts (default 15 minutes).
    public var maximumBackoff: Duration
    /// Attempts before a push is given up, with an error in the log (default 20: about four hours
    /// with the default backoff).
    public var maximumAttempts: Int

    /// Creates a configuration.
    public init(
        batchSize: Int = 64, lease: Duration = .seconds(30), pollInterval: Duration = .seconds(1),
        initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(900), maximumAttempts: Int = 20
    ) {
        self.batchSize = max(1, batchSize)
        self.lease = lease
        self.pollInterval = pollInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumAttempts = max(1, maximumAttempts)
    }
}

/// Drains the durable push outbox: claims due pushes, sends them, and records each outcome
/// (removed when delivered or given up, the device forgotten when APNs says its token is gone,
/// retried later with exponential backoff and jitter, or after `Retry-After`).
///
/// A service of swift-service-lifecycle: on graceful shutdown it stops claiming and waits for the
/// pushes it is sending, so none is left claimed. Delivery is at least once: a worker killed
/// mid-send leaves its claims to expire (``PushWorkerConfiguration/lease``) and be sent again.
public final class PushWorker: Service, Sendable {
    private let outbox: any PushOutboxStoring
    private let sender: any PushSender
    private let configuration: PushWorkerConfiguration
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation

    /// Creates a worker for `outbox` (which must also remove registrations whose token is gone: the order store does both).
    public init(outbox: any PushOutboxStoring, sender: any PushSender, configuration: PushWorkerConfiguration = .init(), logger: Logger) {
        self.outbox = outbox
        self.sender = sender
        self.configuration = configuration
        self.logger = logger
        (wakeUps, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Looks at the outbox now (called after a save in this process).
    public func wake() {
        wakeUp.yield()
    }

    public func run() async throws {
        let poll = Task { [wakeUp, configuration] in
            while !Task.isCancelled {
                try? await Task.sleep(for: configuration.pollInterval)
                wakeUp.yield()
            }
        }
        defer { poll.cancel() }
        await withGracefulShutdownHandler {
            wakeUp.yield()  // whatever waits from before the start
            for await _ in wakeUps {
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                await drain()
            }
        } onGracefulShutdown: { [wakeUp] in
            wakeUp.finish()
        }
    }

    /// Sends every due push, a batch at a time, until none is due.
    func drain() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let claimed: [PendingPush]
            do {
                claimed = try await outbox.claimPushes(limit: configuration.batchSize, lease: configuration.lease, now: Date())
            } catch {
                logger.error("could not read the push outbox", metadata: ["error": "\(error)"])
                return
            }
            if claimed.isEmpty { return }
            await withTaskGroup(of: Void.self) { group in
                for push in claimed {
                    group.addTask { await self.send(push) }
                }
            }
            if claimed.count < configuration.batchSize { return }
        }
    }

    private func send(_ push: PendingPush) async {
        let outcome = await sender.send(PushNotification(deviceToken: push.pushToken, topic: push.topic))
        let completion = Self.completion(for: outcome, of: push, configuration: configuration, now: Date())
        let token = String(push.pushToken.prefix(8)) + "…"
        switch outcome {
        case .delivered:
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "delivered")]).increment()
            Timer(label: "wallet_orders_save_to_push_seconds").recordSeconds(Date().timeIntervalSince(push.enqueuedAt))
        case .deviceGone(let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "device_gone")]).increment()
            logger.notice("device token gone; its registrations were removed", metadata: ["token": "\(token)", "reason": "\(reason)"])
        case .rejected(let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "rejected")]).increment()
            logger.error("APNs refused a push; it was dropped", metadata: ["token": "\(token)", "topic": "\(push.topic)", "reason": "\(reason)"])
        case .retryLater(_, let reason):
            Counter(label: "wallet_orders_pushes_total", dimensions: [("outcome", "retry")]).increment()
            if case .remove = completion {
                logger.error(
                    "push given up after \(push.attempts) attempts", metadata: ["token": "\(token)", "reason": "\(reason)"])
            } else {
                logger.warning("push will be retried", metadata: ["token": "\(token)", "attempt": "\(push.attempts)", "reason": "\(reason)"])
            }
        }
        do {
            try await outbox.complete(push, completion)
        } catch {
            // The claim runs out and the push is sent again: at least once.
            logger.error("could not record a push's outcome", metadata: ["error": "\(error)"])
        }
    }

    /// What to do with a push after `outcome`: the retry schedule lives here.
    static func completion(for outcome: PushOutcome, of push: PendingPush, configuration: PushWorkerConfiguration, now: Date)
        -> PushCompletion
    {
        switch outcome {
        case .delivered, .rejected: return .remove
        case .deviceGone: return .tokenGone
        case .retryLater(let after, _):
            guard push.attempts < configuration.maximumAttempts else { return .remove }
            let exponent = min(push.attempts - 1, 30)
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
