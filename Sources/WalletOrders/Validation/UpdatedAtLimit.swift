public import Foundation

/// How far ahead of a clock an order's `updatedAt` may be.
///
/// Versions of an order are ordered by `updatedAt` alone, so an archive dated far in
/// the future (`9999-12-31T23:59:59Z`), once stored, would make every later genuine version
/// `newerExisting` forever: whoever can sign one archive could pin the order. Order stores refuse
/// an `updatedAt` more than ``margin`` ahead of their clock
/// (``WalletOrdersError/Code/updatedAtInFuture``); validation, which can't know a store's clock,
/// compares with the current time and warns (``ValidationRule/orderUpdatedAtInFuture``). Both use
/// this one check.
///
/// The margin absorbs clock skew between the merchant's systems and the store and an `updatedAt`
/// written in the wrong time zone; a day (``defaultMargin``) covers every time zone offset.
public struct UpdatedAtLimit: Sendable, Hashable {
    /// The margin when none is configured: one day.
    public static let defaultMargin: TimeInterval = 86_400

    /// The limit with ``defaultMargin``.
    public static let `default` = UpdatedAtLimit(checkedMargin: defaultMargin)

    /// How far ahead of the clock an `updatedAt` may be, in seconds.
    public let margin: TimeInterval

    /// Creates a limit.
    ///
    /// - Parameter margin: Seconds an `updatedAt` may be ahead of the clock (0: none at all).
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` for a negative or infinite margin.
    public init(margin: TimeInterval) throws {
        guard margin.isFinite, margin >= 0 else {
            throw WalletOrdersError(
                .invalidConfiguration, "The updatedAt margin must be a number of seconds of 0 or more, not \(margin).",
                hint: "Give the margin in seconds; the default is 86400 (one day).")
        }
        self.init(checkedMargin: margin)
    }

    private init(checkedMargin margin: TimeInterval) {
        self.margin = margin
    }

    /// The latest `updatedAt` accepted at `now`.
    public func latestAccepted(at now: Date) -> Date {
        now.addingTimeInterval(margin)
    }

    /// Whether `updatedAt` is more than ``margin`` ahead of `now`.
    public func isTooFarAhead(_ updatedAt: Timestamp, now: Date) -> Bool {
        updatedAt.date > latestAccepted(at: now)
    }

    /// What is wrong with `updatedAt` at `now`, or `nil` when it is within the margin: the
    /// sentence names the value, the clock (`clock` says whose, such as "the store's clock") and
    /// the margin; the hint says what to do.
    public func problem(_ updatedAt: Timestamp, now: Date, clock: String) -> (message: String, hint: String)? {
        guard isTooFarAhead(updatedAt, now: now) else { return nil }
        let nowText = Timestamp(secondsSince1970: Int64(now.timeIntervalSince1970.rounded(.down))).text
        return (
            "updatedAt \(updatedAt.text) is more than \(Self.describe(margin)) ahead of \(clock) (\(nowText)); "
                + "an order stored with it would win against every later version, which would all be newerExisting.",
            "Set updatedAt to the time of the change, with its real offset, and increase it with every version. "
                + "If the clock is wrong, correct it; a wider margin is a setting of the store."
        )
    }

    /// The error a store throws for an archive whose `updatedAt` is too far ahead of its clock
    /// (`now`), or `nil` when it is within the margin.
    public func refusal(
        of identifier: FullyQualifiedOrderIdentifier, updatedAt: Timestamp, now: Date = Date()
    ) -> WalletOrdersError? {
        guard let problem = problem(updatedAt, now: now, clock: "the store's clock") else { return nil }
        return WalletOrdersError(
            .updatedAtInFuture,
            "\(ValidationRule.orderUpdatedAtInFuture.id): \(identifier) was not stored: \(problem.message)",
            hint: problem.hint)
    }

    /// `seconds` in words: "1 day", "36 hours", "90 minutes", "45 seconds".
    static func describe(_ seconds: TimeInterval) -> String {
        let whole = Int64(seconds.rounded(.down))
        let units: [(Int64, String)] = [(86_400, "day"), (3_600, "hour"), (60, "minute")]
        for (size, name) in units where whole >= size && whole % size == 0 && seconds == seconds.rounded(.down) {
            let count = whole / size
            return "\(count) \(name)\(count == 1 ? "" : "s")"
        }
        let text = seconds == seconds.rounded(.down) ? "\(whole)" : "\(seconds)"
        return "\(text) second\(whole == 1 && seconds == 1 ? "" : "s")"
    }
}
