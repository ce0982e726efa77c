import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// A push may only leave once the change it announces is visible: the device fetches what changed
/// when the push arrives, so a push sent before the save commits tells it of nothing, and if no
/// other push is queued the change is never announced (a lost push).
///
/// On PostgreSQL a save queues its pushes with `INSERT … ON CONFLICT DO NOTHING` on the waiting
/// row of (token, topic), and another server's worker claims rows with `FOR UPDATE SKIP LOCKED`.
/// Here the save is held between that insert and its commit (a trigger on the change counter's
/// update waits for an advisory lock the test holds) while another store claims pushes.
@Suite(
    "PostgresOrderStore push outbox: a save's push is never claimed before the save commits", .enabled(if: PostgresTestCluster.serverBinaries != nil))
struct PostgresPushOutboxRaceTests {
    static let lockKey = 4242_0012

    @Test("A push waiting for a device is not claimed (and sent) while a save that relies on it is uncommitted")
    func waitingPushNotClaimedBeforeCommit() async throws {
        let cluster = try await PostgresDatabase.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let url = cluster.url(database: database)
        let saver = try await PostgresOrderStore(url: url)
        let worker = try await PostgresOrderStore(url: url)
        let order = SampleVersions.identifier
        #expect(try await saver.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        _ = try await saver.register(deviceIdentifier: "device-1", pushToken: "token-1", for: order)
        // A change whose push is waiting (not claimed yet): the next save finds it and adds none.
        #expect(try await saver.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")) == .added)
        #expect(try await cluster.psql("SELECT count(*) FROM push_outbox WHERE leased_until IS NULL", database: database) == "1")

        // Saves now stop before their commit, after queuing their pushes, while the lock is held.
        try await cluster.psql(
            """
            CREATE FUNCTION pause_before_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock_shared(\(Self.lockKey)); RETURN NEW; END $$;
            CREATE TRIGGER pause_before_commit BEFORE UPDATE ON change_counter
                FOR EACH ROW EXECUTE FUNCTION pause_before_commit();
            """, database: database)
        let name = "hold-\(UUID().uuidString.prefix(8).lowercased())"
        let holder = try await PostgresOrderStoreTests.holdSession(
            cluster, database, name: name, sql: "SELECT pg_advisory_lock(\(Self.lockKey)); SELECT pg_sleep(120);")
        defer { holder.kill() }

        let newest = try SampleVersions.archive(updatedAt: "2025-11-23T00:00:00Z")
        let save = Task { try await saver.intake().save(signedArchive: newest) }
        try await PostgresOrderStoreTests.waitFor(
            cluster, "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock' AND wait_event = 'advisory'")
        // Another server's worker looks for due pushes while the save is uncommitted.
        let early = try await worker.claimPushes(limit: 10, lease: .seconds(60), now: Date())

        try await PostgresOrderStoreTests.releaseLock(cluster, name, holder)
        #expect(try await save.value == .added)
        // A push claimed before the commit is sent before the device could see the change; then
        // another push must be waiting, or the change goes unannounced.
        let waiting = try await cluster.psql("SELECT count(*) FROM push_outbox WHERE leased_until IS NULL", database: database)
        #expect(
            early.isEmpty || waiting == "1",
            "a push was claimed before the save committed (\(early.map(\.pushToken))) and none waits for the change after it")
        let later = try await worker.claimPushes(limit: 10, lease: .seconds(60), now: Date())
        #expect(later.map(\.pushToken) == ["token-1"], "the device's push is claimable once the save committed")
        await saver.close()
        await worker.close()
    }
}
