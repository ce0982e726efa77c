import Foundation
import Synchronization

/// Tokens that come back at `rate` a second, up to `burst`.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    /// When the bucket was last used (the uptime in seconds).
    private(set) var updated: Double

    init(rate: Double, burst: Double, now: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        updated = now
    }

    /// Whether the bucket would be full at `now`: then it holds nothing a new bucket wouldn't.
    func isFull(at now: Double) -> Bool { tokens + (now - updated) * rate >= burst }

    /// Takes up to `wanted` tokens, at least `minimum`: how many were taken, or `nil` and how many
    /// seconds until `minimum` are back.
    mutating func take(_ wanted: Double, minimum: Double, now: Double) -> Result<Double, Wait> {
        tokens = min(burst, tokens + max(0, now - updated) * rate)
        updated = now
        guard tokens >= minimum else { return .failure(Wait(seconds: (minimum - tokens) / rate)) }
        let taken = min(wanted, tokens)
        tokens -= taken
        return .success(taken)
    }

    /// Puts back tokens taken and not used.
    mutating func giveBack(_ unused: Double) {
        tokens = min(burst, tokens + unused)
    }

    /// How long until the tokens asked for are back.
    struct Wait: Error {
        let seconds: Double
    }
}

/// A token bucket per client: `rate` requests a second on average, bursts of `burst`. Memory is
/// bounded: past `maximumClients` buckets, full ones are forgotten (a full bucket is what a new
/// client gets), then the least recently used, an eighth of the table at a time, so that a flood
/// of new addresses never resets the buckets of the clients being limited.
package final class RateLimiter: Sendable {
    let rate: Double
    let burst: Double
    let maximumClients: Int
    private let buckets = Mutex<[String: TokenBucket]>([:])

    package init(rate: Double, burst: Double, maximumClients: Int = 10_000) {
        self.rate = rate
        self.burst = burst
        self.maximumClients = maximumClients
    }

    /// Takes one token for `client`: `nil` when it may go ahead, otherwise how many seconds until
    /// a token is back.
    package func acquire(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Double? {
        buckets.withLock { buckets in
            if buckets[client] == nil && buckets.count >= maximumClients { evict(&buckets, now: now) }
            var bucket = buckets[client] ?? TokenBucket(rate: rate, burst: burst, now: now)
            defer { buckets[client] = bucket }
            switch bucket.take(1, minimum: 1, now: now) {
            case .success: return nil
            case .failure(let wait): return wait.seconds
            }
        }
    }

    /// Clients with a bucket now.
    package var clientCount: Int { buckets.withLock { $0.count } }

    private func evict(_ buckets: inout [String: TokenBucket], now: Double) {
        let keep = maximumClients - max(1, maximumClients / 8)
        buckets = buckets.filter { !$0.value.isFull(at: now) }
        guard buckets.count > keep else { return }
        let byUse = buckets.sorted { $0.value.updated < $1.value.updated }
        for (client, _) in byUse.prefix(buckets.count - keep) { buckets[client] = nil }
    }
}

/// One budget for the whole service: `bytes` every `window`, spent as it comes back.
final class ByteBudget: Sendable {
    private let bucket: Mutex<TokenBucket>

    init(bytes: Int, window: Duration, now: Double = ProcessInfo.processInfo.systemUptime) {
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        bucket = Mutex(TokenBucket(rate: Double(bytes) / seconds, burst: Double(bytes), now: now))
    }

    /// Takes up to `wanted` bytes, at least `minimum`: how many were taken, or how many seconds
    /// until `minimum` are back.
    func take(_ wanted: Int, minimum: Int, now: Double = ProcessInfo.processInfo.systemUptime) -> Result<Int, TokenBucket.Wait> {
        bucket.withLock { $0.take(Double(wanted), minimum: Double(minimum), now: now) }.map { Int($0) }
    }

    /// Puts back bytes taken and not spent.
    func giveBack(_ unused: Int) {
        bucket.withLock { $0.giveBack(Double(unused)) }
    }
}
