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
        /// (or anything else) starts tasks. ``pool`` changes nothing. Returns whether `async` code
        /// now runs on the event loops (false on a platform where SwiftNIO can't take over).
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
