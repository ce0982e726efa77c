import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection to 127.0.0.1 from a chosen loopback address (`127.0.0.2` is on Linux's
/// loopback without setup), driven byte by byte: for clients that hold connections half-open, as
/// an attacker would. Blocking: use it on a thread of its own (`onOwnThread`).
final class RawSocket: @unchecked Sendable {
    let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects from `source` (port chosen by the kernel) to 127.0.0.1:`port`.
    init(port: Int, from source: String = "127.0.0.1") throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        // A throw from here on runs deinit, which closes the descriptor.
        var local = try Self.address(source, port: 0)
        try Self.check(
            withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            },
            "bind \(source)")
        var remote = try Self.address("127.0.0.1", port: port)
        try Self.check(
            withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            },
            "connect")
    }

    deinit { close(descriptor) }

    /// Sends every byte of `text`.
    func write(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// Reads until the server closes, one whole response (by its `Content-Length`) has arrived,
    /// or `seconds` pass: what it sent, and whether it closed.
    func receive(seconds: Double) -> (text: String, closed: Bool) {
        var answer: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while !Self.isWholeResponse(answer) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, Self.waitReadable([descriptor], seconds: left).contains(descriptor) else { break }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: answer, as: UTF8.self), true) }
            answer += buffer[..<count]
        }
        return (String(decoding: answer, as: UTF8.self), false)
    }

    private static func isWholeResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let field = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text[end.upperBound...].utf8.count >= length
    }

    /// Makes a send that can't go on for `seconds` fail instead of blocking.
    func sendTimeout(seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Waits, without reading, until some bytes have arrived and then not grown for `still`
    /// seconds (the server stopped sending: its answers fill the socket's buffers, or it is done),
    /// at most `limit` seconds. A loaded machine may take a while to send what fits.
    func waitUntilSenderStops(still: Double, limit: Double) {
        var buffer = [UInt8](repeating: 0, count: 64 << 20)
        let deadline = Date().addingTimeInterval(limit)
        var last = -1
        var since = Date()
        while Date() < deadline {
            let waiting = recv(descriptor, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
            // Nothing yet is not a stop: a loaded server may not have begun answering.
            if waiting <= 0 {
                Thread.sleep(forTimeInterval: 0.25)
                continue
            }
            if waiting != last {
                last = waiting
                since = Date()
            } else if Date().timeIntervalSince(since) >= still {
                return
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }

    /// Reads everything until the server ends the connection (a close or a reset) or nothing
    /// arrives for `seconds`: how many bytes came, and whether the connection ended.
    func drain(seconds: Double) -> (bytes: Int, ended: Bool) {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Self.waitReadable([descriptor], seconds: seconds).contains(descriptor) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (total, true) }
            total += count
        }
        return (total, false)
    }

    /// Sends `request` and reads one response (`Connection: close` requests end with the close).
    func exchange(_ request: String, seconds: Double = 30) throws -> (text: String, closed: Bool) {
        try write(request)
        return receive(seconds: seconds)
    }

    /// Which of `descriptors` are readable (data, or the peer's close) within `seconds`.
    static func waitReadable(_ descriptors: [Int32], seconds: Double) -> Set<Int32> {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&polled, nfds_t(polled.count), Int32(max(0, seconds * 1000))) > 0 else { return [] }
        return Set(polled.filter { $0.revents != 0 }.map(\.fd))
    }

    /// Whether the server closed each of `sockets` (it becomes readable with no data) within
    /// `seconds`; sockets with data pending are read first.
    static func closedByServer(_ sockets: [RawSocket], seconds: Double) -> [Bool] {
        var closed = [Bool](repeating: false, count: sockets.count)
        let index = Dictionary(uniqueKeysWithValues: sockets.enumerated().map { ($1.descriptor, $0) })
        let deadline = Date().addingTimeInterval(seconds)
        while closed.contains(false), deadline.timeIntervalSinceNow > 0 {
            let open = sockets.indices.filter { !closed[$0] }.map { sockets[$0].descriptor }
            for descriptor in waitReadable(open, seconds: min(0.2, deadline.timeIntervalSinceNow)) {
                var buffer = [UInt8](repeating: 0, count: 4_096)
                if recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) <= 0, let at = index[descriptor] { closed[at] = true }
            }
        }
        return closed
    }

    private static func address(_ text: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { throw Failure(description: "not an IPv4 address: \(text)") }
        return address
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else { throw Failure(description: "\(what): errno \(errno)") }
    }
}
