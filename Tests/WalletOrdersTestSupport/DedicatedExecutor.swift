import Foundation
public import Testing

/// Threads of the tests' own for Swift concurrency jobs, out of the cooperative pool.
///
/// The cooperative pool has one thread per core (two on a small CI machine), and many tests wait
/// on a child process (`ExternalProgram`) or compute for seconds on those threads. A service
/// running in the test process shares them, so under a full run its answers waited for minutes
/// of other tests' work and its timing tests failed. Suites with ``Trait/dedicatedThreads`` run
/// their bodies, and the services they start (whose connection tasks are child tasks and inherit
/// the preference), on these threads instead.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    /// Sixteen threads: the services of the suites running at once are light, but some of those
    /// suites' tests block the thread they run on for seconds (a browser rendering a page, a
    /// child process). With four threads, a full run once had all four blocked at the same time:
    /// every service in the process stopped answering for about 13 s, and tests across five
    /// suites saw their connections closed at the services' deadlines. Idle threads cost nothing.
    public static let shared = DedicatedExecutor(threads: 16)

    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var head = 0

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.serve() }
            thread.name = "test-executor-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
            let job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite with ``DedicatedExecutor/shared`` as its task executor preference.
public struct DedicatedThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(DedicatedExecutor.shared) { try await function() }
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// Runs the suite's tests, and the services they start in this process, on
    /// ``DedicatedExecutor/shared``, where other tests' waiting can't delay their answers.
    public static var dedicatedThreads: Self { DedicatedThreadsTrait() }
}
