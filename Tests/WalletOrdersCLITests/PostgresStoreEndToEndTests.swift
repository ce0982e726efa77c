import Foundation
import Synchronization
import Testing
import WalletOrdersTestSupport

/// `wallet-orders store …` and `wallet-orders serve` on a PostgreSQL store named by its URL, in
/// the test process's throwaway cluster.
@Suite(
    "wallet-orders on a PostgreSQL store (postgres:// URLs)", .enabled(if: PostgresTestCluster.serverBinaries != nil),
    .temporaryFolder)
struct PostgresStoreEndToEndTests {
    static let order = [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier]
    static let key = "merchant-key-0123456789abcdef"

    static func cluster() async throws -> PostgresTestCluster {
        try await PostgresTestCluster.shared()
    }

    @Test("store save, contains, get, list, history and delete answer on a postgres:// store given in WALLET_ORDERS_STORE")
    func storeCommands() async throws {
        let cluster = try await Self.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let folder = try TemporaryFolder.ofTest
        let environment = ["WALLET_ORDERS_STORE": cluster.url(database: database).absoluteString]
        func store(_ arguments: [String]) async throws -> ProgramResult {
            try await CLI.run(["store"] + arguments, environment: environment)
        }
        let older = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let newer = try await StoreFixtures.archive(updatedAt: "2025-11-22T00:00:00Z")
        let saved = try await store(["save", older.path, newer.path, older.path, "--json"] + (try StoreFixtures.trustArguments()))
        #expect(saved.status == 0, "\(saved)")
        let results = try saved.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["result"] as? String
        }
        #expect(results == ["added", "added", "newerExisting"])

