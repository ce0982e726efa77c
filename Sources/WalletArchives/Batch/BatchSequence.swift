import Synchronization

/// The results of a batch, delivered as they complete: the asynchronous sequence the batch APIs
/// of both kinds return (`OrderBatchBuilder.results`, `OrderValidator.validateBatch`,
/// `PassBatchBuilder.results`).
///
/// The sequence pulls inputs from `Base` only as fast as results are taken: at most
/// ``maximumConcurrency`` × ``inputsPerTask`` inputs are ever started and not yet returned by
/// `next()` (running, or finished and waiting to be taken). Memory therefore stays bounded
/// whatever the input's size, and a slow consumer (writing files, say) slows the batch instead of
/// piling up results.
///
/// Results come in completion order, not input order; each carries the index of its input
/// (0-based) so a caller can restore input order. Iterate the sequence once. Inputs are worked
/// on in tasks on the global concurrent executor, at most ``maximumConcurrency`` at once, each
/// task taking ``inputsPerTask`` consecutive inputs and handing their results over together;
/// when the iterating task is cancelled, `next()` throws `CancellationError` and inputs not yet
/// started never are (those running finish, and their results are dropped with the iterator).
/// `next()` rethrows an error thrown by `Base` after the results of the inputs already started.
public struct BatchSequence<Base: AsyncSequence, Element: Sendable>: AsyncSequence where Base.Element: Sendable {
    /// How many tasks may work at once (at least 1).
    public let maximumConcurrency: Int
    /// How many consecutive inputs each task takes (at least 1).
    ///
    /// 1 for an asynchronous input, whose next element may be slow to come (a pipe). For a
    /// synchronous one of many inputs the batch APIs choose more, up to 16, keeping at least 16
    /// tasks' worth per concurrent task: handing a result from a worker thread to the consumer
    /// wakes a thread, which cost a quarter of validating a small archive.
    public let inputsPerTask: Int
    /// Counters of this batch: started, finished, in flight and the most ever in flight.
    public let statistics: BatchStatistics

    package let base: Base
    package let transform: @Sendable (Base.Element, Int) -> Element

    package init(
        base: Base, maximumConcurrency: Int, inputsPerTask: Int = 1, transform: @escaping @Sendable (Base.Element, Int) -> Element
    ) {
        self.base = base
        self.maximumConcurrency = Swift.max(1, maximumConcurrency)
        self.inputsPerTask = Swift.max(1, inputsPerTask)
        self.transform = transform
        self.statistics = BatchStatistics()
    }

