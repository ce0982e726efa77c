import Foundation
public import Testing

/// Threads of the tests' own for Swift concurrency jobs, out of Swift's default executor.
///
/// On Linux the default executor is libdispatch's global queue, which runs about as many threads
/// as cores (two on a small CI machine) and adds one only while none of them is runnable. Many
/// tests block the thread they run on (a child process through `ExternalProgram`, a raw socket)
/// or compute for seconds, so with a few of them blocked and one computing, the queue ran nothing
/// else: a probe job sent to it every 100 ms during a full run waited up to 20.7 s, dozens of
/// times. Whatever the process needs from that queue waited too: a `Task.sleep`'s wake-up, an
/// unstructured task, a PostgreSQL store's lease. Every suite takes ``Trait/dedicatedThreads``,
/// so test bodies (and the services they start, whose connection tasks are child tasks and
/// inherit the preference) run here instead, and the default executor only runs the short jobs
/// that need it: with every suite here the same probe never waited a second.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    /// Sixteen threads: at most `TEST_WIDTH` (6) tests run at once, and each blocks at most the
    /// thread it runs on; the services beside them are light. (With four threads and a few suites
    /// here, a full run once had all four blocked at the same time and every service in the
    /// process stopped answering for about 13 s.) Idle threads cost nothing.
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
