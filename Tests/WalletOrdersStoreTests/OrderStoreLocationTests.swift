import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestSupport

@Suite("OrderStoreLocation: a path or a store URL, the same everywhere")
struct OrderStoreLocationTests {
    /// (given, backend, path or URL the location holds).
    static let acceptedRows: [(String, OrderStoreLocation.Backend, String)] = [
        ("orders.sqlite", .sqlite, FileManager.default.currentDirectoryPath + "/orders.sqlite"),
        ("/var/lib/orders.sqlite", .sqlite, "/var/lib/orders.sqlite"),
        ("sqlite:/var/lib/orders.sqlite", .sqlite, "/var/lib/orders.sqlite"),
        ("sqlite:///var/lib/orders.sqlite", .sqlite, "/var/lib/orders.sqlite"),
        ("SQLite:relative.sqlite", .sqlite, FileManager.default.currentDirectoryPath + "/relative.sqlite"),
        ("postgres://wallet@db.internal:5432/orders", .postgreSQL, "postgres://wallet@db.internal:5432/orders"),
        ("postgresql://wallet@/orders?host=/run/postgresql", .postgreSQL, "postgresql://wallet@/orders?host=/run/postgresql"),
    ]

    @Test("Paths, sqlite: and postgres:// URLs name their kind of store", arguments: acceptedRows)
    func accepted(text: String, backend: OrderStoreLocation.Backend, expected: String) throws {
        let location = try OrderStoreLocation.parse(text)
        #expect(location.backend == backend)
        #expect((backend == .sqlite ? location.url.path : location.url.absoluteString) == expected)
        #expect(location.source == .explicit)
    }

    /// (given, words the message must contain).
    static let refusedRows: [(String, String)] = [
        ("mysql://localhost/orders", "is a mysql URL"),
        ("redis://cache:6379", "is a redis URL"),
        ("sqlite://otherhost/orders.sqlite", "names a host"),
        ("sqlite:", "names no file"),
        ("postgres://db:notaport/orders", "not a valid PostgreSQL URL"),
    ]

    @Test("Other schemes and broken URLs are refused with invalid-configuration and the accepted forms", arguments: refusedRows)
    func refused(text: String, message: String) throws {
        let error = try #require(throws: WalletOrdersError.self) { try OrderStoreLocation.parse(text) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.hint?.contains("postgres://") == true || error.hint?.contains("sqlite:") == true)
    }

    @Test("WALLET_ORDERS_STORE may hold a URL; its password never appears in the display name")
    func environment() throws {
        let location = try OrderStoreLocation.resolve(
            environment: ["WALLET_ORDERS_STORE": "postgres://wallet:s3cret@db:5432/orders", "HOME": "/home/x"])
        #expect(location.backend == .postgreSQL)
        #expect(location.source == .environment)
        #expect(location.displayName == "postgres://wallet@db:5432/orders")
        let opened = #expect(throws: WalletOrdersError.self) { try location.open() }
        #expect(opened?.code == .invalidConfiguration)
        #expect(opened?.hint?.contains("WalletOrdersPostgres") == true)
    }
}
