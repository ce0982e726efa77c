import Foundation
import Synchronization
import WalletOrdersServer

/// A clock that moves only when the test moves it (``advance(by:)``): what sleeps on it wakes
/// when the clock passes its deadline, however fast or slow the machine is.
///
/// A test waits for an event, never for time: ``waitUntilIdle(after:sleepers:)`` returns once the
/// work that sleeps on the clock (the push worker, the delivery trail's writer) has done what it
/// was woken for and sleeps again.
///
/// It starts a day ahead of the machine's clock, so that what a store stamps with the machine's
/// time (a push queued by a save) is in its past and due at once.
final class ManualServiceClock: ServiceClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var after: Int
        var sleepers: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they began (their handler ran first).
        var cancelled: Set<Int> = []
        /// Sleeps begun so far.
        var sleeps = 0
        var watchers: [Watcher] = []

        /// The watchers whose condition holds now, removed.
        mutating func readyWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { sleeps > $0.after && sleepers.count >= $0.sleepers }
            watchers.removeAll { sleeps > $0.after && sleepers.count >= $0.sleepers }
            return ready.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    init(now: Date = Date().addingTimeInterval(86_400)) {
        state = Mutex(State(now: now))
    }

    var now: Date { state.withLock { $0.now } }

    /// How many sleeps have begun on this clock: read it before acting, and give it to
    /// ``waitUntilIdle(after:sleepers:)``.
    var sleeps: Int { state.withLock { $0.sleeps } }

    func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.remove(id) != nil { return (true, []) }
                    state.sleeps += 1
                    state.sleepers[id] = Sleeper(deadline: state.now.addingTimeInterval(Self.seconds(duration)), continuation: continuation)
                    return (false, state.readyWatchers())
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in ready { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and wakes everything whose deadline it reaches.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.addingTimeInterval(Self.seconds(duration))
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for sleeper in woken { sleeper.resume() }
    }

    /// Returns once a sleep has begun after the first `count` (``sleeps``, read before the test
    /// acted) and `sleepers` things sleep on the clock at once: everything the action woke has
    /// done its work and waits again.
    func waitUntilIdle(after count: Int, sleepers: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.watchers.append(Watcher(after: count, sleepers: sleepers, continuation: continuation))
                return state.readyWatchers()
            }
            for watcher in ready { watcher.resume() }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
