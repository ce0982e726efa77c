import NIOCore
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

@Suite("The archive cache: bounded in bytes, keyed by digest, and what Wallet fetches again stays")
struct ArchiveCacheTests {
    static func bytes(_ count: Int, _ fill: UInt8) -> [UInt8] { [UInt8](repeating: fill, count: count) }

    @Test("Holds what fits; a new archive evicts the oldest not fetched again since it came")
    func secondChance() {
        let cache = ArchiveCache(capacityBytes: 800)
        for index in 0..<8 { cache.keep(Self.bytes(100, UInt8(index)), sha256: "v\(index)") }
        #expect(cache.count == 8)
        #expect(cache.heldBytes == 800)
        #expect(cache.archive(sha256: "v0").map { Array($0.readableBytesView) } == Self.bytes(100, 0))
        cache.keep(Self.bytes(100, 8), sha256: "v8")
        #expect(cache.archive(sha256: "v0") != nil, "fetched again: goes round once more")
        #expect(cache.archive(sha256: "v1") == nil, "the oldest not fetched again leaves")
        #expect(cache.heldBytes == 800)
    }

    @Test("Never holds an archive over an eighth of its capacity, nor anything with capacity 0; the answer's bytes are the archive's all the same")
    func limits() {
        let cache = ArchiveCache(capacityBytes: 800)
        let large = Self.bytes(101, 7)
        #expect(Array(cache.keep(large, sha256: "large").readableBytesView) == large)
        #expect(cache.archive(sha256: "large") == nil)
        let none = ArchiveCache(capacityBytes: 0)
        #expect(Array(none.keep(Self.bytes(1, 1), sha256: "one").readableBytesView) == [1])
        #expect(none.archive(sha256: "one") == nil)
        #expect(none.heldBytes == 0)
    }

    @Test("A flood of distinct archives, each fetched again, keeps it within its capacity")
    func flood() {
        let cache = ArchiveCache(capacityBytes: 10_000)
        for index in 0..<20_000 {
            cache.keep(Self.bytes(100, UInt8(truncatingIfNeeded: index)), sha256: "flood-\(index)")
            _ = cache.archive(sha256: "flood-\(index)")
            #expect(cache.heldBytes <= 10_000)
        }
        #expect(cache.count == 100)
        #expect(cache.archive(sha256: "flood-19999") != nil)
    }
}
