import Foundation
import HummingbirdTesting
import Logging
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// A live service on a fresh store with the given limits, for clients on raw sockets.
enum LimitedService {
    static func run<T: Sendable>(
        connections: ConnectionLimits = .init(), deviceLog: DeviceLogLimits = .init(), logRate: (rate: Double, burst: Double) = (5, 20),
        trustedProxies: [IPAddressRange] = [], log: CapturedLog? = nil, archives: [[UInt8]] = [], _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let folder = try TemporaryFolder("limits")
        defer { folder.remove() }
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        defer { try? store.close() }
        for archive in archives { _ = try await store.intake().save(signedArchive: archive) }
        var logger = log?.logger() ?? Logger(label: "test")
        if log == nil { logger.logLevel = .warning }
        var configuration = try OrderServer.Configuration(port: 0, validator: TestPKI.validator, logRate: logRate)
        configuration.connections = connections
        configuration.deviceLog = deviceLog
        configuration.trustedProxies = trustedProxies
        let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: logger)
        return try await server.application().test(.live) { client in try await body(try #require(client.port)) }
    }

    static let health = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
    static let healthAndClose = "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    /// Half a request head: what a slow-header attacker sends, and then nothing.
    static let halfHead = "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Wait: "
}

/// The deadlines are checked from below exactly (never closed before its time) and from above
/// loosely (closed within seconds of it): a full test run on two cores can delay the service's
/// timers by seconds.
@Suite("Connections are timed and capped: half-open, idle and slow clients can't hold the service (live HTTP, raw sockets)")
struct ConnectionLimitTests {
    @Test("A request head sent a byte every half second is closed at the header deadline, not kept alive by the trickle")
    func slowHeadTrickle() async throws {
        let limits = ConnectionLimits(headerTimeout: .seconds(2))
        try await LimitedService.run(connections: limits) { port in
            try await onOwnThread {
                let socket = try RawSocket(port: port)
                let start = Date()
                var closed = false
                // 47 bytes, at least 0.5 s apart: the trickle lasts 23.5 s or more. A deadline that
                // each byte put off would close the connection only after the last one.
                for byte in LimitedService.halfHead where !closed {
                    try? socket.write(String(byte))
                    closed = RawSocket.closedByServer([socket], seconds: 0.5)[0]
                }
                #expect(closed)
                #expect((1.9...22).contains(Date().timeIntervalSince(start)), "\(Date().timeIntervalSince(start)) s")
            }
        }
    }

    @Test("A keep-alive connection is served, then closed after the idle timeout; one in use is not")
    func idleKeepAlive() async throws {
        // The service counts idle time from the last request it read or answer it wrote, both after
        // the request was sent, so a connection whose next request leaves within the timeout of the
        // previous one's sending must still be open. The
        // client measures that gap itself: on a loaded machine its thread can oversleep by seconds,
        // and a sequence with a late request proves nothing, so it is run again on a new connection.
        let idle = 6.0
        let limits = ConnectionLimits(headerTimeout: .seconds(5), idleTimeout: .seconds(idle))
        try await LimitedService.run(connections: limits) { port in
            try await onOwnThread {
                var attempts = 0
                while true {
                    attempts += 1
                    let socket = try RawSocket(port: port)
                    var previousSend: Date?
                    var punctual = true
                    // Three requests a second apart on one connection: each well within the idle timeout.
                    for index in 0..<3 {
                        if index > 0 { Thread.sleep(forTimeInterval: 1) }
                        let sent = Date()
                        if let previousSend, sent.timeIntervalSince(previousSend) > idle - 1 {
                            punctual = false
                            break
                        }
                        previousSend = sent
                        let answer = try socket.exchange(LimitedService.health, seconds: 30)
                        #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && !answer.closed, "request \(index + 1): \(answer)")
                    }
                    guard punctual else {
                        #expect(attempts < 5, "this client's thread was late on every attempt")
                        if attempts < 5 { continue } else { return }
                    }
                    // The service read and answered the last request after it was sent, so it closes no
                    // sooner than the timeout after that.
                    let lastSend = try #require(previousSend)
                    #expect(RawSocket.closedByServer([socket], seconds: 40) == [true])
                    #expect((idle - 0.1...idle + 20).contains(Date().timeIntervalSince(lastSend)), "\(Date().timeIntervalSince(lastSend)) s")
                    return
                }
            }
        }
    }

    @Test("A request body that stops arriving is abandoned after the body timeout")
    func slowBody() async throws {
        let limits = ConnectionLimits(bodyTimeout: .seconds(1))
        try await LimitedService.run(connections: limits) { port in
            try await onOwnThread {
                let socket = try RawSocket(port: port)
                try socket.write("POST /v1/log HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"logs\": [")
                let start = Date()
                #expect(RawSocket.closedByServer([socket], seconds: 20) == [true])
                #expect((0.9...15).contains(Date().timeIntervalSince(start)), "\(Date().timeIntervalSince(start)) s")
            }
        }
    }

    @Test(
        "A request answered before its body ended (here 401, before the body is needed) closes the connection after the answer: the client reads the answer, and the rest of a 100 MB body is not read"
    )
    func earlyAnswerCloses() async throws {
        try await LimitedService.run { port in
            try await onOwnThread {
                let socket = try RawSocket(port: port)
                socket.sendTimeout(seconds: 10)
                let total = 100 * 1024 * 1024
                try socket.write(
                    "POST /v1/devices/d/registrations/order.com.example/o HTTP/1.1\r\nHost: localhost\r\n"
                        + "Authorization: AppleOrder wrong\r\nContent-Length: \(total)\r\n\r\n")
                let answer = socket.receive(seconds: 30)
                #expect(answer.text.hasPrefix("HTTP/1.1 401 "), "\(answer)")
                #expect(answer.text.lowercased().contains("connection: close"), "\(answer)")
                // Keep sending, as a client that doesn't read answers early would.
                let chunk = String(repeating: "x", count: 64 * 1024)
                var sent = 0
                let start = Date()
                while sent < total, (try? socket.write(chunk)) != nil { sent += chunk.utf8.count }
                #expect(sent < total / 4, "the service kept reading: \(sent) bytes taken")
                #expect(Date().timeIntervalSince(start) < 25, "\(Date().timeIntervalSince(start)) s")
            }
        }
    }

