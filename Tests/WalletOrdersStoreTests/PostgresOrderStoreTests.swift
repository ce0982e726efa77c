import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// What only the PostgreSQL store has: a server to reach, credentials, TLS, migrations shared by
/// many servers, and an outbox drained by several of them. The contract itself is tested for
/// every store by the parameterized suites (OrderStoreContractTests, …).
@Suite(
    "PostgresOrderStore: URLs, connections, migrations and many servers", .enabled(if: PostgresTestCluster.serverBinaries != nil))
struct PostgresOrderStoreTests {
    /// A fresh database in the test cluster, dropped afterwards.
    static func withDatabase<T>(_ body: (PostgresTestCluster, String) async throws -> T) async throws -> T {
        let cluster = try await PostgresDatabase.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        return try await body(cluster, database)
    }

    /// Starts `psql` holding the write lock (the change counter's row) until ``releaseLock(_:_:)``,
    /// and returns once the server shows it holding the lock.
    static func holdWriteLock(_ cluster: PostgresTestCluster, _ database: String, name: String) async throws -> BackgroundProgram {
        try await holdSession(
            cluster, database, name: name,
            sql: "BEGIN; SELECT last_sequence FROM change_counter FOR UPDATE; SELECT pg_sleep(120); COMMIT;")
    }

