import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders store …` and `wallet-orders serve` on a PostgreSQL store named by its URL, in
/// the test process's throwaway cluster.
@Suite("wallet-orders on a PostgreSQL store (postgres:// URLs)", .enabled(if: PostgresTestCluster.serverBinaries != nil))
struct PostgresStoreEndToEndTests {
    static let order = [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier]
    static let key = "merchant-key-0123456789abcdef"

    static func cluster() throws -> PostgresTestCluster {
        guard let cluster = PostgresTestCluster.shared else {
            throw FixtureError(description: PostgresTestCluster.unavailableReason ?? "no PostgreSQL cluster")
        }
        return cluster
    }

    @Test("store save, contains, get, list, history and delete answer on a postgres:// store given in WALLET_ORDERS_STORE")
    func storeCommands() throws {
        let cluster = try Self.cluster()
        let database = try cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["WALLET_ORDERS_STORE": cluster.url(database: database).absoluteString]
        func store(_ arguments: [String]) throws -> ProgramResult {
            try CLI.run(["store"] + arguments, environment: environment)
        }
        let older = try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let newer = try StoreFixtures.archive(updatedAt: "2025-11-22T00:00:00Z")
        let saved = try store(["save", older.path, newer.path, older.path, "--json"] + (try StoreFixtures.trustArguments()))
        #expect(saved.status == 0, "\(saved)")
        let results = try saved.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["result"] as? String
        }
        #expect(results == ["added", "added", "newerExisting"])

        #expect(try store(["contains"] + Self.order + ["--updated-date", "2025-11-22T00:00:00Z"]).status == 0)
        #expect(try store(["contains"] + Self.order + ["--updated-date", "2025-11-21T00:00:00Z"]).status == 11)
        let out = folder.file("fetched.order")
        let get = try store(["get"] + Self.order + ["--out", out.path])
        #expect(get.status == 0, "\(get)")
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: newer)))
        let list = try store(["list", "--json"])
        #expect(list.status == 0, "\(list)")
        #expect(list.output.contains(Repository.shippedOrderIdentifier))
        let history = try store(["history"])
        #expect(history.status == 0, "\(history)")
        #expect(history.output.contains("+ \(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"), "\(history)")
        #expect(try store(["compact-history", "--keep", "0"]).status == 0)
        #expect(try store(["delete"] + Self.order).status == 0)
        #expect(try store(["contains"] + Self.order).status == 10)
        // An independent client sees what the tool did.
        #expect(try cluster.psql("SELECT count(*) FROM orders", database: database) == "0")
        #expect(try cluster.psql("SELECT count(*) FROM changes", database: database) == "1", "the delete, after compaction")
    }

    @Test("--store postgres://… with a password is refused (the process list is public); without one, PGPASSWORD supplies it")
    func passwordOnTheCommandLine() throws {
        let cluster = try Self.cluster()
        let database = try cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let withPassword = try CLI.run(["store", "list", "--store", cluster.url(database: database).absoluteString])
        #expect(withPassword.status == 1, "\(withPassword)")
        #expect(withPassword.errorOutput.contains("holds a password"))
        #expect(withPassword.errorOutput.contains("hint: Put the URL in WALLET_ORDERS_STORE"))
        #expect(!withPassword.errorOutput.contains(cluster.password))

        let url = "postgres://postgres@\(cluster.host):\(cluster.port)/\(database)"
        let listed = try CLI.run(["store", "list", "--store", url], environment: ["PGPASSWORD": cluster.password])
        #expect(listed.status == 0, "\(listed)")
        let wrong = try CLI.run(["store", "list", "--store", url], environment: ["PGPASSWORD": "wrong-password-123"])
        #expect(wrong.status == 1)
        #expect(wrong.errorOutput.contains("refused the credentials of 'postgres'"), "\(wrong)")
        #expect(!wrong.errorOutput.contains("wrong-password-123"))
    }

    @Test("Unusable store locations fail with one error line and a hint", arguments: [
        ("postgres://postgres@127.0.0.1:1/orders", "cannot reach 127.0.0.1:1"),
        ("mysql://localhost/orders", "is a mysql URL"),
        ("postgres://postgres@localhost/orders?sslmode=maybe", "sslmode 'maybe'"),
    ])
    func badLocations(location: String, message: String) throws {
        let result = try CLI.run(["store", "list", "--store", location], environment: ["PGPASSWORD": ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("hint: "), "\(result.errorOutput)")
    }

    @Test("Two `serve` instances on one PostgreSQL store: an upload to one is served by the other")
    func twoServers() throws {
        let cluster = try Self.cluster()
        let database = try cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = [
            "WALLET_ORDERS_STORE": cluster.url(database: database).absoluteString, "WALLET_ORDERS_API_KEYS": Self.key,
        ]
        let first = try RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-1")
        let second = try RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-2")
        #expect(first.child.errorOutput.contains("(store postgres://postgres@127.0.0.1:\(cluster.port)/\(database))"))
        #expect(!first.child.errorOutput.contains(cluster.password))

        let archive = try StoreFixtures.archive(updatedAt: "2025-11-23T00:00:00Z")
        let upload = try HTTPClient.request(
            "POST", "\(first.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"],
            body: try Data(contentsOf: archive))
        #expect(upload.status == 200, "\(String(decoding: upload.body, as: UTF8.self))")
        #expect(upload.json["result"] as? String == "added")
        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let fetched = try HTTPClient.request(
            "GET", "\(second.baseURL)/v1/orders/\(order)", headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"])
        #expect(fetched.status == 200)
        #expect(fetched.body == (try Data(contentsOf: archive)))
        // Customer links are derived from the store's secret: both servers make the same one.
        let links = try [first, second].map {
            try HTTPClient.request("GET", "\($0.baseURL)/merchant/v1/orders/\(order)/link", headers: ["Authorization": "Bearer \(Self.key)"])
                .json["url"] as? String
        }
        #expect(links[0] != nil && links[0] == links[1])
        #expect(try first.stop() == 0)
        #expect(try second.stop() == 0)
    }
}