        #expect(try await store(["contains"] + Self.order + ["--updated-date", "2025-11-22T00:00:00Z"]).status == 0)
        #expect(try await store(["contains"] + Self.order + ["--updated-date", "2025-11-21T00:00:00Z"]).status == 11)
        let out = folder.file("fetched.order")
        let get = try await store(["get"] + Self.order + ["--out", out.path])
        #expect(get.status == 0, "\(get)")
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: newer)))
        let list = try await store(["list", "--json"])
        #expect(list.status == 0, "\(list)")
        #expect(list.output.contains(Repository.shippedOrderIdentifier))
        let history = try await store(["history"])
        #expect(history.status == 0, "\(history)")
        #expect(history.output.contains("+ \(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"), "\(history)")
        #expect(try await store(["compact-history", "--keep", "0"]).status == 0)
        #expect(try await store(["delete"] + Self.order).status == 0)
        #expect(try await store(["contains"] + Self.order).status == 10)
        // An independent client sees what the tool did.
        #expect(try await cluster.psql("SELECT count(*) FROM orders", database: database) == "0")
        #expect(try await cluster.psql("SELECT count(*) FROM changes", database: database) == "1", "the delete, after compaction")
    }

    @Test("--store postgres://… with a password is refused (the process list is public); without one, PGPASSWORD supplies it")
    func passwordOnTheCommandLine() async throws {
        let cluster = try await Self.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let withPassword = try await CLI.run(["store", "list", "--store", cluster.url(database: database).absoluteString])
        #expect(withPassword.status == 1, "\(withPassword)")
        #expect(withPassword.errorOutput.contains("holds a password"))
        #expect(withPassword.errorOutput.contains("hint: Put the URL in WALLET_ORDERS_STORE"))
        #expect(!withPassword.errorOutput.contains(cluster.password))

        let url = "postgres://postgres@\(cluster.host):\(cluster.port)/\(database)"
        let listed = try await CLI.run(["store", "list", "--store", url], environment: ["PGPASSWORD": cluster.password])
        #expect(listed.status == 0, "\(listed)")
        let wrong = try await CLI.run(["store", "list", "--store", url], environment: ["PGPASSWORD": "wrong-password-123"])
        #expect(wrong.status == 1)
        #expect(wrong.errorOutput.contains("refused the credentials of 'postgres'"), "\(wrong)")
        #expect(!wrong.errorOutput.contains("wrong-password-123"))
    }

    @Test(
        "Unusable store locations fail with one error line and a hint",
        arguments: [
            ("postgres://postgres@127.0.0.1:1/orders", "cannot reach 127.0.0.1:1"),
            ("mysql://localhost/orders", "is a mysql URL"),
            ("postgres://postgres@localhost/orders?sslmode=maybe", "sslmode 'maybe'"),
        ])
    func badLocations(location: String, message: String) async throws {
        let result = try await CLI.run(["store", "list", "--store", location], environment: ["PGPASSWORD": ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("hint: "), "\(result.errorOutput)")
    }

    @Test("store copy: SQLite to PostgreSQL with a resume file, and back into a new SQLite file; counts and digests agree")
    func copyBothWays() async throws {
        let cluster = try await Self.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try await (0..<3).asyncMap {
            try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "copy-\($0)")
        }
        await #expect(try store.save(archives).result.status == 0)
        let url = "postgres://postgres@\(cluster.host):\(cluster.port)/\(database)"
        let environment = ["PGPASSWORD": cluster.password]
        let resume = store.folder.file("copy.cursor")
        let there = try await CLI.run(
            ["store", "copy", store.url.path, url, "--batch-size", "2", "--resume-file", resume.path] + (try StoreFixtures.trustArguments()),
            environment: environment)
        #expect(there.status == 0, "\(there)")
        #expect(there.output.contains("copied 3 orders: 3 written, 0 already there, 0 failed"), "\(there.output)")
        #expect(there.output.contains("verified: 3 in FROM, 3 in TO; 3 identical"))
        #expect(FileManager.default.fileExists(atPath: resume.path))
        #expect(try await cluster.psql("SELECT count(*) FROM orders", database: database) == "3")

        // Again with the resume file: it continues after the last page, so nothing is read again.
        let again = try await CLI.run(
            ["store", "copy", store.url.path, url, "--resume-file", resume.path, "--json"] + (try StoreFixtures.trustArguments()),
            environment: environment)
        #expect(again.status == 0, "\(again)")
        let report = try #require(try JSONSerialization.jsonObject(with: again.standardOutput) as? [String: Any])
        #expect((report["copy"] as? [String: Any])?["read"] as? Int == 0)
        #expect((report["verification"] as? [String: Any])?["identical"] as? Int == 3)

        let back = store.folder.file("back.sqlite")
        let home = try await CLI.run(
            ["store", "copy", url, "sqlite:" + back.path, "--json"] + (try StoreFixtures.trustArguments()), environment: environment)
        #expect(home.status == 0, "\(home)")
        let verification = try #require(
            (try JSONSerialization.jsonObject(with: home.standardOutput) as? [String: Any])?["verification"] as? [String: Any])
        #expect(verification["sourceCount"] as? Int == 3)
        #expect(verification["destinationCount"] as? Int == 3)
        #expect(verification["sourceDigest"] as? String == verification["destinationDigest"] as? String)
        let out = store.folder.file("copy-1.order")
        let get = try await CLI.run(["store", "get", Repository.shippedOrderTypeIdentifier, "copy-1", "--out", out.path, "--store", back.path])
        #expect(get.status == 0, "\(get)")
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: archives[1])))

        let same = try await CLI.run(["store", "copy", back.path, back.path])
        #expect(same.status == 1)
        #expect(same.errorOutput.contains("the same store"))
    }

    @Test("Three `serve` instances on one PostgreSQL store: an upload to one is served by the others, which make the same customer links")
    func threeServers() async throws {
        let cluster = try await Self.cluster()
        let database = try await cluster.makeDatabase()
        defer { cluster.dropDatabase(database) }
        let folder = try TemporaryFolder.ofTest
        let environment = [
            "WALLET_ORDERS_STORE": cluster.url(database: database).absoluteString, "WALLET_ORDERS_API_KEYS": "\(Self.key) *",
        ]
        let first = try await RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-1")
        let second = try await RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-2")
        let third = try await RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-3")
        #expect(first.child.errorOutput.contains("(store postgres://postgres@127.0.0.1:\(cluster.port)/\(database)"))
        #expect(!first.child.errorOutput.contains(cluster.password))

        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-23T00:00:00Z")
        let upload = try await HTTPClient.request(
            "POST", "\(first.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"],
            body: try Data(contentsOf: archive))
        #expect(upload.status == 200, "\(String(decoding: upload.body, as: UTF8.self))")
        #expect(upload.json["result"] as? String == "added")
        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        for server in [second, third] {
            let fetched = try await HTTPClient.request(
                "GET", "\(server.baseURL)/v1/orders/\(order)", headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"])
            #expect(fetched.status == 200)
            #expect(fetched.body == (try Data(contentsOf: archive)))
        }
        // A device registered through one server learns of a change uploaded through another.
        let device = "device-1"
        let type = Repository.shippedOrderTypeIdentifier
        let registered = try await HTTPClient.request(
            "POST", "\(third.baseURL)/v1/devices/\(device)/registrations/\(type)/\(Repository.shippedOrderIdentifier)",
            headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU", "Content-Type": "application/json"],
            body: Data(#"{"pushToken": "a1a1a1a1a1a1a1a1"}"#.utf8))
        #expect(registered.status == 201, "\(String(decoding: registered.body, as: UTF8.self))")
        let before = try await HTTPClient.request("GET", "\(second.baseURL)/v1/devices/\(device)/registrations/\(type)")
        let tag = try #require(before.json["lastModified"] as? String)
        let newer = try await StoreFixtures.archive(updatedAt: "2025-11-24T00:00:00Z")
        let update = try await HTTPClient.request(
            "POST", "\(second.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"],
            body: try Data(contentsOf: newer))
        #expect(update.status == 200)
        let changed = try await HTTPClient.request(
            "GET", "\(first.baseURL)/v1/devices/\(device)/registrations/\(type)?ordersModifiedSince=\(tag)")
        #expect(changed.json["orderIdentifiers"] as? [String] == [Repository.shippedOrderIdentifier])
        #expect(try await cluster.psql("SELECT count(*) FROM push_outbox", database: database) == "1", "one push queued for the device")
        // Customer links are derived from the store's secret: both servers make the same one.
        let links = try await [first, second, third].asyncMap {
            try await HTTPClient.request("GET", "\($0.baseURL)/merchant/v1/orders/\(order)/link", headers: ["Authorization": "Bearer \(Self.key)"])
                .json["url"] as? String
        }
        #expect(links[0] != nil && links[0] == links[1] && links[1] == links[2])
        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
        #expect(try await third.stop() == 0)
    }

    @Test(
        "serve across a PostgreSQL restart: uploads meanwhile fail with 503 store-unavailable, every acknowledged one survives, and the same process serves again"
    )
    func serveAcrossDatabaseRestart() async throws {
        // A private cluster: restarting the shared one would cut the other tests' connections.
        let cluster = try await PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let database = try await cluster.makeDatabase()
        let folder = try TemporaryFolder.ofTest
        let environment = [
            "WALLET_ORDERS_STORE": cluster.url(database: database, parameters: "pool_timeout=3&connect_timeout=2").absoluteString,
            "WALLET_ORDERS_API_KEYS": "\(Self.key) *",
        ]
        let server = try await RunningServer(try StoreFixtures.trustArguments(), environment: environment, folder: folder, name: "serve-restart")
        let times = (0..<24).map { String(format: "2025-11-23T00:%02d:00Z", $0) }
        let archives = try await times.asyncMap { try await StoreFixtures.archive(updatedAt: $0) }
        // The restart starts once the first upload is answered, while the rest go on.
        var restart: Task<(error: (any Error)?, ended: Date), Never>?
        var acknowledged: [Int] = []
        var failures: [(index: Int, answer: HTTPClient.Answer)] = []
        var lastUploadStarted = Date()
        for (index, archive) in archives.enumerated() {
            lastUploadStarted = Date()
            let answer = try await HTTPClient.request(
                "POST", "\(server.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"],
                body: try Data(contentsOf: archive))
            if answer.status == 200 { acknowledged.append(index) } else { failures.append((index, answer)) }
            if restart == nil {
                restart = Task {
                    do { try await cluster.restart() } catch { return (error, Date()) }
                    return (nil, Date())
                }
            }
        }
        let (restartError, ended) = try await #require(restart).value
        #expect(restartError == nil)
        #expect(ended < lastUploadStarted, "the restart happened while uploads went on (\(failures.count) failed)")
        for failure in failures {
            let error = failure.answer.json["error"] as? [String: Any]
            #expect(failure.answer.status == 503, "upload \(failure.index): \(String(decoding: failure.answer.body, as: UTF8.self))")
            #expect(error?["code"] as? String == "store-unavailable")
            #expect((error?["message"] as? String)?.contains(database) == false, "the answer names no database or path")
        }
        #expect(failures.isEmpty || server.child.errorOutput.contains(database), "the service's log names the store")
        // What is stored is the last acknowledged version, or a later one whose answer was lost.
        let last = try #require(acknowledged.last)
        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let stored = try await cluster.psql("SELECT updated_at_text FROM orders", database: database)
        #expect(stored >= times[last], "stored \(stored), last acknowledged \(times[last])")
        // The same process answers again, from the reconnected pool, without a restart of its own.
        let newest = try await StoreFixtures.archive(updatedAt: "2025-11-24T00:00:00Z")
        let upload = try await HTTPClient.request(
            "POST", "\(server.baseURL)/merchant/v1/orders", headers: ["Authorization": "Bearer \(Self.key)"],
            body: try Data(contentsOf: newest))
        #expect(upload.status == 200, "\(String(decoding: upload.body, as: UTF8.self))")
        let fetched = try await HTTPClient.request(
            "GET", "\(server.baseURL)/v1/orders/\(order)", headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"])
        #expect(fetched.status == 200)
        #expect(fetched.body == (try Data(contentsOf: newest)))
        #expect(try await server.stop() == 0)
    }
}
