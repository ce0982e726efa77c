public import Foundation
public import Logging
public import WalletOrders
public import WalletOrdersStore

/// Every store a location can name, with the web service's registrations and push outbox and a
/// compactable history: ``SQLiteOrderStore`` or ``PostgresOrderStore``.
public typealias AnyOrderStore = OrderStoring & PassStoring & DeviceRegistrationStoring & PassRegistrationStoring & PushOutboxStoring
    & DeliveryTrailStoring
    & OrderHistoryCompacting

extension PostgresOrderStore: OrderHistoryCompacting {}

extension OrderStoreLocation {
    /// Opens the store the location names, whichever kind it is: a SQLite file (as
    /// ``OrderStoreLocation/open(access:updatedAtLimit:)``) or a PostgreSQL database.
    ///
    /// - Parameters:
    ///   - access: For SQLite, ``SQLiteOrderStore/Access/readOnly`` opens without creating or
    ///     writing anything; PostgreSQL stores are always opened for reading and writing.
    ///   - environment: Where a PostgreSQL URL's missing parts (`PGPASSWORD`, …) are read.
    ///   - logger: Where postgres-nio logs its background work.
    ///   - updatedAtLimit: How far ahead of the clock an archive's `updatedAt` may be.
    ///   - poolRunner: For PostgreSQL, who runs the connection pool: the store itself, or the
    ///     service group of a server the store is a service of.
    /// - Throws: The errors of ``SQLiteOrderStore`` or
    ///   ``PostgresOrderStore/init(url:environment:logger:updatedAtLimit:poolRunner:taskExecutor:)``.
    public func openStore(
        access: SQLiteOrderStore.Access = .readWrite,
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger? = nil,
        updatedAtLimit: UpdatedAtLimit = .default, poolRunner: PostgresOrderStore.PoolRunner = .store
    ) async throws -> any AnyOrderStore {
        switch backend {
        case .sqlite:
            return try open(access: access, updatedAtLimit: updatedAtLimit)
        case .postgreSQL:
            return try await PostgresOrderStore(
                url: url, environment: environment, logger: logger, updatedAtLimit: updatedAtLimit, poolRunner: poolRunner)
        }
    }
}
