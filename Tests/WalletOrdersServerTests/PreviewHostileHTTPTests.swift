import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Text that would be markup, script or style if it were not escaped, and links that are not
/// http(s): what a hostile merchant (or a compromised signing key) can put into a stored order.
enum HostileOrder {
    static let text = #"</style><script>console.error("pwned")</script>"><img src=x onerror=alert(1)>‮evil"#
    static let url = "javascript:console.error('pwned')"

    /// Keys whose values must keep their type for the order to stay valid.
    static let structural: Set<String> = [
        "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "createdAt", "updatedAt", "status",
        "fulfillmentType", "shippingType", "shippedAt", "deliveredAt", "estimatedDeliveryAt", "estimatedDeliveryWindowDuration",
        "currency", "amount", "format", "messageEncoding", "countryCode", "webServiceURL", "authenticationToken",
        "merchantIdentifier", "fulfillmentIdentifier", "logo", "image", "emailAddress", "phoneNumber", "changeNotifications",
    ]
    static let urlKeys: Set<String> = ["url", "orderManagementURL", "trackingURL", "contactURL"]

    static func poison(_ value: Any, key: String?, urls: Bool) -> Any {
        switch value {
        case let object as [String: Any]:
            return Dictionary(uniqueKeysWithValues: object.map { ($0.key, poison($0.value, key: $0.key, urls: urls)) })
        case let array as [Any]:
            return array.map { poison($0, key: key, urls: urls) }
        case is String:
            guard let key, !structural.contains(key) else { return value }
            if urlKeys.contains(key) { return urls ? url : value }
            return text
        default:
            return value
        }
    }

    /// The store's sample order with every text field hostile (and every URL too when `urls`),
    /// signed with the test PKI.
    static func archive(urls: Bool) throws -> [UInt8] {
        var files = try OrderSource(directory: Repository.sample(SampleVersions.sampleName)).files
        let json = try #require(files[OrderArchive.orderPath])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        files[OrderArchive.orderPath] = Array(
            try JSONSerialization.data(withJSONObject: poison(object, key: nil, urls: urls), options: [.sortedKeys]))
        let source = OrderSource(files: files)
        let orderJSON = try #require(source.orderJSON)
        let order = try Order.decode(from: Data(orderJSON))
        return try OrderArchiveBuilder(identity: TestPKI.identity(for: order.orderTypeIdentifier)).build(source, signingTime: TestPKI.signingTime)
            .bytes
    }

    /// Checks that the escaped payload is on the page and nothing of it is markup.
    static func expectInert(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!html.contains("<script"), sourceLocation: sourceLocation)
        #expect(html.components(separatedBy: "<style").count == 2, sourceLocation: sourceLocation)
        #expect(!html.contains("<img src=x"), sourceLocation: sourceLocation)
        #expect(!html.contains("href=\"javascript:"), sourceLocation: sourceLocation)
        #expect(
            html.matches(of: /href="([^"]*)"/).allSatisfy {
                ["/orders/", "https://", "http://", "mailto:", "tel:"].contains(where: $0.output.1.hasPrefix)
            }, sourceLocation: sourceLocation)
        #expect(!html.contains("\u{202E}"), sourceLocation: sourceLocation)
        #expect(html.contains("&lt;/style&gt;&lt;script&gt;"), "the payload is not shown", sourceLocation: sourceLocation)
    }
}

