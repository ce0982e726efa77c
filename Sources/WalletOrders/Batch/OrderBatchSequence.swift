import Synchronization

/// The results of a batch, delivered as they complete: the asynchronous sequence returned by
/// ``OrderBatchBuilder/results(for:)-(AsyncSequence)`` and
/// ``OrderValidator/validateBatch(_:maximumConcurrency:now:)``.
///
/// The sequence pulls inputs from `Base` only as fast as results are taken: at most
/// ``maximumConcurrency`` inputs are ever started and not yet returned by `next()` (running, or
/// finished and waiting to be taken). Memory therefore stays bounded whatever the input's size,
/// and a slow consumer (writing files, say) slows the batch instead of piling up results.
///
/// Results come in completion order, not input order; each carries the index of its input
/// (0-based) so a caller can restore input order. Iterate the sequence once. The work of each
/// input runs in its own task on the global concurrent executor; when the iterating task is
/// cancelled, `next()` throws `CancellationError` and inputs not yet started never are (those
/// running finish, and their results are dropped with the iterator). `next()` rethrows an error thrown by `Base`
/// after the results of the inputs already started.
public struct OrderBatchSequence<Base: AsyncSequence, Element: Sendable>: AsyncSequence where Base.Element: Sendable {
    /// How many inputs may be in flight at once (at least 1).
    public let maximumConcurrency: Int
    /// Counters of this batch: started, finished, in flight and the most ever in flight.
    public let statistics: OrderBatchStatistics

    let base: Base
    let transform: @Sendable (Base.Element, Int) -> Element

    init(base: Base, maximumConcurrency: Int, transform: @escaping @Sendable (Base.Element, Int) -> Element) {
        self.base = base
        self.maximumConcurrency = Swift.max(1, maximumConcurrency)
        self.transform = transform
        self.statistics = OrderBatchStatistics()
    }

    /// Makes the iterator. Make only one per sequence.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: maximumConcurrency, transform: transform, statistics: statistics)
    }

    /// Starts inputs up to the concurrency limit and hands out results as they complete.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        let transform: @Sendable (Base.Element, Int) -> Element
        let statistics: OrderBatchStatistics
        let completions = Completions<Element>()
        var nextIndex = 0
        var inFlight = 0
        var baseFinished = false
        var baseError: (any Error)?

        init(base: Base.AsyncIterator, limit: Int, transform: @escaping @Sendable (Base.Element, Int) -> Element, statistics: OrderBatchStatistics) {
            self.base = base
            self.limit = limit
            self.transform = transform
            self.statistics = statistics
        }

        /// The next result to complete, or `nil` when every input has been processed.
        public mutating func next() async throws -> Element? {
            try Task.checkCancellation()
            while !baseFinished && inFlight < limit {
                let element: Base.Element?
                do {
                    element = try await base.next()
                } catch {
                    baseFinished = true
                    baseError = error
                    break
                }
                guard let element else {
                    baseFinished = true
                    break
                }
                let index = nextIndex
                nextIndex += 1
                inFlight += 1
                statistics.recordStart()
                let transform = self.transform
                let completions = self.completions
                // Each input's work is synchronous and short; a task per input lets the executor
                // spread them over the cores. It needs no handle: its only output is `complete`.
                Task {
                    completions.complete(transform(element, index))
                }
            }
            if inFlight == 0 {
                if let baseError {
                    self.baseError = nil
                    throw baseError
                }
                return nil
            }
            let output = try await completions.take()
            inFlight -= 1
            statistics.recordFinish()
            return output
        }
    }
}

extension OrderBatchSequence: Sendable where Base: Sendable {}

/// Counters of one batch, safe to read from any task while it runs (for progress displays and
/// tests).
public final class OrderBatchStatistics: Sendable {
    private struct Counts {
        var started = 0
        var finished = 0
        var peakInFlight = 0
    }
    private let counts = Mutex(Counts())

    init() {}

    /// Inputs whose work has started.
    public var started: Int { counts.withLockVisibleToSanitizers { $0.started } }
    /// Results handed out by the sequence.
    public var finished: Int { counts.withLockVisibleToSanitizers { $0.finished } }
    /// Inputs started and not yet handed out (running, or done and waiting to be taken).
    public var inFlight: Int { counts.withLockVisibleToSanitizers { $0.started - $0.finished } }
    /// The largest ``inFlight`` ever seen; never more than the sequence's `maximumConcurrency`.
    public var peakInFlight: Int { counts.withLockVisibleToSanitizers { $0.peakInFlight } }

    func recordStart(_ count: Int = 1) {
        counts.withLockVisibleToSanitizers {
            $0.started += count
            $0.peakInFlight = Swift.max($0.peakInFlight, $0.started - $0.finished)
        }
    }

    func recordFinish() {
        counts.withLockVisibleToSanitizers { $0.finished += 1 }
    }
}

/// Where finished work waits to be taken, and the one consumer waits for it.
final class Completions<Output: Sendable>: Sendable {
    private struct State {
        var ready: [Output] = []
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }
    private let state = Mutex(State())

    func complete(_ output: Output) {
        let waiter = state.withLockVisibleToSanitizers { state -> CheckedContinuation<Void, Never>? in
            state.ready.append(output)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func take() async throws -> Output {
        while true {
            let ready = state.withLockVisibleToSanitizers { state -> Output? in
                state.ready.isEmpty ? nil : state.ready.removeFirst()
            }
            if let ready { return ready }
            try Task.checkCancellation()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLockVisibleToSanitizers { state -> Bool in
                        if !state.ready.isEmpty || state.cancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLockVisibleToSanitizers { state -> CheckedContinuation<Void, Never>? in
                    state.cancelled = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }
}

/// A synchronous sequence as an asynchronous one.
public struct OrderBatchSynchronousInputs<Base: Sequence>: AsyncSequence {
    let base: Base

    /// Wraps `base`.
    public init(_ base: Base) { self.base = base }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeIterator()) }

    /// Hands out `base`'s elements.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.Iterator
        /// The next element of `base`.
        public mutating func next() async -> Base.Element? { base.next() }
    }
}

extension OrderBatchSynchronousInputs: Sendable where Base: Sendable {}
