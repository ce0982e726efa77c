import Dispatch
import Synchronization
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Mutex-guarded state handed between threads under contention. Plain builds check the counts;
/// under `make test-sanitizers` ThreadSanitizer watches the hand-overs, which it reports as races
/// when `withLockVisibleToSanitizers` does not annotate them (a contended `Mutex` on Linux passes
/// the lock inside the uninstrumented Synchronization library).
@Suite struct LockHandOverTests {
    final class Counter: Sendable {
        let value = Mutex(0)
    }

    @Test("Every increment from 8 threads at once is kept")
    func contendedCounter() {
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 { counter.value.withLockVisibleToSanitizers { $0 += 1 } }
        }
        #expect(counter.value.withLockVisibleToSanitizers { $0 } == 160_000)
    }

    @Test("Results completed from 8 threads at once are each taken exactly once")
    func contendedCompletions() async throws {
        let completions = Completions<Int>()
        let perThread = 2_000
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<perThread { completions.complete(thread * perThread + index) }
            }
        }
        var taken = Set<Int>()
        for _ in 0..<8 * perThread { taken.insert(try await completions.take()) }
        #expect(taken == Set(0..<8 * perThread))
    }
}
