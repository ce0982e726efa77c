import Foundation
import Testing
import WalletOrdersTestSupport

/// Issue 10, findings 7 and 10: the store is one file between runs, and processes saving into a
/// new store wait their turn instead of failing.
@Suite(.temporaryFolder) struct StoreFileEndToEndTests {
    @Test("After saving 200 orders and exiting, the .sqlite file alone is the whole store (Python's sqlite3 reads a copy)")
    func oneFileAfterExit() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try await (0..<200).asyncMap {
            try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "FILE-\($0)")
        }
        let (result, lines) = try await store.save(archives)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(lines.count == 200)
        // The WAL was merged into the file and removed at exit (GRDB closes a read-only reader last,
        // which would leave them; the store closes with a writable connection).
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-shm"))
        let copy = store.folder.file("copy/orders.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: store.url, to: copy)  // the file alone: no -wal, no -shm
        let check = try await ExternalProgram.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA integrity_check").fetchone()[0], db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])
            """, [copy.path])
        #expect(check.output == "ok 200\n", "\(check)")
    }

    @Test("Two processes saving versions of one order into a store that doesn't exist yet: every save succeeds, the newest wins (30 rounds)")
    func concurrentSavesOnNewStore() async throws {
        let versions = try await (1...10).asyncMap { try await StoreFixtures.archive(updatedAt: String(format: "2025-11-%02dT00:00:00Z", $0 + 20)) }
        let binary = try WalletOrdersBinary.url().path
        let trust = try await StoreFixtures.trustArguments().joined(separator: " ")
        for round in 0..<30 {
            let store = try StoreUnderTest("round-\(round)")
            defer { store.remove() }
            // One loop saves all ten versions, the other every second one, at the same time: two
            // shells started together, each running one `store save` process after another.
            let loop = { (paths: [URL]) in
                paths.map {
                    "'\(binary)' store save '\($0.path)' --store '\(store.url.path)' \(trust) >/dev/null || echo FAILED \($0.lastPathComponent)"
                }
                .joined(separator: "\n")
            }
            let loops = try await [versions, versions.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)].enumerated().asyncMap {
                try await BackgroundProgram.tool(shell: loop($0.element), outputIn: store.folder, name: "loop\($0.offset)")
            }
            var output = ""
            for child in loops {
                await #expect(try child.wait() == 0)
                output += child.output + child.errorOutput
            }
            #expect(!output.contains("FAILED"), "round \(round): \(output)")
            let contains = try await store.run("contains", StoreEndToEndTests.order + ["--updated-date", "2025-11-30T00:00:00Z"])
            #expect(
                contains.output == "store: \(store.url.path)\nexists (stored updatedAt 2025-11-30T00:00:00Z)\n",
                "round \(round): the newest version is not the one stored: \(contains)")
            if output.contains("FAILED") { break }
        }
    }

    /// Issue 10, finding 9: a full disk during a batch save gave one global error for the first
    /// failed transaction and no line for the other archives. Each archive gets its own line (text
    /// and --json), the transactions that fit are kept, and the store stays whole.
    @Test(
        "A full disk during a batch save: every archive gets a result line (text and --json), what was acknowledged is stored, the store passes integrity_check",
        arguments: [true, false])
    func fullDiskDuringBatchSave(json: Bool) async throws {
        let folder = try TemporaryFolder.ofTest
        let archives = try await (0..<40).asyncMap {
            try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "FULL-\($0)")
        }
        let mountPoint = folder.file("small")
        let kept = folder.file("kept")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let quoted = { (text: String) in "'\(text)'" }
        let save =
            [try WalletOrdersBinary.url().path, "store", "save"] + archives.map(\.path) + (try await StoreFixtures.trustArguments())
            + ["--store", mountPoint.path + "/orders.sqlite", "--batch-size", "8"] + (json ? ["--json"] : [])
        // A real full file system: a 512 KiB tmpfs in a mount namespace of its own (it vanishes
        // with the shell); the store's files are copied out before that.
        let script = """
            mount -t tmpfs -o size=512k tmpfs \(quoted(mountPoint.path)) || exit 97
            \(save.map(quoted).joined(separator: " ")) > \(quoted(folder.file("out").path)) 2> \(quoted(folder.file("err").path))
            echo $? > \(quoted(folder.file("status").path))
            cp \(quoted(mountPoint.path))/orders.sqlite* \(quoted(kept.path))/
            """
        let namespace = getuid() == 0 ? ["--mount"] : ["--mount", "--map-root-user"]
        let shell = try await ExternalProgram.run(
            tool: "unshare", namespace + ["--propagation", "private", "sh", "-c", script], environment: CLI.environment([:]))
        #expect(shell.status == 0, "\(shell)")
        let status = try String(contentsOf: folder.file("status"), encoding: .utf8)
        let output = try String(contentsOf: folder.file("out"), encoding: .utf8)
        let errors = try String(contentsOf: folder.file("err"), encoding: .utf8)
        #expect(status == "1\n", "the save reports failures: \(errors)")

        // One line per archive: added ones on stdout, failed ones naming the archive and the full disk.
        var added: Set<String> = []
        var failed: Set<String> = []
        if json {
            for line in output.split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let file = try #require(object["file"] as? String)
                if object["result"] as? String == "added" {
                    added.insert(file)
                } else {
                    let error = try #require(object["error"] as? [String: Any], "\(object)")
                    #expect(error["code"] as? String == "store-full", "\(error)")
                    failed.insert(file)
                }
            }
        } else {
            for archive in archives {
                if output.contains("added  order.com.northwindoutfitters.shop/FULL-") && output.contains(archive.path) { added.insert(archive.path) }
                if errors.contains("error: \(archive.path): ") { failed.insert(archive.path) }
            }
            #expect(errors.contains("full"), "\(errors)")
        }
        #expect(added.count + failed.count == archives.count, "every archive has exactly one line:\n\(output)\n\(errors)")
        #expect(added.isDisjoint(with: failed))
        #expect(!added.isEmpty, "the first transactions fit")
        #expect(!failed.isEmpty, "the disk filled up")

        // What was acknowledged is what the store holds (Python's sqlite3 reads the copy).
        let inspected = try await VersionMatrix.inspect(kept.appendingPathComponent("orders.sqlite"))
        #expect(inspected.integrity == "ok")
        #expect(inspected.rows.count == added.count)
        #expect(inspected.rows.values.allSatisfy { $0.hashOK })
    }
}
