import Foundation

/// Runs blocking work (waiting for a process or a socket) on a thread of its own and awaits it.
/// Swift concurrency has as many threads as cores (2 here): a test that blocks one of them
/// starves the rest of the run, and an in-process server can't answer at all.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