@Suite("The landing page of a hostile stored order is inert (live HTTP)", .temporaryFolder)
struct LandingPageHostileTests {
    static let policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    @Test("Every text field markup or script, every URL javascript: (when the store takes it): the page escapes it all and sends a strict policy")
    func hostileOrder() async throws {
        let service = try ServiceUnderTest()
        // The validator may refuse javascript: links (a finding of the schema); then the text alone.
        do {
            _ = try await service.store.intake().save(signedArchive: try HostileOrder.archive(urls: true))
        } catch {
            _ = try await service.store.intake().save(signedArchive: try HostileOrder.archive(urls: false))
        }
        try await service.runLive { client in
            let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
            let path = try #require(answer.json["path"] as? String)
            let page = try await client.execute(uri: path, method: .get, headers: [.acceptLanguage: #"en"><script>alert(1)</script>"#])
            #expect(page.status == .ok)
            #expect(page.headers[.init("Content-Security-Policy")!] == Self.policy)
            #expect(page.headers[.init("X-Content-Type-Options")!] == "nosniff")
            #expect(page.headers[.init("Referrer-Policy")!] == "no-referrer")
            let html = String(buffer: page.body)
            HostileOrder.expectInert(html)
            #expect(html.contains(#"<html lang="en" class="auto">"#))
            #expect(html.contains(#"href="\#(path)/order""#))

            // The served page in Chromium: no script runs, nothing is logged, nothing is loaded.
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "Chromium is not installed: run .ci/setup")
            let url = "http://127.0.0.1:\(try #require(client.port))\(path)"
            let script = BrowserCheck.script
            let result = try await ExternalProgram.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, url], timeout: 120 * TestTiming.scale)
            try #require(result.status == 0, "browser_check.py failed: \(result)")
            let report = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            #expect((report["console"] as? [String]) == [], "\(report["console"] ?? "")")
            #expect((report["requests"] as? [String]) == [], "\(report["requests"] ?? "")")
            #expect((report["text"] as? String)?.contains("</style><script>") == true)
        }
    }

    @Test(
        "A request path with doubled or dotted slashes never makes the Add to Apple Wallet link protocol-relative",
        arguments: ["/", "//", "/./", "/%2F"])
    func pathShapes(_ prefix: String) async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.runLive { client in
            let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
            let path = try #require(answer.json["path"] as? String)
            let raw = try await MalformedHTTPTests.exchange(
                "GET \(prefix)\(path.dropFirst()) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: try #require(client.port))
            let hrefs = raw.matches(of: /class="add-to-wallet" href="([^"]*)"/).map { String($0.output.1) }
            for href in hrefs {
                #expect(href == path + "/order", "\(href)")
            }
        }
    }
}

