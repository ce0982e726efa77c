import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Five orders of the sample with different identifiers, statuses and `updatedAt`s (two at the
/// same instant, written with different offsets, to test ties).
enum ListFixture {
    struct Row: Sendable {
        var orderIdentifier: String
        var updatedAt: String
        var status: String
    }

    static let rows: [Row] = [
        Row(orderIdentifier: "A-1", updatedAt: "2025-11-21T00:00:00Z", status: "open"),
        Row(orderIdentifier: "B-2", updatedAt: "2025-11-23T00:00:00Z", status: "completed"),
        Row(orderIdentifier: "C-3", updatedAt: "2025-11-22T00:00:00.5Z", status: "open"),
        Row(orderIdentifier: "D-4", updatedAt: "2025-11-22T02:00:00.5+02:00", status: "open"),
        Row(orderIdentifier: "E-5", updatedAt: "2025-11-20T00:00:00Z", status: "completed"),
    ]

    static func archives() throws -> [[UInt8]] {
        try rows.map {
            try SampleVersions.archive(updatedAt: $0.updatedAt, orderIdentifier: $0.orderIdentifier, status: $0.status)
        }
    }

    /// Reads every page of `query`, `limit` at a time.
    static func allPages(_ store: any OrderStoring, _ query: OrderQuery) async throws -> [[String]] {
        var query = query
        var pages: [[String]] = []
        while true {
            let page = try await store.list(query)
            pages.append(page.orders.map(\.identifier.orderIdentifier))
            guard let next = page.nextCursor else { return pages }
            query.after = next
        }
    }
}

@Suite("Order stores list, fetch, delete and batch-save", .serialized)
struct OrderStoreQueryTests {
    struct ListCase: Sendable, CustomTestStringConvertible {
        var name: String
        var query: OrderQuery
        var pages: [[String]]
        var testDescription: String { name }
    }

    static let listCases: [ListCase] = [
        ListCase(name: "default: newest first, ties by identifier descending", query: OrderQuery(), pages: [["B-2", "D-4", "C-3", "A-1", "E-5"]]),
        ListCase(
            name: "oldest first, pages of 2", query: OrderQuery(sort: .updatedAtAscending, limit: 2),
            pages: [["E-5", "A-1"], ["C-3", "D-4"], ["B-2"]]),
        ListCase(name: "newest first, pages of 2", query: OrderQuery(limit: 2), pages: [["B-2", "D-4"], ["C-3", "A-1"], ["E-5"]]),
        ListCase(
            name: "by identifier, pages of 3", query: OrderQuery(sort: .identifier, limit: 3), pages: [["A-1", "B-2", "C-3"], ["D-4", "E-5"]]),
        ListCase(name: "status open", query: OrderQuery(status: "open", sort: .identifier), pages: [["A-1", "C-3", "D-4"]]),
        ListCase(name: "status completed, newest first", query: OrderQuery(status: "completed"), pages: [["B-2", "E-5"]]),
        ListCase(
            name: "updated since an instant is inclusive", query: OrderQuery(updatedSince: "2025-11-22T00:00:00.5Z", sort: .updatedAtAscending),
            pages: [["C-3", "D-4", "B-2"]]),
        ListCase(
            name: "updated since, in another offset", query: OrderQuery(updatedSince: "2025-11-22T01:00:00.6+01:00", sort: .updatedAtAscending),
            pages: [["B-2"]]),
        ListCase(
            name: "order type that matches",
            query: OrderQuery(orderTypeIdentifier: SampleVersions.identifier.orderTypeIdentifier, status: "completed", sort: .identifier),
            pages: [["B-2", "E-5"]]),
        ListCase(
            name: "order type that doesn't match (case-sensitive)", query: OrderQuery(orderTypeIdentifier: "ORDER.com.northwindoutfitters.shop"),
            pages: [[]]),
        ListCase(
            name: "one of several order types",
            query: OrderQuery(orderTypeIdentifiers: [SampleVersions.identifier.orderTypeIdentifier, "order.com.other"], sort: .identifier, limit: 3),
            pages: [["A-1", "B-2", "C-3"], ["D-4", "E-5"]]),
        ListCase(
            name: "none of the order types (case-sensitive)",
            query: OrderQuery(orderTypeIdentifiers: ["ORDER.com.northwindoutfitters.shop", "order.com.other"]), pages: [[]]),
        ListCase(name: "an empty set of order types matches nothing", query: OrderQuery(orderTypeIdentifiers: []), pages: [[]]),
        ListCase(
            name: "order type and order types combine",
            query: OrderQuery(orderTypeIdentifier: SampleVersions.identifier.orderTypeIdentifier, orderTypeIdentifiers: ["order.com.other"]),
            pages: [[]]),
        ListCase(
            name: "filters and pages combine", query: OrderQuery(status: "open", updatedSince: "2025-11-21T00:00:00Z", limit: 1),
            pages: [["D-4"], ["C-3"], ["A-1"]]),
    ]

    @Test("list filters, sorts and pages the same way on every store", arguments: StoreKind.allCases, listCases)
    func list(kind: StoreKind, row: ListCase) async throws {
        let archives = try ListFixture.archives()
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let receipts = try await store.intake().save(signedArchives: archives)
            #expect(receipts.map { try? $0.get().result } == Array(repeating: .added, count: archives.count))
            #expect(try await ListFixture.allPages(store, row.query) == row.pages)
        }
    }

    @Test("A page cursor survives a save and a delete between pages without repeats or gaps", arguments: StoreKind.allCases)
    func cursorIsStable(kind: StoreKind) async throws {
        let archives = try ListFixture.archives()
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            _ = try await store.intake().save(signedArchives: archives)
            let first = try await store.list(OrderQuery(sort: .identifier, limit: 2))
            #expect(first.orders.map(\.identifier.orderIdentifier) == ["A-1", "B-2"])
            #expect(try await store.delete(SampleVersions.identifier("A-1")))
            #expect(try await store.delete(SampleVersions.identifier("C-3")))
            let second = try await store.list(OrderQuery(sort: .identifier, limit: 2, after: first.nextCursor))
            #expect(second.orders.map(\.identifier.orderIdentifier) == ["D-4", "E-5"])
            #expect(second.nextCursor == nil)
        }
    }

    @Test("A cursor is opaque text that round-trips, and is refused with another sort or when mangled", arguments: StoreKind.allCases)
    func cursorText(kind: StoreKind) async throws {
        let archives = try ListFixture.archives()
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            _ = try await store.intake().save(signedArchives: archives)
            let cursor = try #require(try await store.list(OrderQuery(limit: 1)).nextCursor)
            #expect(cursor.encoded.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            let reread = try OrderListCursor(encoded: cursor.encoded)
            #expect(reread == cursor)
            let viaJSON = try JSONDecoder().decode(OrderListCursor.self, from: JSONEncoder().encode(cursor))
            #expect(viaJSON == cursor)
            let page = try await store.list(OrderQuery(limit: 1, after: reread))
            #expect(page.orders.map(\.identifier.orderIdentifier) == ["D-4"])

            let wrongSort = try await #require(throws: WalletOrdersError.self) {
                try await store.list(OrderQuery(sort: .identifier, after: cursor))
            }
            #expect(wrongSort.code == .malformedToken)
            #expect(wrongSort.message.contains("-updatedAt"))
            for garbage in ["", "not a cursor", String(cursor.encoded.dropLast(3)), "eyJ9"] {
                let error = #expect(throws: WalletOrdersError.self) { try OrderListCursor(encoded: garbage) }
                #expect(error?.code == .malformedToken, "\(garbage)")
            }
        }
    }

    @Test("summary, archive and order fetch what was saved; delete removes it once", arguments: StoreKind.allCases)
    func fetchAndDelete(kind: StoreKind) async throws {
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T09:30:00+09:00", orderIdentifier: "F-6", status: "completed")
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let id = SampleVersions.identifier("F-6")
            #expect(try await store.summary(for: id) == nil)
            #expect(try await store.order(for: id) == nil)
            #expect(try await store.intake().save(signedArchive: bytes) == .added)

            let summary = try #require(try await store.summary(for: id))
            #expect(summary.identifier == id)
            #expect(summary.updatedAt.text == "2025-11-21T09:30:00+09:00")
            #expect(summary.status == "completed")
            #expect(summary.archiveSize == bytes.count)
            let digest = await SHA256Oracle.hex(bytes)
            #expect(summary.sha256 == digest)
            #expect(abs(summary.savedAt.date.timeIntervalSinceNow) < 120)

            #expect(try await store.archive(for: id) == bytes)
            let order = try #require(try await store.order(for: id))
            #expect(order.orderIdentifier == "F-6")
            #expect(order.status.rawValue == "completed")
            #expect(order.updatedAt == "2025-11-21T00:30:00Z")

            #expect(try await store.delete(id))
            #expect(try await store.delete(id) == false)
            #expect(try await store.contains(matching: id) == .notFound)
            #expect(try await store.archive(for: id) == nil)
        }
    }

    @Test("A batch save answers each archive as if saved one after another, in order", arguments: StoreKind.allCases)
    func batchSave(kind: StoreKind) async throws {
        let v1 = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let v2 = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        let v2Conflicting = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", status: "completed")
        let other = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "G-7")
        var tampered = v2
        tampered[tampered.count / 2] ^= 0x01
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let results = try await store.intake().save(signedArchives: [v1, v2, v1, tampered, v2Conflicting, other, v2])
            let answers = results.map { result -> String in
                switch result {
                case .success(let receipt): "\(receipt.result.rawValue) \(receipt.identifier.orderIdentifier) \(receipt.updatedAt)"
                case .failure(let error): error.code.rawValue
                }
            }
            #expect(
                answers == [
                    "added nw-2025-118734 2025-11-21T00:00:00Z",
                    "added nw-2025-118734 2025-11-22T00:00:00Z",
                    "newerExisting nw-2025-118734 2025-11-21T00:00:00Z",
                    "archive-rejected",
                    "updated-at-conflict",
                    "added G-7 2025-11-21T00:00:00Z",
                    "added nw-2025-118734 2025-11-22T00:00:00Z",
                ])
            #expect(try await store.archive(for: SampleVersions.identifier) == v2)
            #expect(try await store.archive(for: SampleVersions.identifier("G-7")) == other)
            #expect(try await store.intake().save(signedArchives: [[UInt8]]()).isEmpty)
        }
    }
}

