import Testing
import WalletOrdersPostgres
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestSupport

/// The stores a live-service test runs on: the embedded SQLite store and PostgreSQL (the
/// throwaway cluster `make test` starts).
enum ServiceStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// The kinds this machine can run (PostgreSQL where its server binaries are installed).
    static var available: [ServiceStore] { PostgresTestCluster.serverBinaries == nil ? [.sqlite] : allCases }

    /// Runs `body` with a fresh, empty store of this kind, then closes and removes it.
    func withStore<T>(_ body: (any OrderServiceStore) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder("service-store")
            defer { folder.remove() }
            let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
            defer { try? store.close() }
            return try await body(store)
        case .postgres:
            guard let cluster = PostgresTestCluster.shared else {
                throw PostgresTestCluster.StartFailed(description: PostgresTestCluster.unavailableReason ?? "no PostgreSQL cluster")
            }
            // psql runs on a thread of its own: these suites run on the few dedicated threads,
            // and a CREATE or DROP DATABASE waited for there holds up every service on them.
            let database = try await onOwnThread { try cluster.makeDatabase() }
            do {
                // The store's own tasks (each call's lease) run where the services under test
                // do: on Swift's default executor, tests computing for seconds held them up, and
                // a request waited out the test client's 20 s deadline.
                let store = try await PostgresOrderStore(url: cluster.url(database: database), taskExecutor: DedicatedExecutor.shared)
                let result: T
                do {
                    result = try await body(store)
                    await store.close()
                } catch {
                    await store.close()
                    throw error
                }
                _ = try? await onOwnThread { cluster.dropDatabase(database) }
                return result
            } catch {
                _ = try? await onOwnThread { cluster.dropDatabase(database) }
                throw error
            }
        }
    }
}
