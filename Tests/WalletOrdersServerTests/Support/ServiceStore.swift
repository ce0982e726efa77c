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
            let cluster = try await PostgresTestCluster.shared()
            let database = try await cluster.makeDatabase()
            do {
                let store = try await PostgresOrderStore(url: cluster.url(database: database))
                let result: T
                do {
                    result = try await body(store)
                    await store.close()
                } catch {
                    await store.close()
                    throw error
                }
                cluster.dropDatabase(database)
                return result
            } catch {
                cluster.dropDatabase(database)
                throw error
            }
        }
    }
}
