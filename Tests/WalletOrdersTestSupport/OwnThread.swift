import Foundation

/// Runs blocking work (a raw socket of a slow-client test) on a thread of its own and awaits it.
/// Swift concurrency has as many threads as cores (2 here): a test that blocks one of them
/// starves the rest of the run, and an in-process server can't answer at all.
///
/// The work runs in the calling task, on a task executor whose one thread is made for this call:
/// so it keeps the task's task-local values, and an `#expect` in it is recorded against the test
/// that runs it. (On a bare thread it had no test: Swift Testing recorded its failure once for
/// every test running at the time, each as «unknown».)
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let executor = OwnThreadExecutor()
    defer { executor.finish() }
    return try await withTaskExecutorPreference(executor) { try work() }
}

/// A task executor with one thread of its own, which ends once ``finish()`` is called and the
/// jobs already given to it have run.
public final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    public init() {
        let thread = Thread { [self] in serve() }
        thread.name = "test-own-thread"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