    /// Makes the iterator. Make only one per sequence.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: base.makeAsyncIterator(), limit: maximumConcurrency, inputsPerTask: inputsPerTask, transform: transform,
            statistics: statistics)
    }

    /// Starts inputs up to the concurrency limit and hands out results as they complete.
    public struct Iterator: AsyncIteratorProtocol {
        package var base: Base.AsyncIterator
        /// Inputs started and not yet handed out, at most.
        package let limit: Int
        package let inputsPerTask: Int
        package let transform: @Sendable (Base.Element, Int) -> Element
        package let statistics: BatchStatistics
        package let completions = Completions<Element>()
        package var nextIndex = 0
        package var inFlight = 0
        package var baseFinished = false
        package var baseError: (any Error)?

        package init(
            base: Base.AsyncIterator, limit: Int, inputsPerTask: Int, transform: @escaping @Sendable (Base.Element, Int) -> Element,
            statistics: BatchStatistics
        ) {
            self.base = base
            let (product, overflow) = limit.multipliedReportingOverflow(by: inputsPerTask)
            self.limit = overflow ? Int.max : product
            self.inputsPerTask = inputsPerTask
            self.transform = transform
            self.statistics = statistics
        }

        /// The next result to complete, or `nil` when every input has been processed.
        public mutating func next() async throws -> Element? {
            try Task.checkCancellation()
            // A task starts when a whole task's worth of inputs fits under the limit.
            while !baseFinished && inFlight + inputsPerTask <= limit {
                var inputs: [(element: Base.Element, index: Int)] = []
                inputs.reserveCapacity(inputsPerTask)
                while inputs.count < inputsPerTask {
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
                    inputs.append((element, nextIndex))
                    nextIndex += 1
                }
                if inputs.isEmpty { break }
                inFlight += inputs.count
                statistics.recordStart(inputs.count)
                let transform = self.transform
                let completions = self.completions
                let work = inputs
                // Each input's work is synchronous and short; tasks let the executor spread them
                // over the cores. A task needs no handle: its only output is `complete`.
                Task {
                    if work.count == 1 {
                        completions.complete(transform(work[0].element, work[0].index))
                    } else {
                        completions.complete(contentsOf: work.map { transform($0.element, $0.index) })
                    }
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

extension BatchSequence: Sendable where Base: Sendable {}

/// ``BatchSequence/inputsPerTask`` for `count` inputs known in advance: at least 16 tasks for
/// each of `maximumConcurrency`, so that the work still spreads evenly, and at most 16 inputs a task.
package func batchInputsPerTask(count: Int, maximumConcurrency: Int) -> Int {
    min(16, max(1, count / 16 / max(1, maximumConcurrency)))  // no product: `--jobs` may be huge
}

/// Counters of one batch, safe to read from any task while it runs (for progress displays and
/// tests).
public final class BatchStatistics: Sendable {
    private struct Counts {
        package var started = 0
        package var finished = 0
        package var peakInFlight = 0
    }
    private let counts = Mutex(Counts())

    package init() {}

    /// Inputs whose work has started.
    public var started: Int { counts.withLockVisibleToSanitizers { $0.started } }
    /// Results handed out by the sequence.
    public var finished: Int { counts.withLockVisibleToSanitizers { $0.finished } }
    /// Inputs started and not yet handed out (running, or done and waiting to be taken).
    public var inFlight: Int { counts.withLockVisibleToSanitizers { $0.started - $0.finished } }
    /// The largest ``inFlight`` ever seen; never more than the sequence's `maximumConcurrency` ×
    /// `inputsPerTask`.
    public var peakInFlight: Int { counts.withLockVisibleToSanitizers { $0.peakInFlight } }

    package func recordStart(_ count: Int = 1) {
        counts.withLockVisibleToSanitizers {
            $0.started += count
            $0.peakInFlight = Swift.max($0.peakInFlight, $0.started - $0.finished)
        }
    }

    package func recordFinish() {
        counts.withLockVisibleToSanitizers { $0.finished += 1 }
    }
}

/// Where finished work waits to be taken, and the one consumer waits for it.
package final class Completions<Output: Sendable>: Sendable {
    private struct State {
        /// Outputs not yet taken: `ready[taken...]`.
        package var ready: [Output] = []
        package var taken = 0
        package var waiter: CheckedContinuation<Void, Never>?
        package var cancelled = false
    }
    private let state = Mutex(State())

    package init() {}

    package func complete(_ output: Output) {
        complete(contentsOf: CollectionOfOne(output))
    }

    /// Hands over several outputs at once: the consumer is woken once for all of them.
    package func complete(contentsOf outputs: some Collection<Output>) {
        let waiter = state.withLockVisibleToSanitizers { state -> CheckedContinuation<Void, Never>? in
            state.ready.append(contentsOf: outputs)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    package func take() async throws -> Output {
        while true {
            let ready = state.withLockVisibleToSanitizers { state -> Output? in
                guard state.taken < state.ready.count else { return nil }
                let output = state.ready[state.taken]
                state.taken += 1
                if state.taken == state.ready.count {
                    state.ready.removeAll(keepingCapacity: true)
                    state.taken = 0
                } else if state.taken >= 64 && state.taken * 2 >= state.ready.count {
                    state.ready.removeFirst(state.taken)  // never drained to empty: compact now and then
                    state.taken = 0
                }
                return output
            }
            if let ready { return ready }
            try Task.checkCancellation()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLockVisibleToSanitizers { state -> Bool in
                        if state.taken < state.ready.count || state.cancelled { return true }
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
public struct BatchSynchronousInputs<Base: Sequence>: AsyncSequence {
    package let base: Base

    /// Wraps `base`.
    public init(_ base: Base) { self.base = base }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeIterator()) }

    /// Hands out `base`'s elements.
    public struct Iterator: AsyncIteratorProtocol {
        package var base: Base.Iterator
        /// The next element of `base`.
        public mutating func next() async -> Base.Element? { base.next() }
    }
}

extension BatchSynchronousInputs: Sendable where Base: Sendable {}