    @Test("A client that stops reading its answers is closed after the body timeout, not held forever")
    func stalledReader() async throws {
        let limits = ConnectionLimits(bodyTimeout: .seconds(1))
        let archive = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        try await LimitedService.run(connections: limits, archives: [archive]) { port in
            try await onOwnThread {
                let socket = try RawSocket(port: port)
                // 2,000 requests for a 10 kB archive, sent at once and never read: 20 MB of answers,
                // more than the sockets' buffers hold.
                let request =
                    "GET /v1/orders/\(SampleVersions.identifier.orderTypeIdentifier)/\(SampleVersions.identifier.orderIdentifier) HTTP/1.1\r\n"
                    + "Host: localhost\r\nAuthorization: AppleOrder q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU\r\n\r\n"
                let requests = 2_000
                socket.sendTimeout(seconds: 10)
                try? socket.write(String(repeating: request, count: requests))
                // Until the service has sent what the buffers hold, then past its body timeout.
                socket.waitUntilSenderStops(still: 2, limit: 60)
                Thread.sleep(forTimeInterval: 3)
                // Now read: the service gave up on this client, so the answers stop short of all of them.
                let (received, ended) = socket.drain(seconds: 20)
                #expect(ended, "the connection was still open after \(received) bytes")
                #expect(received < requests * archive.count, "\(received) bytes")
            }
        }
    }

    /// A keep-alive connection that has had one answer, and so is surely counted by the service.
    static func servedAndKept(port: Int, from source: String = "127.0.0.1") throws -> RawSocket {
        let socket = try RawSocket(port: port, from: source)
        let answer = try socket.exchange(LimitedService.health, seconds: 30)
        #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && !answer.closed, "\(answer)")
        return socket
    }

    /// `/health` once the service has seen a held connection close (within 30 s: the test machine
    /// may be busy).
    static func servedSoon(port: Int, from source: String = "127.0.0.1") throws -> (text: String, closed: Bool) {
        let deadline = Date().addingTimeInterval(30)
        while true {
            Thread.sleep(forTimeInterval: 0.1)
            let answer = try RawSocket(port: port, from: source).exchange(LimitedService.healthAndClose)
            if answer.text.hasPrefix("HTTP/1.1 200 ") || Date() > deadline { return answer }
        }
    }

    @Test("Past the per-address cap the next connection from that address is closed at once; another address is served")
    func perAddressCap() async throws {
        let limits = ConnectionLimits(idleTimeout: .seconds(30), maximumConnectionsPerAddress: 8)
        try await LimitedService.run(connections: limits) { port in
            try await onOwnThread {
                // Eight keep-alive connections, each answered once: so all eight are counted before the ninth.
                // From 127.0.0.3: the test harness's own client connects from 127.0.0.1.
                var held = try (0..<8).map { _ in try Self.servedAndKept(port: port, from: "127.0.0.3") }
                let refused = try RawSocket(port: port, from: "127.0.0.3")
                try? refused.write(LimitedService.health)
                let answer = refused.receive(seconds: 10)
                #expect(answer.closed && answer.text.isEmpty, "the ninth connection from 127.0.0.1: \(answer)")
                let other = try RawSocket(port: port, from: "127.0.0.2").exchange(LimitedService.healthAndClose)
                #expect(other.text.hasPrefix("HTTP/1.1 200 "), "\(other)")
                #expect(!RawSocket.closedByServer(held, seconds: 0.2).contains(true))
                // One of the eight goes: 127.0.0.1 is served again.
                held.removeLast()
                let again = try Self.servedSoon(port: port, from: "127.0.0.3")
                #expect(again.text.hasPrefix("HTTP/1.1 200 "), "\(again)")
            }
        }
    }

    @Test(
        "At the global cap a new connection is answered and the connection idle longest is closed to make room"
    )
    func globalCap() async throws {
        let limits = ConnectionLimits(idleTimeout: .seconds(30), maximumConnections: 6)
        try await LimitedService.run(connections: limits) { port in
            try await onOwnThread {
                // Ten connections from new addresses, one after the other, each answered and kept
                // (idle, waiting for its next request): past the sixth, each new one takes the
                // place of the one idle longest (the test harness's client may hold one as well).
                var held: [RawSocket] = []
                for index in 0..<10 {
                    let socket = try RawSocket(port: port, from: "127.0.0.\(10 + index)")
                    let answer = try socket.exchange(LimitedService.health)
                    #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && !answer.closed, "connection \(index + 1): \(answer)")
                    held.append(socket)
                }
                let closed = RawSocket.closedByServer(held, seconds: 1)
                let open = closed.filter { !$0 }.count
                #expect((5...6).contains(open), "\(open) of the 10 still open: \(closed)")
                #expect(closed == closed.sorted(by: { $0 && !$1 }), "the oldest were closed first: \(closed)")
                // (That a connection whose request is being answered never gives way is
                // DeviceLogLimitTests.capClosesTheLongestWaiting, on the counter itself.)
            }
        }
    }
}