    /// Starts `psql` as application `name` running `sql`, which ends in `pg_sleep`, and returns once
    /// the server shows it sleeping (so whatever `sql` took before, it holds).
    static func holdSession(_ cluster: PostgresTestCluster, _ database: String, name: String, sql: String) async throws -> BackgroundProgram {
        let holder = try await BackgroundProgram(
            tool: "env",
            [
                "PGAPPNAME=\(name)", "psql", "-X", "-q", "-h", cluster.folder.path, "-p", String(cluster.port), "-U", "postgres",
                "-d", database, "-c", sql,
            ])
        try await waitFor(
            cluster, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND query LIKE '%pg_sleep%' AND state = 'active'")
        return holder
    }

    /// Ends the lock holder's session.
    static func releaseLock(_ cluster: PostgresTestCluster, _ name: String, _ holder: BackgroundProgram) async throws {
        try await cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
        try await holder.wait()
    }

    /// Polls `sql` (a count) until it is at least 1, for up to 3 minutes (seconds alone; a full
    /// run on two loaded cores has taken over a minute to open the store's first connection).
    static func waitFor(_ cluster: PostgresTestCluster, _ sql: String) async throws {
        for _ in 0..<1_800 {
            if let count = await Int(try cluster.psql(sql)), count >= 1 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PostgresTestCluster.StartFailed(description: "timed out waiting for: \(sql)")
    }

    /// A service that saves through `store` while the group runs, waits for the group's
    /// graceful shutdown, and then reads the store again: the store, listed before it, must
    /// still answer.
    final class SavingService: Service {
        let store: PostgresOrderStore
        let readAfterShutdown = Mutex<Int?>(nil)

        init(store: PostgresOrderStore) { self.store = store }

        func run() async throws {
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            try? await gracefulShutdown()
            let count = try await store.count()
            readAfterShutdown.withLock { $0 = count }
        }
    }

    @Test("A pool run by a service group runs while the group does and stops at its graceful shutdown, after the services listed after it")
    func poolInServiceGroup() async throws {
        try await Self.withDatabase { cluster, database in
            let store = try await PostgresOrderStore(url: cluster.url(database: database), poolRunner: .serviceGroup)
            let saving = SavingService(store: store)
            let group = ServiceGroup(services: [store, saving], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // Once the save is in, shut the group down.
                for _ in 0..<600 where (try? await store.count()) != 1 { try await Task.sleep(for: .milliseconds(100)) }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(saving.readAfterShutdown.withLock { $0 } == 1, "the store answered after the service listed after it was told to stop")
            // The pool has stopped with the group: a call now fails, it doesn't hang.
            let error = await #expect(throws: WalletOrdersError.self) { _ = try await store.count() }
            #expect(error?.code == .storeUnavailable)
            await store.close()  // does nothing for a pool the group ran
        }
    }

    @Test(
        "A store given a task executor answers its calls while every thread of Swift's default executor is kept busy (a neighbour computing without pause)"
    )
    func answersWhileTheDefaultExecutorIsBusy() async throws {
        try await Self.withDatabase { cluster, database in
            let executor = OwnThreadExecutor()
            defer { executor.finish() }
            let store = try await PostgresOrderStore(url: cluster.url(database: database), taskExecutor: executor)
            try await withTaskExecutorPreference(executor) {
                #expect(try await store.summary(for: SampleVersions.identifier) == nil)  // the pool has a connection
                let neighbour = BusyNeighbour()
                neighbour.occupyDefaultExecutor()
                let answer: StoredOrderSummary?
                do {
                    answer = try await store.summary(for: SampleVersions.identifier)
                } catch {
                    _ = neighbour.stop()
                    throw error
                }
                let stillBusy = neighbour.stop()
                #expect(answer == nil)
                #expect(stillBusy, "the call answered only once the default executor's threads were free again")
            }
            await store.close()
        }
    }

    @Test("Four servers opening a new database at once migrate it once and share one store")
    func concurrentMigrations() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let stores = try await withThrowingTaskGroup(of: PostgresOrderStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresOrderStore(url: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(stores.count == 4)
            #expect(try await cluster.psql("SELECT count(*) FROM wallet_orders_migrations", database: database) == "9")
            // One store: what one server saves, another sees, and their history tokens are interchangeable.
            #expect(try await stores[0].intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            #expect(try await stores[1].contains(matching: SampleVersions.identifier, updatedDate: "2025-11-21T00:00:00Z") == .exists)
            let token = try await stores[2].history(since: nil).newToken
            _ = try await stores[3].intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
            #expect(try await stores[0].history(since: token).updated == [SampleVersions.identifier])
            for store in stores { await store.close() }
        }
    }

    @Test("Three servers saving interleaved versions of the same orders: the newest wins, and the history has every change once, in order")
    func manyServersSaving() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            var stores: [PostgresOrderStore] = []
            for _ in 0..<3 { stores.append(try await PostgresOrderStore(url: url)) }
            let versions = try (0..<6).map { try SampleVersions.archive(updatedAt: "2025-11-21T00:00:0\($0)Z") }
            let start = try await stores[0].history(since: nil).newToken
            let results = try await withThrowingTaskGroup(of: [SaveOrderResult].self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        var results: [SaveOrderResult] = []
                        for step in 0..<6 { results.append(try await store.intake().save(signedArchive: versions[(index * 2 + step) % 6])) }
                        return results
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(results.count == 18)
            #expect(try await stores[1].archive(for: SampleVersions.identifier) == versions[5])
            // The change log, read by an independent client: sequence numbers without gaps, and
            // every replacement moving updatedAt forward (no lost update, no duplicate).
            let log = try await cluster.psql("SELECT string_agg(sequence::text, ',' ORDER BY sequence) FROM changes", database: database)
            let sequences = log.split(separator: ",").compactMap { Int($0) }
            #expect(sequences == Array(1...sequences.count))
            // Each write moves updatedAt forward, so there are at most six: one insert, then updates.
            #expect((1...6).contains(sequences.count))
            let kinds = try await cluster.psql("SELECT string_agg(kind, ',' ORDER BY sequence) FROM changes", database: database)
            #expect(kinds == (["inserted"] + Array(repeating: "updated", count: sequences.count - 1)).joined(separator: ","))
            #expect(try await stores[2].history(since: start).inserted == [SampleVersions.identifier])
            for store in stores { await store.close() }
        }
    }

    @Test("A schema from a newer wallet-orders is refused with store-too-new and left untouched")
    func schemaTooNew() async throws {
        try await Self.withDatabase { cluster, database in
            let store = try await PostgresOrderStore(url: cluster.url(database: database))
            await store.close()
            try await cluster.psql("INSERT INTO wallet_orders_migrations (version, name) VALUES (99, 'v99-from-the-future')", database: database)
            let error = try await #require(throws: WalletOrdersError.self) {
                _ = try await PostgresOrderStore(url: cluster.url(database: database))
            }
            #expect(error.code == .storeTooNew)
            #expect(error.message.contains("v99-from-the-future"))
            #expect(error.hint?.contains("newer wallet-orders") == true)
            #expect(try await cluster.psql("SELECT count(*) FROM wallet_orders_migrations", database: database) == "10")
        }
    }

    @Test("An unreachable server fails at once with store-unavailable naming the address")
    func unreachable() async throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused.
        let started = ContinuousClock.now
        let error = try await #require(throws: WalletOrdersError.self) {
            _ = try await PostgresOrderStore(url: URL(string: "postgres://postgres:secret-pw@127.0.0.1:1/orders?connect_timeout=3")!)
        }
        #expect(error.code == .storeUnavailable)
        #expect(error.message.contains("127.0.0.1:1"))
        #expect(!error.message.contains("secret-pw"))
        #expect(error.hint?.contains("accepts connections") == true)
        // It failed on connecting (refused), not by waiting for a pooled connection or the pool's
        // 60-second circuit breaker. (No wall-clock bound: the full suite's blocking tests can
        // start this task late on 2 cores.)
        #expect(error.message.contains("cannot reach 127.0.0.1:1"), "\(error.message)")
        _ = started
    }

    @Test("Wrong credentials give store-access-denied, and the password is never shown")
    func wrongPassword() async throws {
        let cluster = try await PostgresDatabase.cluster()
        let error = try await #require(throws: WalletOrdersError.self) {
            _ = try await PostgresOrderStore(url: cluster.url(database: "postgres", password: "not-the-password"))
        }
        #expect(error.code == .storeAccessDenied)
        #expect(error.message.contains("'postgres'"))
        #expect(!error.message.contains("not-the-password"))
        #expect(!(error.hint ?? "").contains("not-the-password"))
        #expect(error.hint?.contains("PGPASSWORD") == true)

        let none = try await #require(throws: WalletOrdersError.self) {
            _ = try await PostgresOrderStore(
                url: URL(string: "postgres://postgres@\(cluster.host):\(cluster.port)/postgres")!, environment: [:])
        }
        #expect(none.code == .storeAccessDenied)
        #expect(none.message.contains("none was given"))
    }

    @Test("A database that doesn't exist gives store-unavailable with a createdb hint")
    func missingDatabase() async throws {
        let cluster = try await PostgresDatabase.cluster()
        let error = try await #require(throws: WalletOrdersError.self) {
            _ = try await PostgresOrderStore(url: cluster.url(database: "no_such_database"))
        }
        #expect(error.code == .storeUnavailable)
        #expect(error.message.contains("'no_such_database' does not exist"))
        #expect(error.hint?.contains("createdb no_such_database") == true)
    }

    /// Store URLs that are refused before any connection, and a word the message must contain.
    static let badURLs: [(String, String)] = [
        ("postgres://u@localhost/db?sslmod=require", "unknown parameter 'sslmod'"),
        ("postgres://u@localhost/db?sslmode=sometimes", "sslmode 'sometimes'"),
        ("postgres://u@localhost/db?connect_timeout=soon", "connect_timeout 'soon'"),
        ("postgres://u@localhost/db?pool_max_conns=0", "pool_max_conns '0'"),
        ("postgres://u@localhost/db?host=relative/dir", "not a folder path"),
        ("postgres://u@localhost/db/extra", "not a database name"),
        ("postgres://u@localhost/db?sslmode=verify-full&sslrootcert=/no/such/ca.pem", "can't be read"),
    ]

    @Test("Bad store URLs are refused with invalid-configuration and a hint", arguments: badURLs)
    func badURL(text: String, expected: String) throws {
        let error = try #require(throws: WalletOrdersError.self) {
            _ = try PostgresStoreConfiguration(url: URL(string: text)!, environment: [:])
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(expected), "\(error.message)")
        let hint = try #require(error.hint)
        #expect(hint.count > 20, "a hint says what to do: \(hint)")
        #expect(!hint.contains(":secret@") && !error.message.contains(":secret@"), "no password shown")
    }

    @Test("A URL's parts and libpq's variables fill the configuration; the redacted URL has no password")
    func configuration() throws {
        let full = try PostgresStoreConfiguration(
            url: URL(string: "postgresql://wallet:p%40ss@db.example:6543/orders?sslmode=verify-full&statement_timeout=5000&pool_max_conns=4")!,
            environment: [:])
        #expect(full.host == "db.example")
        #expect(full.port == 6543)
        #expect(full.username == "wallet")
        #expect(full.password == "p@ss")
        #expect(full.database == "orders")
        #expect(full.tlsMode == .verifyFull)
        #expect(full.statementTimeout == .seconds(5))
        #expect(full.maximumConnections == 4)
        #expect(full.redactedURL == "postgres://wallet@db.example:6543/orders")
        let defaults = try PostgresStoreConfiguration(
            url: URL(string: "postgres:///")!, environment: ["PGHOST": "/run/pg", "PGUSER": "app", "PGPASSWORD": "env-secret"])
        #expect(defaults.unixSocketPath == "/run/pg/.s.PGSQL.5432")
        #expect(defaults.username == "app")
        #expect(defaults.password == "env-secret")
        #expect(defaults.database == "app")
        #expect(defaults.tlsMode == .prefer)
    }

    @Test("TLS: verify-full with the server's certificate connects over TLS; without that root it fails with a TLS hint")
    func tls() async throws {
        try await Self.withDatabase { cluster, database in
            let name = "tls-\(UUID().uuidString.prefix(8).lowercased())"
            let url = cluster.url(
                database: database,
                parameters: "sslmode=verify-full&sslrootcert=\(cluster.certificate.path)&application_name=\(name)")
            let store = try await PostgresOrderStore(url: URL(string: url.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!)
            #expect(try await store.contains(matching: SampleVersions.identifier) == .notFound)
            // The server's own view of the pooled connection, asked by psql.
            let ssl = try await cluster.psql(
                "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid WHERE a.application_name = '\(name)'")
            #expect(ssl == "t")
            await store.close()

            let untrusted = try await #require(throws: WalletOrdersError.self) {
                _ = try await PostgresOrderStore(url: cluster.url(database: database, parameters: "sslmode=verify-full"))
            }
            #expect(untrusted.code == .storeUnavailable)
            #expect(untrusted.hint?.contains("sslrootcert") == true, "\(untrusted)")
        }
    }

    @Test("A Unix socket URL (host=FOLDER) connects without a password")
    func unixSocket() async throws {
        try await Self.withDatabase { cluster, database in
            let store = try await PostgresOrderStore(url: cluster.socketURL(database: database), environment: [:])
            #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
            #expect(try await store.count() == 1)
            await store.close()
        }
    }

    @Test("Two servers draining one outbox at once never claim the same push (FOR UPDATE SKIP LOCKED leases)")
    func outboxWithTwoWorkers() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let first = try await PostgresOrderStore(url: url)
            let second = try await PostgresOrderStore(url: url)
            _ = try await first.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            for device in 0..<60 {
                _ = try await first.register(deviceIdentifier: "device-\(device)", pushToken: "token-\(device)", for: SampleVersions.identifier)
            }
            _ = try await second.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
            #expect(try await first.outboxStatus(now: Date()).pending == 60)
            let now = Date()
            let claims = try await withThrowingTaskGroup(of: [PendingPush].self) { group in
                for store in [first, second, first, second] {
                    group.addTask {
                        var mine: [PendingPush] = []
                        while true {
                            let batch = try await store.claimPushes(limit: 7, lease: .seconds(60), now: now)
                            if batch.isEmpty { return mine }
                            mine += batch
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == 60)
            #expect(Set(all.map(\.id)).count == 60, "no push claimed twice")
            #expect(Set(all.map(\.pushToken)) == Set((0..<60).map { "token-\($0)" }))
            #expect(all.allSatisfy { $0.attempts == 1 })
            await first.close()
            await second.close()
        }
    }
    /// `task`'s answer, or `nil` when it has none within `limit` (the task is left running): a
    /// test of a call that once never returned must not wait forever itself.
    static func answer<T: Sendable>(of task: Task<T, any Error>, within limit: Duration) async -> Result<T, any Error>? {
        let first = FirstAnswer<T>()
        return await withCheckedContinuation { continuation in
            first.continuation.withLock { $0 = continuation }
            Task { first.resume(await task.result) }
            Task {
                try? await Task.sleep(for: limit)
                first.resume(nil)
            }
        }
    }

    // Before ConnectionWatch, about one run in ten of this test never returned: the restart cut
    // a save's connection mid-transaction, and postgres-nio's ROLLBACK, written to the closed
    // channel, was never answered. `connectionEndedMidSave` aims at that case directly (without
    // the watch it never answered in one run of five: whether the ROLLBACK is written before or
    // after the channel closes is a race inside postgres-nio).
    @Test(
        "The server restarts during a run of saves: saves fail with store-unavailable meanwhile, none acknowledged is lost, the pool reconnects")
    func restartDuringSaves() async throws {
        let cluster = try await PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let database = try await cluster.makeDatabase()
        let store = try await PostgresOrderStore(
            url: cluster.url(database: database, parameters: "pool_timeout=3&connect_timeout=2"))
        let versions = try (0..<30).map {
            try SampleVersions.archive(updatedAt: String(format: "2025-11-21T00:%02d:00Z", $0))
        }
        let restarter = Task.detached {
            try await Task.sleep(for: .milliseconds(400))
            try await cluster.restart()
        }
        var acknowledged: [Int] = []
        var failures: [WalletOrdersError] = []
        for (index, archive) in versions.enumerated() {
            do {
                if try await store.intake().save(signedArchive: archive) == .added { acknowledged.append(index) }
            } catch let error as WalletOrdersError {
                failures.append(error)
            }
            try await Task.sleep(for: .milliseconds(40))
        }
        try await restarter.value
        #expect(acknowledged.count + failures.count == versions.count, "every save answered added or failed")
        #expect(failures.allSatisfy { $0.code == .storeUnavailable }, "\(failures.map(\.message))")
        let last = try #require(acknowledged.last)
        // Saves go forward: what is stored is the last acknowledged version, or a later one whose answer was lost.
        let stored = try #require(try await store.summary(for: SampleVersions.identifier))
        #expect(stored.updatedAt >= (try Timestamp(rfc3339: String(format: "2025-11-21T00:%02d:00Z", last))))
        // After the restart the pool reconnects by itself.
        let next = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        #expect(try await store.intake().save(signedArchive: next) == .added)
        #expect(try await cluster.psql("SELECT updated_at_text FROM orders", database: database) == "2025-11-22T00:00:00Z")
        await store.close()
    }

    @Test(
        "The server ends a save's connection while the save waits inside its transaction: the save fails at once with store-unavailable, and the next one goes through"
    )
    func connectionEndedMidSave() async throws {
        try await Self.withDatabase { cluster, database in
            let name = "ended-\(UUID().uuidString.prefix(8).lowercased())"
            let store = try await PostgresOrderStore(
                url: cluster.url(database: database, parameters: "application_name=\(name)"))
            // Another client holds the write lock, so the save waits inside its transaction.
            let holder = try await Self.holdWriteLock(cluster, database, name: "\(name)-holder")
            let first = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            let save = Task { try await store.intake().save(signedArchive: first) }
            try await Self.waitFor(
                cluster, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND wait_event_type = 'Lock'")
            try await cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            let answer = await Self.answer(of: save, within: .seconds(30))
            let error = try #require(answer.map { result in Result { try result.get() } }, "the save never answered")
            switch error {
            case .success(let result):
                Issue.record("a save whose connection was ended answered \(result)")
            case .failure(let failure):
                let failure = try #require(failure as? WalletOrdersError, "\(failure)")
                #expect(failure.code == .storeUnavailable)
                #expect(failure.message.contains(database), "\(failure.message)")
            }
            try await Self.releaseLock(cluster, "\(name)-holder", holder)
            #expect(try await cluster.psql("SELECT count(*) FROM orders", database: database) == "0", "nothing of the ended save was written")
            #expect(try await store.intake().save(signedArchive: first) == .added, "the pool makes a new connection")
            await store.close()
        }
    }

    @Test("With every pooled connection busy, a call fails after pool_timeout with store-unavailable and a hint")
    func poolExhaustion() async throws {
        try await Self.withDatabase { cluster, database in
            let name = "pool-\(UUID().uuidString.prefix(8).lowercased())"
            let store = try await PostgresOrderStore(
                url: cluster.url(
                    database: database, parameters: "pool_max_conns=1&pool_timeout=3&statement_timeout=100000&application_name=\(name)"))
            // Another client holds the write lock, so a save holds the pool's only connection while it waits.
            // (pool_timeout 3 s, not 1: on a loaded machine the save's own later requests need the slack.)
            let holder = try await Self.holdWriteLock(cluster, database, name: "\(name)-holder")
            let bytes = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
            async let saved = store.intake().save(signedArchive: bytes)
            try await Self.waitFor(
                cluster, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND wait_event_type = 'Lock'")
            let error = try await #require(throws: WalletOrdersError.self) {
                _ = try await store.contains(matching: SampleVersions.identifier)
            }
            #expect(error.code == .storeUnavailable)
            #expect(error.message.contains("all 1 pooled connections stayed busy"), "\(error.message)")
            #expect(error.hint?.contains("pool_max_conns") == true)
            // The waiting save goes through once the lock is released, and the pool serves again.
            try await Self.releaseLock(cluster, "\(name)-holder", holder)
            #expect(try await saved == .added)
            #expect(try await store.contains(matching: SampleVersions.identifier) == .exists)
            await store.close()
        }
    }

    @Test("A statement that waits past statement_timeout is cancelled: store-unavailable, nothing written")
    func statementTimeout() async throws {
        try await Self.withDatabase { cluster, database in
            let name = "timeout-\(UUID().uuidString.prefix(8).lowercased())"
            let store = try await PostgresOrderStore(
                url: cluster.url(database: database, parameters: "statement_timeout=300"))
            let holder = try await Self.holdWriteLock(cluster, database, name: name)
            let error = try await #require(throws: WalletOrdersError.self) {
                try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            }
            #expect(error.code == .storeUnavailable)
            #expect(error.message.contains("statement_timeout"))
            try await Self.releaseLock(cluster, name, holder)
            await store.close()
            #expect(try await cluster.psql("SELECT count(*) FROM orders", database: database) == "0")
        }
    }
}

