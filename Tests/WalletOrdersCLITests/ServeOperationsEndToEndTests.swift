import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders serve` as an operator meets it: mistakes in settings reported where they are,
/// a port already taken, and a log a collector can read.
@Suite("wallet-orders serve: settings mistakes, a port in use, JSON logs", .temporaryFolder)
struct ServeOperationsEndToEndTests {
    @Test(
        "A settings file's mistakes are errors at their line and column: broken JSON, a misspelt key with the nearest real one, a duplicate key, a value of the wrong type",
        arguments: [
            ("{\n  \"listen\": \"127.0.0.1:0\",\n  \"push\": {\"pollSeconds\": 1,}\n}\n", "service.json:3:29: ", "trailing commas are not allowed"),
            (
                "{\n  \"listen\": \"127.0.0.1:0\",\n  \"push\": {\"pollSecond\": 1}\n}\n", "service.json:3:12: 'push.pollSecond' is not a setting",
                "Did you mean 'push.pollSeconds'?"
            ),
            ("{\"lissen\": \"127.0.0.1:0\"}", "service.json:1:2: 'lissen' is not a setting", "Did you mean 'listen'?"),
            ("{\"listen\": \"127.0.0.1:0\", \"listen\": \"127.0.0.1:1\"}", "service.json:1:27: ", "duplicate"),
            ("{\"zzzzzz\": 1}", "'zzzzzz' is not a setting", "The settings are: apiKeyFile, apiKeys, apns, cache, connections,"),
            ("[1, 2]", "service.json:1:1: the settings file is not a JSON object", "one object"),
            (
                #"{"push": {"batchSize": "lots"}}"#, #"The setting push.batchSize is "lots"; it takes a whole number."#,
                "WALLET_ORDERS_PUSH_BATCH_SIZE"
            ),
            (#"{"cache": {"archiveBytes": false}}"#, "service.json:1:28: the setting cache.archiveBytes is a boolean", "leave it out"),
        ])
    func settingsFileMistakes(text: String, message: String, hint: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let config = try folder.write(Array(text.utf8), to: "service.json")
        let result = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path, "--config", config.path])
        #expect(result.status == 1, "\(result)")
        let lines = result.errorOutput.split(separator: "\n").map(String.init)
        let error = try #require(lines.first { $0.hasPrefix("error: ") }, "\(result.errorOutput)")
        #expect(error.contains(message), "\(error)")
        #expect(lines.contains { $0.hasPrefix("hint: ") }, "\(result.errorOutput)")
        #expect(result.errorOutput.lowercased().contains(hint.lowercased()), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("orders.sqlite").path), "nothing is created for a settings mistake")
    }

    @Test("--port, --host and --bind are pointed to --listen", arguments: ["--port", "--host", "--hostname", "--bind"])
    func listenHint(option: String) async throws {
        let result = try await CLI.run(["serve", option, "8080"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.contains("hint: serve takes the address and the port together: --listen 127.0.0.1:8080"), "\(result.errorOutput)")
    }

    @Test("--executor pool keeps Swift's default executor and serves the same; an unknown executor is refused naming the setting")
    func executor() async throws {
        let folder = try TemporaryFolder.ofTest
        let store = folder.file("orders.sqlite").path
        let wrong = try await CLI.run(["serve", "--store", store, "--executor", "threads"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.errorOutput.contains("executor") && wrong.errorOutput.contains("event-loops or pool"), "\(wrong.errorOutput)")
        let server = try await RunningServer(["--store", store, "--executor", "pool", "--log-format", "json"], folder: folder)
        #expect(try await HTTPClient.request("GET", "\(server.baseURL)/health").status == 200)
        let order = try await HTTPClient.request(
            "GET", "\(server.baseURL)/v1/orders/order.com.example/none", headers: ["Authorization": "AppleOrder x"])
        #expect(order.status == 401)
        #expect(try await server.stop() == 0)
        let started = server.child.errorOutput.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.first { $0["message"] as? String == "started" }
        #expect((started?["metadata"] as? [String: Any])?["executor"] as? String == "pool", "\(server.child.errorOutput)")
    }

    @Test("A port another process listens on is an error naming the address, with a hint, not a stack of NIO errors")
    func portInUse() async throws {
        let folder = try TemporaryFolder.ofTest
        let first = try await RunningServer(["--store", folder.file("orders.sqlite").path], folder: folder)
        let address = String(first.baseURL.dropFirst("http://".count))
        let second = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path, "--listen", address])
        #expect(second.status == 1, "\(second)")
        #expect(second.errorOutput.contains("error: Can't listen on \(address): another process is listening there."), "\(second.errorOutput)")
        #expect(second.errorOutput.contains("hint: Stop it"), "\(second.errorOutput)")
        #expect(try await first.stop() == 0)
    }

    @Test(
        "--log-format json: every line on standard error a JSON object; a start-up summary (address, store, APNs, identities with expiry, trust roots, keys), an access line, and a stop line"
    )
    func jsonLogs() async throws {
        let folder = try TemporaryFolder.ofTest
        let store = folder.file("orders.sqlite").path
        let server = try await RunningServer(
            ["--store", store, "--log-format", "json"], environment: ["WALLET_ORDERS_API_KEYS": "merchant-key-0123456789abcdef *"], folder: folder)
        #expect(try await HTTPClient.request("GET", "\(server.baseURL)/health").status == 200)
        #expect(try await server.stop() == 0)
        let records = server.child.errorOutput.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        // Every line, the one scripts wait for ("listening on …") included: seen plain before.
        let lines = server.child.errorOutput.split(separator: "\n")
        #expect(records.count == lines.count, "every log line is JSON:\n\(server.child.errorOutput)")
        #expect(records.contains { ($0["message"] as? String)?.hasPrefix("listening on \(server.baseURL) ") == true })
        for record in records {
            for key in ["time", "level", "label", "message"] { #expect(record[key] is String, "\(key) in \(record)") }
        }
        let started = try #require(records.first { $0["message"] as? String == "started" }, "\(server.child.errorOutput)")
        let summary = try #require(started["metadata"] as? [String: Any])
        #expect(summary["listen"] as? String == server.baseURL)
        #expect(summary["store"] as? String == store)
        #expect((summary["apns"] as? String)?.hasPrefix("none") == true)
        #expect(summary["signingIdentities"] as? [String] == [])
        #expect(summary["trustRoots"] as? String == "Apple Root CA")
        #expect(summary["merchantKeys"] as? String == "1")
        #expect(summary["executor"] as? String == "event-loops", "async code on the event loops by default")
        #expect(!server.child.errorOutput.contains("merchant-key-0123456789abcdef"), "no secret in the log")
        #expect(
            records.contains {
                ($0["message"] as? String)?.contains("/health") == true || ($0["metadata"] as? [String: Any])?["route"] as? String == "/health"
            },
            "an access line for GET /health:\n\(server.child.errorOutput)")
        #expect(records.last?["message"] as? String == "stopped", "\(server.child.errorOutput)")
    }
}
