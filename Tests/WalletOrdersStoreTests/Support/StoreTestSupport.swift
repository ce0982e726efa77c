import Foundation
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport
import WalletPasses

/// The stores every contract test runs against, through ``OrderStoring``: in memory, SQLite and
/// PostgreSQL (a database of its own in the test process's throwaway cluster,
/// ``PostgresTestCluster``). PostgreSQL is left out only when its server binaries are not
/// installed, which ``PostgresTestCluster/serverBinaries`` announces on stderr.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var allCases: [StoreKind] {
        PostgresTestCluster.serverBinaries == nil ? [.inMemory, .sqlite] : [.inMemory, .sqlite, .postgres]
    }

    /// The stores that also keep the web service's registrations and push outbox.
    static var webServiceCases: [StoreKind] { allCases.filter { $0 != .inMemory } }

    /// A fresh, empty store; `body` gets it, and any temporary folder or database is removed
    /// afterwards. Tests save signed archives through `store.intake()` (the test root trusted).
    func withStore<T>(
        updatedAtLimit: UpdatedAtLimit = .default,
        _ body: (any OrderStoring) async throws -> T
    ) async throws -> T {
        switch self {
        case .inMemory:
            return try await body(InMemoryOrderStore(updatedAtLimit: updatedAtLimit))
        case .sqlite, .postgres:
            return try await withWebServiceStore(updatedAtLimit: updatedAtLimit) { try await body($0) }
        }
    }

    /// A fresh, empty store with passes, registrations and the push outbox (SQLite or PostgreSQL).
    func withWebServiceStore<T>(
        updatedAtLimit: UpdatedAtLimit = .default,
        _ body: (any OrderStoring & PassStoring & PassRegistrationStoring & DeviceRegistrationStoring & PushOutboxStoring & DeliveryTrailStoring)
            async throws -> T
    ) async throws -> T {
        switch self {
        case .inMemory:
            throw PostgresTestCluster.StartFailed(description: "the in-memory store keeps no registrations")
        case .sqlite:
            let folder = try TemporaryFolder("store")
            defer { folder.remove() }
            // Closed here, not whenever the last reference goes: a test process opening hundreds
            // of stores must not keep their descriptors.
            let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"), updatedAtLimit: updatedAtLimit)
            defer { try? store.close() }
            return try await body(store)
        case .postgres:
            let cluster = try await PostgresDatabase.cluster()
            let database = try await cluster.makeDatabase()
            defer { cluster.dropDatabase(database) }
            let store = try await PostgresOrderStore(
                url: cluster.url(database: database), updatedAtLimit: updatedAtLimit)
            do {
                let result = try await body(store)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }
}

/// The test process's PostgreSQL cluster, or the reason there is none.
enum PostgresDatabase {
    static func cluster() async throws -> PostgresTestCluster {
        try await PostgresTestCluster.shared()
    }
}

/// Records what confirmation handlers were asked.
actor ProposalRecorder {
    private(set) var proposals: [SaveProposal] = []
    func record(_ proposal: SaveProposal) { proposals.append(proposal) }
}

/// SHA-256 from Python's hashlib, an oracle independent of the store's own digest.
enum SHA256Oracle {
    static func hex(_ bytes: [UInt8]) async -> String {
        let hexBytes = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let result = try! await ExternalProgram.python(
            "import hashlib, sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1])).hexdigest())", [hexBytes])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