/// The first of several answers to one continuation.
private final class FirstAnswer<T: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
    func resume(_ value: Result<T, any Error>?) { continuation.withLock { $0.take() }?.resume(returning: value) }
}

/// Keeps every thread of Swift's default executor computing, without a suspension point, until
/// ``stop()`` or 10 seconds.
final class BusyNeighbour: Sendable {
    private let stopped = Atomic(false)
    private let running = Atomic(0)
    private let deadline = ContinuousClock.now + .seconds(10)
    private let spinners = 64

    /// Starts more spinning jobs than the executor has threads, and returns once the threads it has
    /// have all taken one (none started for 200 ms while some still wait). Blocks its thread.
    func occupyDefaultExecutor() {
        for _ in 0..<spinners {
            Task.detached { [self] in
                running.add(1, ordering: .relaxed)
                while !stopped.load(ordering: .relaxed) && ContinuousClock.now < deadline {}
            }
        }
        var seen = -1
        while running.load(ordering: .relaxed) != seen || seen < ProcessInfo.processInfo.activeProcessorCount {
            seen = running.load(ordering: .relaxed)
            usleep(200_000)
        }
    }

    /// Lets the jobs end; returns whether they were still spinning (the deadline not yet passed).
    func stop() -> Bool {
        stopped.store(true, ordering: .relaxed)
        return ContinuousClock.now < deadline
    }
}
