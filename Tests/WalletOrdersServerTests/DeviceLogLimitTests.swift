import Foundation
import Logging
import Synchronization
import Testing
import WalletOrders
import WalletOrdersServer
import WalletOrdersTestSupport

@Suite("POST /v1/log writes a bounded amount: per request, per client and for everyone together (live HTTP, raw sockets)")
struct DeviceLogLimitTests {
    /// A 39 KB body of 100 entries, each of 195 U+0085 (2 bytes in UTF-8, 6 escaped): 3x on escaping.
    static let escapeHeavy =
        #"{"logs": ["# + Array(repeating: "\"" + String(repeating: "\u{85}", count: 195) + "\"", count: 100).joined(separator: ", ") + "]}"

    static func post(_ body: String, port: Int, from source: String = "127.0.0.1", headers: String = "") throws -> String {
        let request = "POST /v1/log HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return try RawSocket(port: port, from: source).exchange(request).text
    }

    @Test("A 39 KB body of many escape-heavy entries logs one record within the request bound (4 KiB by default)")
    func perRequestBound() async throws {
        #expect((38_000...40_000).contains(Self.escapeHeavy.utf8.count))
        let log = CapturedLog()
        try await LimitedService.run(log: log) { port in
            let answer = try await onOwnThread { try Self.post(Self.escapeHeavy, port: port) }
            #expect(answer.hasPrefix("HTTP/1.1 200 "), "\(answer)")
        }
        let records = log.deviceLogs
        #expect(records.count == 1)
        let written = records.reduce(0) { $0 + $1.bytes }
        #expect(written <= DeviceLogLimits().requestBytes + 200, "\(written) bytes of log for one request")
        #expect(records.first?.metadata["messages"]?.contains("\\u{85}") == true, "escaped, not raw")
        #expect(records.first?.metadata["entries"] == "100")
    }

    @Test("The global budget holds across many client addresses on 127.0.0.0/8; past it 429 log-budget-exhausted")
    func globalBudget() async throws {
        let log = CapturedLog()
        let budget = DeviceLogLimits(requestBytes: 2_048, budgetBytes: 16_384, budgetWindow: .seconds(86_400))
        let answers = try await LimitedService.run(deviceLog: budget, logRate: (100, 100), log: log) { port in
            try await onOwnThread {
                try (0..<24).flatMap { client in
                    try (0..<3).map { _ in try Self.post(Self.escapeHeavy, port: port, from: "127.0.0.\(20 + client)") }
                }
            }
        }
        let written = log.deviceLogs.reduce(0) { $0 + $1.bytes }
        // What the budget allows (a day's window: what comes back while the test runs, however slowly, is
        // a few bytes).
        #expect(written <= 16_384 + 1_000, "\(written) bytes of log from 24 addresses")
        #expect(answers.filter { $0.hasPrefix("HTTP/1.1 200 ") }.count <= 16_384 / (2_048 + DeviceLogLimits.recordOverheadBytes) + 1)
        let refused = answers.filter { $0.hasPrefix("HTTP/1.1 429 ") }
        #expect(refused.count >= 60)
        #expect(refused.allSatisfy { $0.contains("log-budget-exhausted") && $0.lowercased().contains("retry-after: ") })
    }

