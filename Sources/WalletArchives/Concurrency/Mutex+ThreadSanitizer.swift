package import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Mutex where Value: ~Copyable {
    /// ``withLock(_:)``, with the lock's hand-over from thread to thread made visible to
    /// ThreadSanitizer.
    ///
    /// On Linux a contended `Mutex` passes from the thread that unlocks it to a waiting one inside
    /// the Synchronization library (a futex wake-up), which ThreadSanitizer does not instrument:
    /// it then sees the guarded value written by two threads with nothing ordering them, and
    /// reports a race that cannot happen. Under ThreadSanitizer, `body` runs between
    /// `__tsan_acquire` and `__tsan_release` on the mutex's address, which orders it after the
    /// previous holder's `body`; in any other process the two calls are skipped.
    package borrowing func withLockVisibleToSanitizers<Result: Sendable>(_ body: (inout sending Value) -> Result) -> Result {
        // The mutex's address, as a name for ThreadSanitizer only (never dereferenced): a Mutex
        // is never moved while borrowed.
        let token = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        return withLock { value in
            ThreadSanitizerHooks.acquire?(token)
            defer { ThreadSanitizerHooks.release?(token) }
            return body(&value)
        }
    }
}

/// ThreadSanitizer's happens-before annotations, found at run time: present only when the
/// process was built with `-sanitize=thread` (its runtime exports them), `nil` otherwise.
package enum ThreadSanitizerHooks {
    package typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

    package static let acquire: Hook? = lookUp("__tsan_acquire")
    package static let release: Hook? = lookUp("__tsan_release")

    private static func lookUp(_ name: String) -> Hook? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(symbol, to: Hook.self)
    }
}
