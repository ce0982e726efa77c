import Foundation
import Testing
import WalletOrdersTestSupport

@Suite("wallet-orders serve: settings, TLS, graceful shutdown", .serialized, .temporaryFolder)
struct ServeEndToEndTests {
    static let key = "merchant-key-0123456789abcdef"

    @Test("Settings from a JSON file, the environment and flags (flags win); the merchant API and the device protocol answer; SIGTERM exits 0")
    func settingsAndShutdown() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        #expect(try await store.save([archive]).result.status == 0)
        let config = try store.folder.write(
            Array(#"{"listen": "127.0.0.1:1", "publicURL": "https://orders.example.com", "push": {"pollSeconds": 0.5}}"#.utf8),
            to: "service.json")
        let server = try await RunningServer(
            ["--store", store.url.path, "--config", config.path] + (try StoreFixtures.trustArguments()),
            environment: ["WALLET_ORDERS_API_KEYS": "\(Self.key) *;another-key-0123456789 order.com.example.other"], folder: store.folder)
        #expect(!server.baseURL.hasSuffix(":1"), "--listen (a flag) wins over the file")

        let order = "\(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier)"
        let link = try await HTTPClient.request(
            "GET", "\(server.baseURL)/merchant/v1/orders/\(order)/link", headers: ["Authorization": "Bearer \(Self.key)"])
        #expect(link.status == 200)
        #expect((link.json["url"] as? String)?.hasPrefix("https://orders.example.com/orders/") == true, "publicURL came from the file")
        let fetched = try await HTTPClient.request(
            "GET", "\(server.baseURL)/v1/orders/\(order)", headers: ["Authorization": "AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"])
        #expect(fetched.status == 200)
        #expect(fetched.body == (try Data(contentsOf: archive)))
        let health = try await HTTPClient.request("GET", "\(server.baseURL)/health")
        #expect(health.json["status"] as? String == "ok")
        #expect(try await HTTPClient.request("GET", "\(server.baseURL)/no-such-route").status == 404)
        // Each request counted and timed under Hummingbird's metric names, by route template.
        let metrics = String(decoding: try await HTTPClient.request("GET", "\(server.baseURL)/metrics").body, as: UTF8.self)
        for line in [
            #"hb_requests{http_route="/health",http_request_method="GET",http_response_status_code="200"} 1"#,
            #"http_server_request_duration_count{http_route="/v1/orders/{type}/{order}",http_request_method="GET",http_response_status_code="200"} 1"#,
            #"hb_request_errors{http_route="NotFound",http_request_method="GET",error_type="404"} 1"#,
            #"http_server_active_requests{http_request_method="GET"} 1.0"#,  // the scrape itself
        ] {
            #expect(metrics.split(separator: "\n").contains { $0 == line }, "\(line)\n\(metrics)")
        }

        let started = Date()
        #expect(try await server.stop() == 0)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("TLS with --tls-certificate and --tls-key: Python's ssl verifies the server against its CA")
    func tls() async throws {
        let folder = try TemporaryFolder.ofTest
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.file("key.pem").path, "-out", folder.file("cert.pem").path,
            ])
        #expect(made.status == 0, "\(made)")
        let server = try await RunningServer(
            [
                "--store", folder.file("orders.sqlite").path, "--tls-certificate", folder.file("cert.pem").path,
                "--tls-key", folder.file("key.pem").path,
            ], folder: folder)
        #expect(server.baseURL.hasPrefix("https://127.0.0.1:"))
        let health = try await HTTPClient.request("GET", "\(server.baseURL)/health", caFile: folder.file("cert.pem").path)
        #expect(health.status == 200)
        // TLS 1.0 and 1.1 are refused by the service itself: OpenSSL's client offers them only at
        // security level 0, which is how a client that still speaks them is played here.
        let address = String(server.baseURL.dropFirst("https://".count))
        for (version, accepted) in [("-tls1", false), ("-tls1_1", false), ("-tls1_2", true), ("-tls1_3", true)] {
            let handshake = try await ExternalProgram.run(
                tool: "openssl", ["s_client", "-connect", address, version, "-cipher", "DEFAULT@SECLEVEL=0", "-brief"], timeout: 60)
            #expect((handshake.status == 0) == accepted, "openssl s_client \(version): \(handshake)")
        }
        #expect(try await server.stop() == 0)
    }

    @Test(
        "A FIFO where a file is read at start-up (settings, API keys, TLS key, store) is refused at once, not waited on",
        arguments: ["--config", "--api-key-file", "--tls-key", "--store"])
    func fifoSettings(option: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let fifo = folder.file("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-keyout", folder.file("key.pem").path, "-out", folder.file("cert.pem").path,
            ])
        #expect(made.status == 0, "\(made)")
        var arguments = ["serve", "--listen", "127.0.0.1:0"]
        if option != "--store" { arguments += ["--store", folder.file("orders.sqlite").path] }
        if option == "--tls-key" { arguments += ["--tls-certificate", folder.file("cert.pem").path] }
        arguments += [option, fifo]
        // Nothing ever writes to the FIFO: a service that opened it for reading would wait for
        // ever, and the timeout (a hang guard) would end the test as a failure.
        let result = try await CLI.run(arguments, timeout: 120)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("is a FIFO (named pipe)"), "\(result.errorOutput)")
        if option == "--store" {
            let doctor = try await CLI.run(["doctor", "--store", fifo], timeout: 120)
            #expect(doctor.output.contains("is a FIFO (named pipe)"), "\(doctor)")
        }
    }

    @Test(
        "Unusable settings are refused before listening, naming the setting",
        arguments: [
            // Named by the flag given, not the setting's key.
            (["--listen", "nowhere"], "error: --listen is nowhere; it takes host:port"),
            (["--push-poll", "0"], "error: --push-poll is 0.0; it takes seconds from 0.01"),
            (["--tls-certificate", "/nonexistent.pem"], "TLS needs both the certificate (--tls-certificate) and its key (tls.key)"),
            (["--config", "/nonexistent.json"], "The settings file '/nonexistent.json' does not exist."),
            (["--api-key-file", "/nonexistent-keys.txt"], "The API key file '/nonexistent-keys.txt' does not exist."),
            (["--trusted-proxy", "0.0.0.0/0"], "trusts every address"),
            (["--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::/0"], "--trusted-proxy is ::/0"),
        ])
    func badSettings(arguments: [String], message: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path] + arguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
    }

    @Test("With WALLET_ORDERS_METRICS_KEY, /metrics answers 401 without the key and the metrics with it; /health stays open")
    func metricsKey() async throws {
        let folder = try TemporaryFolder.ofTest
        let metricsKey = "metrics-key-0123456789abcdef"
        let server = try await RunningServer(
            ["--store", folder.file("orders.sqlite").path], environment: ["WALLET_ORDERS_METRICS_KEY": metricsKey], folder: folder)
        let refused = try await HTTPClient.request("GET", "\(server.baseURL)/metrics")
        #expect(refused.status == 401)
        #expect(refused.headers.first { $0.key.lowercased() == "www-authenticate" }?.value == #"Bearer realm="metrics""#)
        #expect(!String(decoding: refused.body, as: UTF8.self).contains("hb_requests"))
        let wrong = try await HTTPClient.request("GET", "\(server.baseURL)/metrics", headers: ["Authorization": "Bearer \(metricsKey)x"])
        #expect(wrong.status == 401)
        let metrics = try await HTTPClient.request("GET", "\(server.baseURL)/metrics", headers: ["Authorization": "Bearer \(metricsKey)"])
        #expect(metrics.status == 200)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("hb_requests"))
        #expect(try await HTTPClient.request("GET", "\(server.baseURL)/health").status == 200)
        #expect(try await server.stop() == 0)

        let short = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path], environment: ["WALLET_ORDERS_METRICS_KEY": "short"])
        #expect(short.status == 1)
        #expect(short.errorOutput.contains("metrics.key is shorter than 16 characters"), "\(short.errorOutput)")
    }

    @Test("A short API key is refused: short keys can be guessed")
    func shortKey() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(["serve", "--store", folder.file("orders.sqlite").path], environment: ["WALLET_ORDERS_API_KEYS": "short *"])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("shorter than 16 characters"))
    }
}
