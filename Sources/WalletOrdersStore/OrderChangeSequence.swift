import Foundation
import Synchronization
package import WalletOrders
import WalletOrdersInterop

/// A store whose changes are numbered by one sequence: the history log's, and the order web
/// service's `lastModified` tags (``DeviceRegistrationStoring/changedOrders(deviceIdentifier:orderTypeIdentifier:since:)``).
///
/// `OrderStoreCopy` (WalletOrdersIntake) carries the sequence from one store to the next: before it writes, and again
/// when it is done, the destination's sequence is moved past the source's newest change. A
/// sequence never goes back, so a destination that already served devices keeps their tags exact,
/// and every order the copy writes is numbered after every tag either store gave out.
public protocol OrderChangeSequencing: Sendable {
    /// The number of the store's newest change (0 before the first).
    func newestChangeSequence() async throws -> Int64

    /// Numbers the store's next changes after `sequence`; does nothing when the store's own
    /// sequence is there already (it never goes back).
    func continueChangeSequence(after sequence: Int64) async throws
}

/// A `lastModified` tag of the changed-orders list: the store it came from and the change
/// sequence number the device has seen.
///
/// As text, `t1.` + the store's key + `.` + the sequence in decimal (`t1.kUuNMnyBOmrdFwTJ.1042`).
/// The key is 16 base64url characters: the first 96 bits of SHA-256 over a label and the store's
/// random `storeID` (the identifier history tokens carry), so a tag names its store without
/// showing the identifier, and no other server's tag (an epoch, a decimal, a date, the bare
/// decimals of earlier versions of this service) reads as one of ours.
package struct OrderChangeTag: Sendable, Hashable {
    /// The longest `ordersModifiedSince` answered, in characters (Unicode scalars); a longer one is
    /// no server's tag and is refused.
    package static let maximumLength = 1024

    /// The key of the store that made the tag (``storeKey(for:)``).
    package let storeKey: String
    /// The change sequence number the tag stands for.
    package let sequence: Int64

    private static let prefix = "t1"
    private static let keyLength = 16

    /// A tag of the store with key `storeKey`.
    package init(storeKey: String, sequence: Int64) {
        self.storeKey = storeKey
        self.sequence = sequence
    }

    /// A tag of the store identified by `storeID`.
    package init(storeID: String, sequence: Int64) {
        self.init(storeKey: Self.storeKey(for: storeID), sequence: sequence)
    }

    /// The key tags of the store identified by `storeID` carry.
    package static func storeKey(for storeID: String) -> String {
        // Every changed-orders request asks for its store's key: the last one made is kept.
        if let last = lastStoreKey.withLock({ $0 }), last.storeID == storeID { return last.key }
        let digest = SHA256.hash(Array("wallet-orders change tag\u{0}\(storeID)".utf8))
        let key = OpaqueToken.base64URL(Data(digest.prefix(12)))
        lastStoreKey.withLock { $0 = (storeID, key) }
        return key
    }

    private static let lastStoreKey = Mutex<(storeID: String, key: String)?>(nil)

    /// The tag as the device receives it.
    package var encoded: String { "\(Self.prefix).\(storeKey).\(sequence)" }

    /// Reads a tag made by ``encoded``; `nil` for any other text.
    package init?(encoded text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual(Self.prefix.utf8),
            parts[1].count == Self.keyLength,
            parts[1].allSatisfy({ byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 95
            }),
            (1...19).contains(parts[2].count), parts[2].allSatisfy({ (48...57).contains($0) }),
            parts[2].count == 1 || parts[2].first != UInt8(ascii: "0"),  // the way ``encoded`` writes numbers, only
            let sequence = Int64(String(decoding: parts[2], as: UTF8.self))
        else { return nil }
        self.init(storeKey: String(decoding: parts[1], as: UTF8.self), sequence: sequence)
    }
}

extension OrderChangeTag {
    /// Reads the tag a device sent (`parameter`: `ordersModifiedSince` or `passesUpdatedSince`)
    /// before the store is asked: the tag when the text is one of ours (of any store), `nil` when
    /// there is none or it is another server's (both mean every archive).
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` for text longer than
    ///   ``maximumLength`` characters (Unicode scalars), which no server gives out.
    package static func read(_ text: String?, parameter: String, of kind: ArchiveKind) throws -> OrderChangeTag? {
        guard let text else { return nil }
        let length = text.unicodeScalars.count  // characters, as JSON Schema's maxLength counts them
        guard length <= maximumLength else {
            throw WalletOrdersError(
                .malformedToken, "\(parameter) is \(length) characters long; no tag is longer than \(maximumLength).",
                hint: "Send the \(kind == .order ? "lastModified" : "lastUpdated") value of the previous answer, "
                    + "or leave the parameter out for every \(kind).")
        }
        return OrderChangeTag(encoded: text)
    }

    /// The change sequence to list the changes after (`-1`: every archive): the tag's when the
    /// store identified by `storeID` made it and its `newest` change is not before it. Any
    /// other tag (another store's, one from before a restore, none) gets every archive.
    package static func changeSequence(after tag: OrderChangeTag?, storeID: String, newest: Int64) -> Int64 {
        guard let tag, tag.sequence <= newest, tag.storeKey == storeKey(for: storeID) else { return -1 }
        return tag.sequence
    }

    /// The tag of the newest of `changes` (in change sequence order); `nil`, Apple's 204, when
    /// there are none.
    package static func newest(of changes: [(identifier: String, sequence: Int64)], storeID: String) -> String? {
        changes.last.map { OrderChangeTag(storeID: storeID, sequence: $0.sequence).encoded }
    }
}

extension ChangedOrders {
    /// Reads `ordersModifiedSince` (``OrderChangeTag/read(_:parameter:of:)``).
    package static func tag(_ text: String?) throws -> OrderChangeTag? {
        try OrderChangeTag.read(text, parameter: "ordersModifiedSince", of: .order)
    }

    /// The answer for the device's orders that changed, in change sequence order (`nil`, Apple's
    /// 204, when none did), tagged with the newest one's sequence.
    package init?(changes: [(identifier: String, sequence: Int64)], storeID: String) {
        guard let tag = OrderChangeTag.newest(of: changes, storeID: storeID) else { return nil }
        self.init(orderIdentifiers: changes.map(\.identifier), lastModified: tag)
    }
}

extension ChangedPasses {
    /// Reads `passesUpdatedSince` (``OrderChangeTag/read(_:parameter:of:)``).
    package static func tag(_ text: String?) throws -> OrderChangeTag? {
        try OrderChangeTag.read(text, parameter: "passesUpdatedSince", of: .pass)
    }

    /// The answer for the device's passes that changed, in change sequence order (`nil`, Apple's
    /// 204, when none did), tagged with the newest one's sequence.
    package init?(changes: [(identifier: String, sequence: Int64)], storeID: String) {
        guard let tag = OrderChangeTag.newest(of: changes, storeID: storeID) else { return nil }
        self.init(serialNumbers: changes.map(\.identifier), lastUpdated: tag)
    }
}
