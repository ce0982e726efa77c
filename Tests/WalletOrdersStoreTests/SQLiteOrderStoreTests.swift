import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("SQLiteOrderStore: files, concurrency and bad stores", .temporaryFolder)
struct SQLiteOrderStoreTests {
    @Test("Reopening the file keeps the stored orders")
    func reopen() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00.25+01:00")
        do {
            let store = try SQLiteOrderStore(url: url)
            #expect(try await store.intake().save(signedArchive: bytes) == .added)
        }
        let reopened = try SQLiteOrderStore(url: url)
        #expect(try await reopened.archive(for: SampleVersions.identifier) == bytes)
        #expect(try await reopened.contains(matching: SampleVersions.identifier, updatedDate: "2025-11-20T23:00:00.25Z") == .exists)
        #expect(try await reopened.intake().save(signedArchive: bytes) == .added)
        #expect(try await reopened.count() == 1)
    }

    /// The permission bits of `path` (`nil` when there is no such file).
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    @Test("A new store and its -wal and -shm are mode 0600 whatever the umask: they hold every authenticationToken and the link secret")
    func newStoreIsPrivate() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try SQLiteOrderStore(url: url)
        #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        for path in [url.path, url.path + "-wal", url.path + "-shm"] {
            #expect(Self.mode(path) == 0o600, "\(path): \(String(Self.mode(path) ?? 0, radix: 8))")
        }
        #expect(store.exposureWarning == nil)
        try store.close()
    }

    @Test("An existing store others can read opens with a warning naming the file and the fix")
    func exposedStoreWarns() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        try SQLiteOrderStore(url: url).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        let store = try SQLiteOrderStore(url: url)
        let warning = try #require(store.exposureWarning)
        #expect(warning.contains(url.path) && warning.contains("644") && warning.contains("chmod 600"), "\(warning)")
        try store.close()
    }

    @Test("close() leaves the whole store in the .sqlite file; .readOnly reads it, refuses writes and never creates a store")
    func closeAndReadOnly() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let store = try SQLiteOrderStore(url: url)
        #expect(try await store.intake().save(signedArchive: bytes) == .added)
        try store.close()
        try store.close()  // a second close does nothing
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        let before = try Data(contentsOf: url)

        let reader = try SQLiteOrderStore(url: url, access: .readOnly)
        #expect(try await reader.archive(for: SampleVersions.identifier) == bytes)
        #expect(try await reader.contains(matching: SampleVersions.identifier, updatedDate: "2025-11-21T00:00:00Z") == .exists)
        let later = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        let refused = try await #require(throws: WalletOrdersError.self) { try await reader.intake().save(signedArchive: later) }
        #expect(refused.code == .storeReadOnly, "\(refused)")
        let deleteRefused = try await #require(throws: WalletOrdersError.self) { try await reader.delete(SampleVersions.identifier) }
        #expect(deleteRefused.code == .storeReadOnly, "\(deleteRefused)")
        try reader.close()
        #expect(try Data(contentsOf: url) == before, "a read-only store is never written")

        let missing = try #require(throws: WalletOrdersError.self) {
            try SQLiteOrderStore(url: folder.file("none.sqlite"), access: .readOnly)
        }
        #expect(missing.code == .storeUnavailable)
        #expect(missing.message.contains("never creates one"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.sqlite").path))
    }

    @Test("The file is a WAL-mode SQLite database with synchronous = FULL and the orders table")
    func fileLayout() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let store = try SQLiteOrderStore(url: url)
        #expect(try await store.intake().save(signedArchive: bytes) == .added)
        // Python's sqlite3 is an independent reader of the file.
        let result = try await ExternalProgram.python(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute('PRAGMA journal_mode').fetchone()[0])
            print(db.execute('PRAGMA integrity_check').fetchone()[0])
            row = db.execute('SELECT orderTypeIdentifier, orderIdentifier, updatedAtSeconds, updatedAtNanos, updatedAtText, status, sha256, length(archive) FROM orders').fetchone()
            print('|'.join(str(v) for v in row))
            """, [url.path])
        let lines = result.output.split(separator: "\n").map(String.init)
        // The connection that commits syncs the WAL at every commit (2: FULL). GRDB's pool sets
        // NORMAL (1) when it switches a file to WAL, after the connection's own set-up.
        #expect(try await store.writerPragma("synchronous") == "2")
        #expect(try await store.writerPragma("journal_mode") == "wal")
        #expect(result.status == 0, "\(result)")
        #expect(lines.first == "wal")
        #expect(lines.dropFirst().first == "ok")
        let id = SampleVersions.identifier
        let updatedAt: Timestamp = "2025-11-21T00:00:00Z"
        let digest = await SHA256Oracle.hex(bytes)
        #expect(
            lines.last
                == "\(id.orderTypeIdentifier)|\(id.orderIdentifier)|\(updatedAt.secondsSince1970)|0|2025-11-21T00:00:00Z|open|\(digest)|\(bytes.count)"
        )
    }

    @Test("A file that is not SQLite gives storeCorrupt and is not changed")
    func notSQLite() throws {
        let folder = try TemporaryFolder.ofTest
        let garbage = Array(String(repeating: "this is not a database\n", count: 200).utf8)
        let url = try folder.write(garbage, to: "orders.sqlite")
        let error = try #require(throws: WalletOrdersError.self) {
            _ = try SQLiteOrderStore(url: url)
        }
        #expect(error.code == .storeCorrupt)
        #expect(error.message.contains(url.path))
        #expect(Array(try Data(contentsOf: url)) == garbage)
    }

    @Test("A store with a newer schema gives storeTooNew and is not migrated")
    func tooNew() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        do {
            let store = try SQLiteOrderStore(url: url)
            #expect(try await store.contains(matching: SampleVersions.identifier) == .notFound)
        }
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            if sys.argv[2] == 'add':
                db.execute("INSERT INTO grdb_migrations VALUES ('v999-from-the-future')")
                db.commit()
            print(','.join(r[0] for r in db.execute('SELECT identifier FROM grdb_migrations ORDER BY identifier')))
            """
        #expect(try await ExternalProgram.python(script, [url.path, "add"]).status == 0)
        let error = try #require(throws: WalletOrdersError.self) {
            _ = try SQLiteOrderStore(url: url)
        }
        #expect(error.code == .storeTooNew)
        let after = try await ExternalProgram.python(script, [url.path, "list"])
        #expect(
            after.output.trimmingCharacters(in: .whitespacesAndNewlines)
                == "v1-orders,v10-registrations-of-deleted-orders,v11-previous-authentication-token,v12-delivery-trail-shares,v13-passes,v2-history-and-indexes,v3-covering-version-index,v4-web-service,v5-content-digest,v6-registration-push-tokens,v7-parked-pushes,v8-delivery-trail,v9-push-turns,v999-from-the-future"
        )
    }

    @Test("A store made before content digests gets them on opening, so a rebuild of a stored order is accepted")
    func contentDigestMigration() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let stored = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        do {
            let store = try SQLiteOrderStore(url: url)
            #expect(try await store.intake().save(signedArchive: stored) == .added)
            try store.close()
        }
        // Back to the v4 schema, as a store written by the previous release is.
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            if sys.argv[2] == 'downgrade':
                db.execute("ALTER TABLE orders DROP COLUMN contentDigest")
                db.execute("DELETE FROM grdb_migrations WHERE identifier = 'v5-content-digest'")
                db.commit()
            else:
                print(db.execute('SELECT contentDigest FROM orders').fetchone()[0])
            """
        let downgrade = try await ExternalProgram.python(script, [url.path, "downgrade"])
        #expect(downgrade.status == 0, "\(downgrade)")
        let store = try SQLiteOrderStore(url: url)
        let rebuilt = try SampleVersions.archive(
            updatedAt: "2025-11-21T00:00:00Z", signingTime: TestPKI.signingTime.addingTimeInterval(30))
        #expect(try await store.intake().save(signedArchive: rebuilt) == .added)
        #expect(try await store.archive(for: SampleVersions.identifier) == stored)
        try store.close()
        let digest = try await ExternalProgram.python(script, [url.path, "read"])
        let manifest = try OrderArchive(bytes: stored).manifest()
        #expect(digest.output.trimmingCharacters(in: .whitespacesAndNewlines) == manifest.contentDigest)
    }

    @Test(
        "Another process holding the write lock: a save waits for it, and past the busy timeout fails with storeUnavailable, never 'database is locked'"
    )
    func busy() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let first = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let second = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        let third = try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z")
        #expect(try await SQLiteOrderStore(url: url).intake().save(signedArchive: first) == .added)

        // Opened before the lock is taken: after a clean close the WAL is gone, and opening a
        // writable store recreates it with a brief write (GRDB's WAL set-up), which waits for the lock.
        let impatient = try SQLiteOrderStore(url: url, busyTimeout: 0.3)

        // Python holds BEGIN IMMEDIATE (the write lock) until told to let go (or 60 s).
        let release = folder.file("release")
        let holder = try await BackgroundProgram(
            tool: "python3",
            [
                "-c",
                """
                import os, sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute('BEGIN IMMEDIATE')
                print('locked', flush=True)
                deadline = time.time() + 60
                while not os.path.exists(sys.argv[2]) and time.time() < deadline:
                    time.sleep(0.01)
                db.execute('COMMIT')
                """,
                url.path, release.path,
            ])
        defer {
            _ = FileManager.default.createFile(atPath: release.path, contents: nil)
            holder.kill()
        }
        _ = try await holder.waitForStandardOutput(containing: "locked", timeout: 60 * TestTiming.scale)

        let error = try await #require(throws: WalletOrdersError.self) { try await impatient.intake().save(signedArchive: second) }
        #expect(error.code == .storeUnavailable)
        #expect(
            error.message.contains("another process kept it locked for longer than the 0.3 s this one waits; nothing was written"), "\(error.message)"
        )
        #expect(!error.message.contains("database is locked"))
        // Reads don't wait for the writer.
        #expect(try await impatient.contains(matching: SampleVersions.identifier, updatedDate: "2025-11-21T00:00:00Z") == .exists)

        // A patient writer waits while the lock is held, and saves once it is released. (60 s, not
        // 10: a loaded full run once took longer than 10 s from here to the holder's commit.)
        let patient = try SQLiteOrderStore(url: url, busyTimeout: 60 * TestTiming.scale)
        let save = Task { try await patient.intake().save(signedArchive: third) }
        try await Task.sleep(for: .seconds(1))
        #expect(try await patient.archive(for: SampleVersions.identifier) == first, "saved while another process held the lock")
        _ = FileManager.default.createFile(atPath: release.path, contents: nil)
        #expect(try await save.value == .added)
        #expect(try await patient.archive(for: SampleVersions.identifier) == third)
    }

    @Test("A store written by the first release (schema v1-orders) is migrated: its orders keep working and appear in the history")
    func upgradeFromV1() async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        // The v1 file as the first release wrote it, made by Python from the shipped DDL.
        let script = """
            import sqlite3, sys, hashlib
            db = sqlite3.connect(sys.argv[1])
            db.execute('PRAGMA journal_mode=WAL')
            db.execute('CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)')
            db.execute("INSERT INTO grdb_migrations VALUES ('v1-orders')")
            db.execute('CREATE TABLE orders (orderTypeIdentifier TEXT NOT NULL, orderIdentifier TEXT NOT NULL, '
                'updatedAtSeconds INTEGER NOT NULL, updatedAtNanos INTEGER NOT NULL, updatedAtText TEXT NOT NULL, '
                'status TEXT NOT NULL, archive BLOB NOT NULL, sha256 TEXT NOT NULL, savedAt TEXT NOT NULL, '
                'PRIMARY KEY (orderTypeIdentifier, orderIdentifier))')
            blob = open(sys.argv[2], 'rb').read()
            db.execute('INSERT INTO orders VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?)', (sys.argv[3], sys.argv[4], int(sys.argv[5]),
                '2025-11-21T00:00:00Z', 'open', blob, hashlib.sha256(blob).hexdigest(), '2025-11-21T00:00:01Z'))
            db.commit()
            """
        let archiveFile = try folder.write(bytes, to: "v1.order")
        let id = SampleVersions.identifier
        let seconds = (try Timestamp(rfc3339: "2025-11-21T00:00:00Z")).secondsSince1970
        let made = try await ExternalProgram.python(
            script, [url.path, archiveFile.path, id.orderTypeIdentifier, id.orderIdentifier, String(seconds)])
        try #require(made.status == 0, "\(made)")

        let store = try SQLiteOrderStore(url: url)
        #expect(try await store.contains(matching: id, updatedDate: "2025-11-21T00:00:00Z") == .exists)
        #expect(try await store.archive(for: id) == bytes)
        #expect(try await store.list(OrderQuery(status: "open")).orders.map(\.identifier) == [id])
        let history = try await store.history(since: nil)
        #expect(history.inserted == [id])
        let newer = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        #expect(try await store.intake().save(signedArchive: newer) == .added)
        #expect(try await store.history(since: history.newToken).updated == [id])
    }

    @Test("backup(to:) writes a consistent copy while the store is in use; the copy opens, passes integrity_check and holds every order")
    func backup() async throws {
        let folder = try TemporaryFolder.ofTest
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        let first = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "B-1")
        let second = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "B-2")
        _ = try await store.intake().save(signedArchives: [first, second])
        let copy = folder.file("backup.sqlite")
        try await store.backup(to: copy)
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
        let check = try await ExternalProgram.python(
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); print(db.execute('PRAGMA integrity_check').fetchone()[0], db.execute('SELECT COUNT(*) FROM orders').fetchone()[0])",
            [copy.path])
        #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok 2")
        let reopened = try SQLiteOrderStore(url: copy)
        #expect(try await reopened.archive(for: SampleVersions.identifier("B-2")) == second)
        let again = await #expect(throws: WalletOrdersError.self) { try await store.backup(to: copy) }
        #expect(again?.code == .storeUnavailable)
    }

    @Test(
        "Lookup connections open as concurrent lookups need them: one lookup at a time holds few descriptors, whatever the cores",
        arguments: [SQLiteOrderStore.Access.readWrite, .readOnly])
    func lookupDescriptors(_ access: SQLiteOrderStore.Access) async throws {
        let folder = try TemporaryFolder.ofTest
        let url = folder.file("orders.sqlite")
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        do {
            let writer = try SQLiteOrderStore(url: url)
            #expect(try await writer.intake().save(signedArchive: bytes) == .added)
            try writer.close()
        }
        // The kernel's count, not ours: the descriptors this process holds on the store's files.
        func descriptors() -> [String] {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
                .filter { $0.hasPrefix(url.path) }
        }
        let store = try SQLiteOrderStore(url: url, access: access)
        let id = SampleVersions.identifier
        for _ in 0..<50 {
            #expect(try await store.contains(matching: id, updatedDate: nil) == .exists)
            #expect(try await store.archive(for: id) == bytes)
        }
        // The writer (file, WAL, shared memory), the pool's reader and one lookup connection (file
        // and WAL each); a store that opened two lookup connections per core held two more
        // descriptors per connection: 13 on two cores, 133 on 32.
        let sequential = descriptors()
        #expect(sequential.count <= (access == .readWrite ? 7 : 3), "\(sequential)")

        // 200 lookups from threads at once: every one answered, on no more connections than the cap.
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { (try? await store.contains(matching: id, updatedDate: nil)) == .exists }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answers == 200)
        #expect(descriptors().count <= sequential.count + 3 * (min(64, max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)) - 1))
        try store.close()
        #expect(descriptors() == [])
    }

    @Test("A store in a folder that doesn't exist gives storeUnavailable")
    func missingFolder() throws {
        let folder = try TemporaryFolder.ofTest
        let error = try #require(throws: WalletOrdersError.self) {
            _ = try SQLiteOrderStore(url: folder.file("missing/orders.sqlite"))
        }
        #expect(error.code == .storeUnavailable)
    }
}

@Suite("OrderStoreDecision is one pure table", .temporaryFolder)
struct OrderStoreDecisionTests {
    @Test("The save decision covers insert, replace, keep and conflict")
    func saveDecision() {
        let a = OrderVersion(updatedAt: "2025-01-01T00:00:00Z", sha256: "aa")
        let b = OrderVersion(updatedAt: "2025-01-01T01:00:00+01:00", sha256: "bb")
        let later = OrderVersion(updatedAt: "2025-01-01T00:00:01Z", sha256: "cc")
        #expect(OrderStoreDecision.save(stored: nil, incoming: a) == .insert)
        #expect(OrderStoreDecision.save(stored: a, incoming: later) == .replace)
        #expect(OrderStoreDecision.save(stored: later, incoming: a) == .keep(.newerExisting))
        #expect(OrderStoreDecision.save(stored: a, incoming: a) == .keep(.added))
        #expect(OrderStoreDecision.save(stored: a, incoming: b) == .conflict(stored: a, incoming: b))
        // Other bytes with the same content digest are a rebuild; an unknown digest compares bytes.
        let signedAgain = OrderVersion(updatedAt: "2025-01-01T00:00:00Z", sha256: "dd", contentDigest: "c1")
        let stored = OrderVersion(updatedAt: "2025-01-01T00:00:00Z", sha256: "ee", contentDigest: "c1")
        let otherFiles = OrderVersion(updatedAt: "2025-01-01T00:00:00Z", sha256: "ff", contentDigest: "c2")
        let legacy = OrderVersion(updatedAt: "2025-01-01T00:00:00Z", sha256: "ee")
        #expect(OrderStoreDecision.save(stored: stored, incoming: signedAgain) == .keep(.added))
        #expect(OrderStoreDecision.save(stored: stored, incoming: otherFiles) == .conflict(stored: stored, incoming: otherFiles))
        #expect(OrderStoreDecision.save(stored: legacy, incoming: signedAgain) == .conflict(stored: legacy, incoming: signedAgain))
    }

    @Test("The store's SHA-256 of an archive matches hashlib")
    func digest() async throws {
        let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let store = InMemoryOrderStore()
        #expect(try await store.intake().save(signedArchive: bytes) == .added)
        // The conflict message names the stored hash; it must be the real SHA-256.
        let other = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", status: "completed")
        let error = try await #require(throws: WalletOrdersError.self) { try await store.intake().save(signedArchive: other) }
        let digest = await SHA256Oracle.hex(bytes)
        #expect(error.message.contains(String(digest.prefix(12))))
    }
}