@Suite("Order store history tokens", .serialized)
struct OrderStoreHistoryTests {
    @Test("Tokens resume exactly: each call returns only what changed since the last, net per order", arguments: StoreKind.allCases)
    func resume(kind: StoreKind) async throws {
        let a1 = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "A-1")
        let a2 = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: "A-1")
        let b1 = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "B-2")
        let c1 = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "C-3")
        let a = SampleVersions.identifier("A-1")
        let b = SampleVersions.identifier("B-2")
        let c = SampleVersions.identifier("C-3")
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let empty = try await store.history(since: nil)
            #expect(empty.isEmpty)
            #expect(empty.hasMore == false)

            _ = try await store.intake().save(signedArchives: [a1, b1])
            let first = try await store.history(since: empty.newToken)
            #expect(first.inserted == [a, b])
            #expect(first.updated.isEmpty && first.deleted.isEmpty)

            // Nothing happened: nothing reported, and the token doesn't move.
            let quiet = try await store.history(since: first.newToken)
            #expect(quiet.isEmpty)
            #expect(quiet.newToken == first.newToken)

            #expect(try await store.intake().save(signedArchive: a2) == .added)  // updated
            #expect(try await store.intake().save(signedArchive: a1) == .newerExisting)  // no change: not logged
            #expect(try await store.intake().save(signedArchive: a2) == .added)  // idempotent: not logged
            #expect(try await store.delete(b))  // deleted
            #expect(try await store.intake().save(signedArchive: c1) == .added)  // inserted…
            #expect(try await store.delete(c))  // …and deleted again: nets to nothing
            let second = try await store.history(since: first.newToken)
            #expect(second.inserted.isEmpty)
            #expect(second.updated == [a])
            #expect(second.deleted == [b])

            // Saved again after the delete: inserted since the last token…
            #expect(try await store.intake().save(signedArchive: b1) == .added)
            let third = try await store.history(since: second.newToken)
            #expect(third.inserted == [b])
            #expect(third.updated.isEmpty && third.deleted.isEmpty)
            // …but since the first token, b existed before and after: updated, like a.
            let sinceFirst = try await store.history(since: first.newToken)
            #expect(sinceFirst.updated == [a, b])
            #expect(sinceFirst.inserted.isEmpty && sinceFirst.deleted.isEmpty)
            #expect(sinceFirst.newToken == third.newToken)

            // From the very beginning, the net effect is the present.
            let all = try await store.history(since: nil)
            #expect(Set(all.inserted) == [a, b])
            #expect(all.updated.isEmpty && all.deleted.isEmpty)
            #expect(all.newToken == third.newToken)
        }
    }

    @Test("A limit pages through the log; following hasMore reads every change exactly once", arguments: StoreKind.allCases)
    func paged(kind: StoreKind) async throws {
        let archives = try (0..<5).map {
            try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "P-\($0)")
        }
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            _ = try await store.intake().save(signedArchives: archives)
            var token: OrderHistoryToken? = nil
            var seen: [String] = []
            var calls = 0
            repeat {
                let changes = try await store.history(since: token, limit: 2)
                seen += changes.inserted.map(\.orderIdentifier)
                token = changes.newToken
                calls += 1
                if !changes.hasMore { break }
            } while calls < 10
            #expect(seen == ["P-0", "P-1", "P-2", "P-3", "P-4"])
            #expect(calls == 3)
        }
    }

    @Test("A token older than a compaction, from another store, or mangled is refused with a resync hint", arguments: StoreKind.allCases)
    func invalidTokens(kind: StoreKind) async throws {
        let archives = try (0..<4).map {
            try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "H-\($0)")
        }
        let otherToken = try await kind.withStore { (other: any OrderStoring) async throws -> OrderHistoryToken in
            try await other.history(since: nil).newToken
        }
        try await kind.withStore { (store: any OrderStoring) async throws -> Void in
            let start = try await store.history(since: nil).newToken
            _ = try await store.intake().save(signedArchives: Array(archives[0..<2]))
            let middle = try await store.history(since: start).newToken
            _ = try await store.intake().save(signedArchives: Array(archives[2..<4]))
            #expect(try await store.delete(SampleVersions.identifier("H-0")))

            let removed: Int
            switch store {
            case let sqlite as SQLiteOrderStore: removed = try await sqlite.compactHistory(keepingLast: 3)
            case let memory as InMemoryOrderStore: removed = await memory.compactHistory(keepingLast: 3)
            case let postgres as PostgresOrderStore: removed = try await postgres.compactHistory(keepingLast: 3)
            default:
                Issue.record("unknown store")
                return
            }
            #expect(removed == 2)

            let stale = try await #require(throws: WalletOrdersError.self) { try await store.history(since: start) }
            #expect(stale.code == .historyTokenInvalid)
            #expect(stale.message.contains("compacted"))
            #expect(stale.hint?.contains("without a token") == true)

            // The token at the compaction point still works: nothing it needs was dropped.
            let resumed = try await store.history(since: middle)
            #expect(resumed.inserted.map(\.orderIdentifier) == ["H-2", "H-3"])
            #expect(resumed.deleted.map(\.orderIdentifier) == ["H-0"])

            // Resync: without a token, the present, with a token that works from then on.
            let resync = try await store.history(since: nil)
            #expect(resync.inserted.map(\.orderIdentifier) == ["H-1", "H-2", "H-3"])
            #expect(try await store.history(since: resync.newToken).isEmpty)

            let foreign = try await #require(throws: WalletOrdersError.self) { try await store.history(since: otherToken) }
            #expect(foreign.code == .historyTokenInvalid)
            #expect(foreign.message.contains("another store"))

            #expect(try OrderHistoryToken(encoded: resync.newToken.encoded) == resync.newToken)
            let mangled = #expect(throws: WalletOrdersError.self) { try OrderHistoryToken(encoded: "bm90IGEgdG9rZW4") }
            #expect(mangled?.code == .malformedToken)
        }
    }
}