/// `wallet-orders preview --serve`'s server, attacked over raw HTTP on loopback.
@Suite("preview --serve under attack (live HTTP, raw bytes)", .serialized, .temporaryFolder)
struct PreviewServerAttackTests {
    @Test("A 2 GiB .order is refused by its size before it is read: the page says why, at once, with bounded memory")
    func hugeArchiveIsNotRead() throws {
        let folder = try TemporaryFolder.ofTest
        let huge = folder.file("huge.order")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: Data("PK".utf8)))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 2 << 30)  // sparse: no disk, but a reader that reads it all takes 2 GiB
        try handle.close()
        let server = PreviewServer(
            path: huge.path, previewer: OrderPreviewer(validator: TestPKI.validator), options: PreviewOptions(), port: 0)
        let clock = ContinuousClock()
        let started = clock.now
        let page = server.page()
        #expect(clock.now - started < .seconds(2), "read the file instead of refusing it by its size")
        #expect(page.contains("over the limit") && page.contains("not read"), "\(page.prefix(2_000))")
    }

    /// Runs a PreviewServer of `sample` (on a free loopback port) around `body`.
    static func withServer<T: Sendable>(
        _ sample: String = "store-pickup", idleTimeout: Duration = .seconds(30), _ body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        let server = PreviewServer(
            path: Repository.sample(sample).path, previewer: OrderPreviewer(validator: TestPKI.validator), options: PreviewOptions(), port: 0,
            idleTimeout: idleTimeout)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { port in continuation.yield(port) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return try await body(port)
    }

    static func status(_ answer: String) -> Int? {
        answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test(
        "Traversal and odd paths get 404 and no file's content",
        arguments: [
            "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/order.json", "/logo.png",
            "//etc/passwd", "/version/../../etc/passwd", "/%00", "/index.html",
        ])
    func traversal(_ target: String) async throws {
        let answer = try await Self.withServer { port in
            try await MalformedHTTPTests.exchange("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", port: port)
        }
        #expect([400, 404].contains(Self.status(answer) ?? 0), "\(answer.prefix(300))")
        #expect(!answer.contains("root:") && !answer.contains("Komorebi") && !answer.contains("orderTypeIdentifier"))
    }

    @Test("Methods other than GET and HEAD are refused", arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"])
    func methods(_ method: String) async throws {
        let answer = try await Self.withServer { port in
            try await MalformedHTTPTests.exchange(
                "\(method) / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", port: port)
        }
        #expect([400, 404, 405].contains(Self.status(answer) ?? 0), "\(answer.prefix(300))")
        #expect(!answer.contains("Komorebi"))
    }

    /// Sends a request with a header of `size` bytes, or `count` small headers, built by Python
    /// (too long for an argument); returns what came back (empty if the server closed at once).
    static func hugeRequest(port: Int, size: Int, count: Int) async throws -> String {
        let result = try await ExternalProgram.python(
            #"""
            import socket, sys
            port, size, count = (int(a) for a in sys.argv[1:4])
            head = "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
            if size:
                head += "X-Big: " + "a" * size + "\r\n"
            head += "".join("X-H%d: v\r\n" % i for i in range(count))
            head += "Connection: close\r\n\r\n"
            answer = b""
            with socket.create_connection(("127.0.0.1", port), timeout=20) as connection:
                try:
                    connection.sendall(head.encode())
                except OSError:
                    pass  # the server closed while we were still sending: refused
                try:
                    while True:
                        part = connection.recv(65536)
                        if not part:
                            break
                        answer += part
                except OSError:
                    pass
            sys.stdout.write(answer.decode("latin-1"))
            """#, [String(port), String(size), String(count)])
        guard result.status == 0 else { throw BackgroundProgramError(description: "\(result)") }
        return result.output
    }

    @Test("A 1 MB header or 10,000 headers (230 kB) are refused (431/400 or closed) in under 10 s, and the server answers the next request")
    func hugeHeaders() async throws {
        try await Self.withServer { port in
            let started = ContinuousClock.now
            let big = try await Self.hugeRequest(port: port, size: 1_000_000, count: 0)
            #expect(!big.contains("Komorebi"), "a 1 MB header was accepted: \(big.prefix(200))")
            #expect(big.isEmpty || [400, 431].contains(Self.status(big) ?? 0), "\(big.prefix(200))")
            let lots = try await Self.hugeRequest(port: port, size: 0, count: 10_000)
            #expect(!lots.contains("Komorebi"), "10,000 headers were accepted: \(lots.prefix(200))")
            #expect(ContinuousClock.now - started < .seconds(10 * TestTiming.scale))
            let after = try await MalformedHTTPTests.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", port: port)
            #expect(Self.status(after) == 200)
            #expect(after.contains("Komorebi"))
        }
    }

    @Test(
        "DNS rebinding: a Host other than this loopback address and port gets 421/403, not the order",
        arguments: ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "", "localhost.evil.example:80"])
    func foreignHost(_ host: String) async throws {
        let answer = try await Self.withServer { port in
            try await MalformedHTTPTests.exchange("GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: port)
        }
        #expect([400, 403, 421].contains(Self.status(answer) ?? 0), "\(answer.prefix(300))")
        #expect(!answer.contains("Komorebi"))
    }

    @Test("The page is served to its own loopback Host names", arguments: ["127.0.0.1", "localhost"])
    func ownHost(_ name: String) async throws {
        let answer = try await Self.withServer { port in
            try await MalformedHTTPTests.exchange("GET / HTTP/1.1\r\nHost: \(name):\(port)\r\nConnection: close\r\n\r\n", port: port)
        }
        #expect(Self.status(answer) == 200, "\(answer.prefix(300))")
        #expect(answer.contains("Komorebi"))
        #expect(answer.lowercased().contains("x-content-type-options: nosniff"))
        #expect(answer.lowercased().contains("x-frame-options: deny"))
    }

    @Test("It listens on 127.0.0.1 only: the kernel's table of listening sockets shows that address for its port, and no other")
    func loopbackOnly() async throws {
        let listeners = try await Self.withServer { port in
            let hexPort = String(format: "%04X", port)
            var found: [String] = []
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n").dropFirst() {
                    let fields = line.split(separator: " ")
                    // local_address is ADDRESS:PORT in hex; st 0A is LISTEN.
                    guard fields.count > 3, fields[3] == "0A", fields[1].hasSuffix(":" + hexPort) else { continue }
                    found.append(String(fields[1]))
                }
            }
            return found
        }
        #expect(listeners.count == 1 && listeners.allSatisfy { $0.hasPrefix("0100007F:") }, "listening on \(listeners)")
    }

    @Test("A connection that stops halfway through its request (slowloris) is closed after the idle timeout (1 s here, 30 s by default)")
    func idleConnection() async throws {
        let result = try await Self.withServer(idleTimeout: .seconds(1)) { port in
            try await ExternalProgram.python(
                #"""
                import socket, sys, time
                started = time.time()
                with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=15) as connection:
                    connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
                    try:
                        while connection.recv(65536):
                            pass
                        print("closed after %.1f s" % (time.time() - started))
                    except socket.timeout:
                        print("still open after 15 s")
                """#, [String(port)])
        }
        #expect(result.status == 0, "\(result)")
        let seconds = result.output.split(separator: " ").dropFirst(2).first.flatMap { Double($0) }
        #expect(seconds.map { $0 < 10 } == true, "\(result.output)")
    }
}
