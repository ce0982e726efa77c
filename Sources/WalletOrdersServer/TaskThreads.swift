import Foundation
import NIOCore
import NIOPosix
import Synchronization

extension OrderServer {
    /// Where the service's `async` code runs.
    public enum TaskThreads: String, Sendable, Hashable, CaseIterable {
        /// On SwiftNIO's event loops, the threads that read and write the connections
        /// (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`).
        /// A request's handler then runs on the thread that has its bytes, and its answer is
        /// written from there: no thread switch between the two per request. On two cores the
        /// cached GET serves 1.4–1.6 × the requests a second it does on ``pool``; a handler that
        /// does next to nothing is a little slower (`make bench-serve`).
        ///
        /// It is a setting of the whole process, made once before the service starts: every
        /// `async` function of the process runs there afterwards, so none may block its thread
        /// (the service's handlers don't: the store's writes run on the store's own threads, and
        /// its reads are single indexed lookups).
        case eventLoops = "event-loops"
        /// On Swift's default global executor (its cooperative thread pool), the event loops doing
        /// only I/O: each request hops between the two.
        case pool

        /// Makes `self` the process's executor for `async` code; call it once, before the service
        /// (or anything else) starts tasks, from the main thread (SwiftNIO stops the process on
        /// Darwin otherwise: from `async` code, call it inside `MainActor.run`). ``pool`` changes
        /// nothing. Returns whether `async` code now runs on the event loops (false on a platform
        /// where SwiftNIO can't take over).
        @discardableResult
        public func install() -> Bool {
            guard self == .eventLoops else { return false }
            return Self.installed.withLock { installed in
                if !installed {
                    installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
                }
                return installed
            }
        }

        private static let installed = Mutex(false)
    }
}

extension OrderServer.TaskThreads {
    /// Sizes SwiftNIO's shared event loops, which Hummingbird serves connections on (and
    /// ``eventLoops`` runs `async` code on), to the CPUs the process may run on. SwiftNIO counts
    /// the host's cores within a cgroup's quota and cpuset, but not the process's CPU affinity
    /// (`taskset`, systemd's `CPUAffinity=`, `numactl`): a service pinned to one core of two ran
    /// two event loops taking turns on that core, each holding half the connections, every request
    /// on the waiting one delayed by the other's time slice.
    ///
    /// `NIO_SINGLETON_GROUP_LOOP_COUNT`, when set, is left to decide. Call it at most once, first in
    /// `main`, before anything uses SwiftNIO's singletons: SwiftNIO stops the process on a second
    /// call, or on one after they are in use. Returns the count, or `nil` when it left it to
    /// SwiftNIO.
    @discardableResult
    public static func sizeEventLoopsToAllowedCPUs() -> Int? {
        guard ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil,
            let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let allowed = allowedCPUs(status: status), allowed < System.coreCount
        else { return nil }
        NIOSingletons.groupLoopCountSuggestion = allowed
        return allowed
    }

    /// The CPUs a Linux process may run on, from the `Cpus_allowed_list:` line of its
    /// `/proc/self/status` (`0-3,8,10-11`); `nil` when the text has no such line or it doesn't read.
    package static func allowedCPUs(status: String) -> Int? {
        let label = "Cpus_allowed_list:"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
        var count = 0
        for item in line.dropFirst(label.count).split(separator: ",") {
            let bounds = item.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard (1...2).contains(bounds.count), let low = bounds.first!, let high = bounds.last!, 0 <= low, low <= high else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }
}
