import Foundation

/// A fixed set of strings, looked up by their exact UTF-8 bytes (JSON's string equality), each
/// with its place in insertion order.
///
/// The schema's `properties` names and `enum` strings, and the keys the content rules look for,
/// are looked up for every member and string of every document. A `Dictionary<String, _>` hashes
/// with a per-process seeded SipHash and compares under canonical equivalence before bytes; that
/// was a tenth of a validation. This table hashes the bytes with FNV-1a and compares lengths,
/// then bytes. Its keys are fixed when it is built (from a schema, or from the rules), so a
/// document cannot add colliding keys to it; a hostile key costs one probe sequence like any other.
package struct ExactKeyTable: Sendable {
    /// The keys in insertion order; a key's index here is its ``index(of:)``.
    package private(set) var keys: [String] = []
    /// Every key's UTF-8 bytes, one after the other; key `i` is `bytes[starts[i]..<starts[i + 1]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt32] = []
    /// Open addressing: `slots[hash & mask]` onwards holds key indices + 1 (0 is empty).
    private var slots: [Int32] = []

    package init() {}

    /// The number of keys.
    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    /// Adds `key` unless it is already there; returns its index either way and whether it was new.
    @discardableResult
    package mutating func insert(_ key: String) -> (index: Int, inserted: Bool) {
        if let index = index(of: key) { return (index, false) }
        let hash = Self.hash(key)
        keys.append(key)
        bytes.append(contentsOf: key.utf8)
        starts.append(bytes.count)
        hashes.append(hash)
        if slots.count < 2 * keys.count { rehash(capacity: max(8, 4 * keys.count)) } else { place(keys.count - 1) }
        return (keys.count - 1, true)
    }

    /// The index of `key` (its place in insertion order), or `nil`.
    @inline(__always)
    package func index(of key: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        var key = key
        return key.withUTF8 { probe in index(ofUTF8: probe) }
    }

    private func index(ofUTF8 probe: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = Self.hash(probe)
        let mask = slots.count - 1
        return slots.withUnsafeBufferPointer { slots in
            bytes.withUnsafeBufferPointer { stored in
                var slot = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let entry = Int(slots[slot]) - 1
                    if entry < 0 { return nil }
                    if hashes[entry] == hash {
                        let start = starts[entry]
                        let length = starts[entry + 1] - start
                        if length == probe.count
                            && (length == 0 || memcmp(stored.baseAddress! + start, probe.baseAddress!, length) == 0)
                        {
                            return entry
                        }
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    private mutating func rehash(capacity: Int) {
        var size = 8
        while size < capacity { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        for entry in keys.indices { place(entry) }
    }

    private mutating func place(_ entry: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(entry + 1)
    }

    private static func hash(_ key: String) -> UInt32 {
        var key = key
        return key.withUTF8 { hash($0) }
    }

    /// 32-bit FNV-1a.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
