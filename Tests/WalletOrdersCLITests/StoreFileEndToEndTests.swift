import Foundation
import Testing
import WalletOrdersTestSupport

/// Issue 10, findings 7 and 10: the store is one file between runs, and processes saving into a
/// new store wait their turn instead of failing.
@Suite struct StoreFileEndToEndTests {
    @Test("After saving 200 orders and exiting, the .sqlite file alone is the whole store (Python's sqlite3 reads a copy)")
    func oneFileAfterExit() throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try (0..<200).map { try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "FILE-\($0)") }
        let (result, lines) = try store.save(archives)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(lines.count == 200)
        // The WAL was merged into the file and removed at exit (GRDB closes a read-only reader last,
        // which would leave them; the store closes with a writable connection).
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-shm"))
        let copy = store.folder.file("copy/orders.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: store.url, to: copy)  // the file alone: no -wal, no -shm
        let check = try ExternalProgram.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA integrity_check").fetchone()[0], db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])
            """, [copy.path])
        #expect(check.output == "ok 200\n", "\(check)")
    }

    @Test("Two processes saving versions of one order into a store that doesn't exist yet: every save succeeds, the newest wins (30 rounds)")
    func concurrentSavesOnNewStore() throws {
        let versions = try (1...10).map { try StoreFixtures.archive(updatedAt: String(format: "2025-11-%02dT00:00:00Z", $0 + 20)) }
        let binary = try WalletOrdersBinary.url().path
        let trust = try StoreFixtures.trustArguments().joined(separator: " ")
        for round in 0..<30 {
            let store = try StoreUnderTest("round-\(round)")
            defer { store.remove() }
            // One loop saves all ten versions, the other every second one, at the same time: two
            // shells started together, each running one `store save` process after another.
            let loop = { (paths: [URL]) in
                paths.map { "'\(binary)' store save '\($0.path)' --store '\(store.url.path)' \(trust) >/dev/null || echo FAILED \($0.lastPathComponent)" }
                    .joined(separator: "\n")
            }
            let loops = try [versions, versions.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)].enumerated().map {
                try ChildProcess(shell: loop($0.element), outputIn: store.folder, name: "loop\($0.offset)")
            }
            var output = ""
            for child in loops {
                #expect(try child.wait() == 0)
                output += child.output + child.errorOutput
            }
            #expect(!output.contains("FAILED"), "round \(round): \(output)")
            let contains = try store.run("contains", StoreEndToEndTests.order + ["--updated-date", "2025-11-30T00:00:00Z"])
            #expect(contains.output == "exists\n", "round \(round): the newest version is not the one stored: \(contains)")
            if output.contains("FAILED") { break }
        }
    }
}
