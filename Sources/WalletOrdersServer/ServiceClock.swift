public import Foundation

/// The time the service's background work reads and waits on: the push worker (its poll, the
/// due times of its retries, the parked probe) and the delivery trail's writer.
///
/// ``SystemServiceClock`` is the machine's clock. A test gives a clock it moves by hand, so that a
/// retry a quarter of an hour away is tried as soon as the test says, and no test depends on how
/// fast the machine happens to be.
public protocol ServiceClock: Sendable {
    /// The time now.
    var now: Date { get }
    /// Waits `duration` of this clock's time.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(for duration: Duration) async throws
}

/// The machine's clock: `Date()`, and `Task.sleep(for:)` on the continuous clock.
public struct SystemServiceClock: ServiceClock {
    /// The machine's clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

extension Date {
    /// This date moved by `duration`.
    func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.seconds)
    }
}