    @Test("X-Forwarded-For names the client only from a trusted proxy: the right-most address not a trusted proxy's")
    func forwardedFor() async throws {
        let log = CapturedLog()
        let proxies = [try #require(IPAddressRange("127.0.0.1")), try #require(IPAddressRange("10.0.0.0/8"))]
        let answers = try await LimitedService.run(logRate: (0.001, 1), trustedProxies: proxies, log: log) { port in
            try await onOwnThread {
                let body = #"{"logs": ["hello"]}"#
                return [
                    // From the trusted proxy: each forwarded client has a bucket of its own.
                    try Self.post(body, port: port, headers: "X-Forwarded-For: 203.0.113.7\r\n"),
                    try Self.post(body, port: port, headers: "X-Forwarded-For: 198.51.100.1, 203.0.113.9, 10.1.2.3\r\n"),
                    try Self.post(body, port: port, headers: "X-Forwarded-For: 203.0.113.7\r\n"),  // its bucket is empty
                    // Not from a trusted proxy: the header is ignored, the client is 127.0.0.2.
                    try Self.post(body, port: port, from: "127.0.0.2", headers: "X-Forwarded-For: 192.0.2.1\r\n"),
                    try Self.post(body, port: port, from: "127.0.0.2", headers: "X-Forwarded-For: 192.0.2.2\r\n"),
                ]
            }
        }
        #expect(answers.map { String($0.prefix(12)) } == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 429", "HTTP/1.1 200", "HTTP/1.1 429"])
        #expect(log.deviceLogs.compactMap { $0.metadata["client"] } == ["203.0.113.7", "203.0.113.9", "127.0.0.2"])
    }

    @Test("Trusted proxies: CIDR ranges for IPv4 and IPv6, IPv4-mapped addresses, and the X-Forwarded-For walk")
    func trustedProxies() throws {
        let proxies = TrustedProxies(ranges: ["10.0.0.0/8", "fd00::/8", "192.168.1.1"].compactMap(IPAddressRange.init))
        #expect(proxies.ranges.count == 3)
        #expect(proxies.contains("10.255.0.1") && proxies.contains("::ffff:10.0.0.1") && proxies.contains("fd12::1"))
        #expect(!proxies.contains("11.0.0.1") && !proxies.contains("192.168.1.2") && !proxies.contains("fe80::1"))
        #expect(IPAddressRange("10.0.0.0/33") == nil && IPAddressRange("example.com") == nil)
        #expect(proxies.client(socketAddress: "203.0.113.1", forwardedFor: ["192.0.2.1"]) == "203.0.113.1")
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: ["192.0.2.1, 10.0.0.2", "192.168.1.1"]) == "192.0.2.1")
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: ["[2001:db8::1]:443"]) == "2001:db8::1")
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: ["192.0.2.1:5000"]) == "192.0.2.1")
        // A forged entry left of the proxy's own is never reached; garbage stops the walk.
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: ["6.6.6.6, 192.0.2.1"]) == "192.0.2.1")
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: ["192.0.2.1, unknown"]) == "10.0.0.1")
        #expect(proxies.client(socketAddress: "10.0.0.1", forwardedFor: []) == "10.0.0.1")
    }

    @Test(
        "An IPv6 client is counted by its /64, so one subscriber can't multiply the per-address limits by picking new addresses; IPv4 by its address"
    )
    func limitsPerIPv6Network() {
        #expect(IPAddressRange.limitKey("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(IPAddressRange.limitKey("2001:DB8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(IPAddressRange.limitKey("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(IPAddressRange.limitKey("203.0.113.7") == "203.0.113.7")
        #expect(IPAddressRange.limitKey("unknown") == "unknown")
        // Connections: 4 per address; a fifth from anywhere in the same /64 is refused, another /64 is not.
        let counter = ConnectionCounter(maximum: 100, maximumPerAddress: 4, exempt: TrustedProxies(ranges: []))
        let held = (1...4).compactMap { counter.open("2001:db8:1:2::\($0)", close: {}) }
        #expect(held.count == 4)
        #expect(counter.open("2001:db8:1:2:dead:beef:0:1", close: {}) == nil)
        #expect(counter.open("2001:db8:1:3::1", close: {}) != nil)
        counter.close(held[0])
        #expect(counter.open("2001:db8:1:2:1234::9", close: {}) != nil, "a closed connection frees its /64's place")
        // Request rates: the registration and log limiters take the same key.
        let limiter = RateLimiter(rate: 0.0001, burst: 1, maximumClients: 100)
        #expect(limiter.acquire(IPAddressRange.limitKey("2001:db8:1:2::1"), now: 0) == nil)
        #expect(limiter.acquire(IPAddressRange.limitKey("2001:db8:1:2::2"), now: 1) != nil)
    }

    @Test(
        "At the connection cap a new connection takes the place of the one that has waited longest for its request; one being answered is never closed for it"
    )
    func capClosesTheLongestWaiting() {
        let closed = Mutex<[String]>([])
        let counter = ConnectionCounter(maximum: 3, maximumPerAddress: 10, exempt: TrustedProxies(ranges: []))
        func open(_ name: String, _ address: String) -> ConnectionCounter.Ticket? {
            counter.open(address, close: { closed.withLock { $0.append(name) } })
        }
        let a = open("a", "192.0.2.1")
        let b = open("b", "192.0.2.2")
        let c = open("c", "192.0.2.3")
        #expect(a != nil && b != nil && c != nil)
        // a's request arrives and is being answered; b and c still wait for theirs.
        counter.serving(a!)
        #expect(open("d", "192.0.2.4") != nil, "at the cap, a new connection is taken")
        #expect(closed.withLock { $0 } == ["b"], "the longest-waiting connection gave way, not the one being answered")
        counter.close(b!)
        // a is answered and waits for its next request: from now, so after c and d.
        counter.waiting(a!)
        #expect(open("e", "192.0.2.5") != nil)
        #expect(closed.withLock { $0 } == ["b", "c"])
        counter.close(c!)
        #expect(counter.total == 3)
        // With every connection being answered, there is none to close: the new one is refused.
        let full = ConnectionCounter(maximum: 1, maximumPerAddress: 10, exempt: TrustedProxies(ranges: []))
        let only = full.open("192.0.2.9", close: { closed.withLock { $0.append("only") } })
        full.serving(only!)
        #expect(full.open("192.0.2.10", close: {}) == nil)
        #expect(!closed.withLock { $0 }.contains("only"))
    }

    @Test(
        "At the cap, a crowd of addresses churning connections closes its own: a client with one waiting connection keeps it however many new ones come"
    )
    func capClosesTheCrowdFirst() throws {
        let closed = Mutex<[String]>([])
        let counter = ConnectionCounter(maximum: 50, maximumPerAddress: 64, exempt: TrustedProxies(ranges: []))
        let opened = counter.open("198.51.100.7", close: { closed.withLock { $0.append("probe") } })
        let probe = try #require(opened)
        // 20 addresses, each replacing every connection the service closes, 10,000 times: the
        // probe, the longest waiting of all from the second round on, is never the one to go.
        var tickets: [String: ConnectionCounter.Ticket] = [:]
        var gave = 0
        for round in 0..<10_000 {
            let name = "\(round)"
            let ticket = counter.open("192.0.2.\(round % 20 + 1)", close: { closed.withLock { $0.append(name) } })
            let kept: ConnectionCounter.Ticket = try #require(ticket, "round \(round) was refused")
            tickets[name] = kept
            // What the service does once a connection closed for a new one has closed.
            let gone = closed.withLock { closed in
                defer { closed = [] }
                return closed
            }
            #expect(!gone.contains("probe"))
            gave += gone.count
            for name in gone { tickets.removeValue(forKey: name).map(counter.close) }
            #expect(counter.total <= 50)
        }
        #expect(counter.total == 50)
        #expect(gave == 10_000 - 49)
        counter.close(probe)
        #expect(counter.total == 49, "the probe was still counted, and its close took back its own count")
        // Once each address holds one waiting connection at most, the longest waiting of all goes:
        // the probe.
        let spread = ConnectionCounter(maximum: 3, maximumPerAddress: 64, exempt: TrustedProxies(ranges: []))
        let first = spread.open("198.51.100.7", close: { closed.withLock { $0.append("first") } })
        _ = spread.open("192.0.2.1", close: {})
        _ = spread.open("192.0.2.2", close: {})
        #expect(first != nil && spread.open("192.0.2.3", close: {}) != nil)
        #expect(closed.withLock { $0 } == ["first"])
    }

    @Test("The log rate limiter forgets the least recently used clients when full, not everyone: a limited client stays limited")
    func rateLimiterEviction() {
        let limiter = RateLimiter(rate: 0.0001, burst: 1, maximumClients: 100)
        #expect(limiter.acquire("limited", now: 0) == nil)
        for index in 0..<99 { #expect(limiter.acquire("client-\(index)", now: 1 + Double(index)) == nil) }
        for index in 0..<500 {
            #expect(limiter.acquire("limited", now: 100 + Double(index) * 2) != nil)  // still limited, and so recently used
            _ = limiter.acquire("new-\(index)", now: 101 + Double(index) * 2)
            #expect(limiter.clientCount <= 100)
        }
    }

    @Test("Log text is escaped and cut to its limit, the note of the full size included; the cut comes before escaping")
    func escapedText() {
        #expect(LogText.escaped("a\nb\u{1b}[31m\\") == #"a\u{a}b\u{1b}[31m\\"#)
        let long = String(repeating: "\u{85}", count: 10_000)
        let cut = LogText.escaped(long, limit: 100)
        #expect(cut.utf8.count <= 100 && cut.hasSuffix("… (20000 bytes in all)"), "\(cut)")
        #expect(LogText.escaped("short", limit: 100) == "short")
    }
}
