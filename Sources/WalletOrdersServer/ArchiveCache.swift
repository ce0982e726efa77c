package import NIOCore
import Synchronization

/// The archives Wallet fetched lately, as the bytes of their answers, so that a repeated 200 of an
/// order's current version reads only the order's access record, not the archive again.
///
/// Entries are keyed by the archive's SHA-256, the version the access record of the same request
/// names, so an entry can never be stale: a newer version has another digest, and a fetch is
/// authorized against the record before the cache is asked. That holds however many servers
/// share the store. What it holds is bounded by ``capacityBytes``; an archive larger than an
/// eighth of that is never kept. When a new entry doesn't fit, entries are evicted in the order
/// they came, except that one fetched again since it last came up goes round once more ("second
/// chance"): a much-fetched archive stays, one fetched once leaves.
package final class ArchiveCache: Sendable {
    private struct Entry {
        let bytes: ByteBuffer
        var fetchedAgain = false
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys from the oldest to the newest; those before `first` have left.
        var queue: [String] = []
        var first = 0
        var bytes = 0

        /// Takes the oldest key off the queue.
        mutating func popOldest() -> String? {
            guard first < queue.count else { return nil }
            let key = queue[first]
            first += 1
            if first > 64, first * 2 > queue.count {  // amortized: what has left is dropped at once
                queue.removeFirst(first)
                first = 0
            }
            return key
        }
    }

    /// The most bytes of archives held.
    let capacityBytes: Int
    private let state = Mutex(State())

    /// A cache of at most `capacityBytes` of archives; 0 keeps none.
    package init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The bytes of the archive whose SHA-256 (lowercase hex) is `sha256`, if held.
    package func archive(sha256: String) -> ByteBuffer? {
        guard capacityBytes > 0 else { return nil }
        return state.withLock { state in
            guard state.entries[sha256] != nil else { return nil }
            state.entries[sha256]!.fetchedAgain = true
            return state.entries[sha256]!.bytes
        }
    }

    /// Keeps `bytes` as the archive whose SHA-256 is `sha256`, evicting what it must; returns the
    /// buffer to answer with.
    @discardableResult
    package func keep(_ bytes: [UInt8], sha256: String) -> ByteBuffer {
        let buffer = ByteBuffer(bytes: bytes)
        guard bytes.count <= capacityBytes / 8 else { return buffer }
        state.withLock { state in
            guard state.entries[sha256] == nil else { return }
            while state.bytes + bytes.count > capacityBytes, let oldest = state.popOldest() {
                if state.entries[oldest]?.fetchedAgain == true {
                    state.entries[oldest]?.fetchedAgain = false
                    state.queue.append(oldest)  // another round
                } else {
                    state.bytes -= state.entries.removeValue(forKey: oldest)?.bytes.readableBytes ?? 0
                }
            }
            state.entries[sha256] = Entry(bytes: buffer)
            state.queue.append(sha256)
            state.bytes += bytes.count
        }
        return buffer
    }

    /// Bytes of archives held now.
    package var heldBytes: Int { state.withLock { $0.bytes } }

    /// Archives held now.
    package var count: Int { state.withLock { $0.entries.count } }
}
