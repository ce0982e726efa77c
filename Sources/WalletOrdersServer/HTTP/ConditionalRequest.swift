import Foundation
import HTTPTypes
import WalletOrders

/// Conditional GETs (RFC 9110 §13): whether a stored version is what the client already has.
enum ConditionalRequest {
    /// RFC 9110 §13.2.2: `If-None-Match` decides when present; otherwise `If-Modified-Since`
    /// (an unreadable date is ignored, as the RFC says), against `updatedAt` to the nanosecond.
    ///
    /// HTTP dates have whole seconds, and two versions may be saved within one: a client holding
    /// the first has that second as its date, and must get the second version. So a version
    /// whose `updatedAt` has a fraction of a second is never "not modified since" its own whole
    /// second, only since a later one; a whole-second version is, as usual.
    static func notModified(_ headers: HTTPFields, entityTag: String, updatedAt: Timestamp) -> Bool {
        // Every If-None-Match field, joined with ", " (HTTPFields does that).
        if let noneMatch = headers[.ifNoneMatch] {
            // What a device sends back is the one tag it was given: compared whole, no list made.
            if noneMatch == entityTag { return true }
            let tags = noneMatch.split(separator: ",").map(\.trimmingOptionalWhitespace)
            return tags.contains { $0 == "*" || $0 == entityTag || ($0.hasPrefix("W/") && $0.dropFirst(2) == entityTag) }
        }
        guard let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) else { return false }
        return updatedAt.secondsSince1970 < since || (updatedAt.secondsSince1970 == since && updatedAt.nanoseconds == 0)
    }

    /// `Last-Modified` for a version: its `updatedAt`'s whole second, but never later than the
    /// answer's `Date` (RFC 9110 §8.8.2.1; `updatedAt` may be ahead of the clock, and Hummingbird
    /// writes `Date` from a copy it renews every second, so the bound is two seconds before
    /// `now`). A client given the earlier date asks again with it and is sent the version again
    /// until the clock passes it.
    static func lastModified(_ updatedAt: Timestamp, now: Date = Date()) -> String {
        HTTPDate.format(secondsSince1970: min(updatedAt.secondsSince1970, Int64(now.timeIntervalSince1970.rounded(.down)) - 2))
    }
}
