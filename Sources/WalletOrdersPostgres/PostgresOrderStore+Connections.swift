// The connection pool's run and close, and leasing a pooled connection for one call, bounded in
// time: the wait for a lease races a timer, and a connection that closes under a call answers it
// (postgres-nio would leave it waiting).

import Foundation
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization
import WalletOrders

extension PostgresOrderStore {
    /// As a service of a group: runs the connection pool until the group's graceful shutdown
    /// (``PoolRunner/serviceGroup``), or, for a store that runs its own pool, waits for the
    /// shutdown and leaves closing to its owner.
    public func run() async {
        guard runTask == nil else {
            try? await gracefulShutdown()
            return
        }
        await client.run()
    }

    /// Closes the pool's connections. Calls after it throw ``WalletOrdersError/Code/storeUnavailable``.
    /// (A pool a service group runs closes at the group's shutdown; this then does nothing.)
    ///
    /// Waits up to 5 seconds for the pool to wind down (its connections are closed either way).
    public func close() async {
        guard let runTask else { return }
        runTask.cancel()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await runTask.value }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Leases a pooled connection for `body`, waiting at most the configuration's pool timeout
    /// for one; turns every failure into a ``WalletOrdersError``.
    ///
    /// The wait is a race between the lease and a timer that never waits for the loser: a lease
    /// request the pool doesn't give up on when cancelled can't hold the caller.
    func withConnection<T: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let errors = ErrorContext(configuration: configuration)
        let client = client
        let timeout = configuration.poolTimeout
        let watch = connectionWatch
        let executor = taskExecutor
        let race = Race<T>()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                    race.start(continuation)
                    let work = Task(executorPreference: executor) {
                        do {
                            let value = try await client.withConnection { connection in
                                race.leased()
                                watch.begin(connection) { race.finish(.failure(ConnectionLost())) }
                                defer { watch.end(connection) }
                                return try await body(connection)
                            }
                            race.finish(.success(value))
                        } catch {
                            race.finish(.failure(error))
                        }
                    }
                    race.onCancel { work.cancel() }
                    Task(executorPreference: executor) {
                        try? await Task.sleep(for: timeout)
                        if race.timeOut(PoolTimeout(timeout: timeout)) { work.cancel() }
                    }
                }
            } onCancel: {
                race.cancel()
            }
        } catch {
            throw errors.storeError(error, doing: doing)
        }
    }
}

/// One call's race between its lease (and work) and the pool timeout: the first to finish
/// resumes the caller, once.
final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var leased = false
        var cancelWork: (@Sendable () -> Void)?
        var cancelled = false
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.cancelWork = cancel
            return false
        }
        if now { cancel() }
    }

    func leased() { state.withLock { $0.leased = true } }

    func finish(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    /// Fails the call when no connection was leased yet; returns whether it did.
    func timeOut(_ error: any Error) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.leased, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(throwing: error)
        return continuation != nil
    }

    func cancel() {
        // Before a lease the caller is answered at once; after it, the work (told to stop) answers.
        let (continuation, work) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            state.cancelled = true
            guard !state.leased else { return (nil, state.cancelWork) }
            defer { state.continuation = nil }
            return (state.continuation, state.cancelWork)
        }
        work?()
        continuation?.resume(throwing: CancellationError())
    }
}

/// No pooled connection became free (or could be made) in time.
struct PoolTimeout: Error {
    var timeout: Duration
}

/// The server closed a connection while a call was using it.
struct ConnectionLost: Error {}

/// Answers a call whose leased connection closes under it.
///
/// postgres-nio writes each query to its channel without a write promise, so a query written
/// after the server closed the connection (a `ROLLBACK` after the server was restarted
/// mid-transaction, or the next statement of a transaction) is never answered: its call would
/// wait forever. Each connection's close is watched once, and fails the call using it at the
/// time; the stuck work is left behind (it holds nothing but a closed connection).
final class ConnectionWatch: Sendable {
    /// The connections seen so far that are still open, each with its current call's failure.
    private let calls = Mutex<[ObjectIdentifier: (@Sendable () -> Void)?]>([:])

    /// `connection` is leased to a call that `fail` answers if the connection closes first.
    func begin(_ connection: PostgresConnection, fail: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(connection)
        let first = calls.withLock { calls -> Bool in
            let first = calls[id] == nil
            calls[id] = .some(fail)
            return first
        }
        if first {
            connection.closeFuture.whenComplete { _ in
                let current = self.calls.withLock { $0.removeValue(forKey: id) }
                current??()
            }
        }
    }

    /// The call using `connection` has its answer.
    func end(_ connection: PostgresConnection) {
        let id = ObjectIdentifier(connection)
        calls.withLock { calls in
            if calls[id] != nil { calls[id] = .some(nil) }
        }
    }
}
