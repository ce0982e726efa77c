import Foundation
import Synchronization

/// A token bucket per client: `rate` requests a second on average, bursts of `burst`. Memory is
/// bounded: past `maximumClients` buckets, full (idle) buckets are forgotten first, then all.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let rate: Double
    let burst: Double
    let maximumClients: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(rate: Double, burst: Double, maximumClients: Int = 10_000) {
        self.rate = rate
        self.burst = burst
        self.maximumClients = maximumClients
    }

    /// Takes one token for `client`: `nil` when it may go ahead, otherwise how many seconds until
    /// a token is back.
    func acquire(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Double? {
        buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            defer {
                if buckets.count >= maximumClients && buckets[client] == nil {
                    buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
                    if buckets.count >= maximumClients { buckets.removeAll(keepingCapacity: true) }
                }
                buckets[client] = bucket
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Text from clients made safe for a log line: control characters and non-ASCII escaped as
/// `\u{…}`, cut to `limit` bytes with a note of what was left out.
enum LogText {
    static func escaped(_ text: String, limit: Int = 256) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\\": piece = "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029 || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value):
                piece = "\\u{\(String(scalar.value, radix: 16))}"
            default: piece = String(scalar)
            }
            if count + piece.utf8.count > limit {
                out += "… (\(text.utf8.count) bytes in all)"
                return out
            }
            out += piece
            count += piece.utf8.count
        }
        return out
    }
}
