import HTTPTypes
import HummingbirdCore
import HummingbirdTLS
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOSSL
import Synchronization

extension HTTPServerBuilder {
    /// HTTP/1.1, over TLS when `tls` is given, behind the connection caps and deadlines of
    /// `limits`, with the service's JSON error body on the 400 of a request that isn't valid HTTP.
    static func guarded(limits: ConnectionLimits, trustedProxies: TrustedProxies, tls: TLSConfiguration?) -> HTTPServerBuilder {
        let counter = ConnectionCounter(
            maximum: limits.effectiveMaximumConnections, maximumPerAddress: limits.maximumConnectionsPerAddress, exempt: trustedProxies)
        let configuration = HTTP1Channel.Configuration(additionalChannelHandlers: [RequestProgress()], idleTimeout: .init(limits.idleTimeout))
        return HTTPServerBuilder { responder in
            let http1 = HTTP1Channel(responder: responder, configuration: configuration)
            let unserved = UnservedConnections()
            guard let tls else { return GuardedChildChannel(base: http1, limits: limits, counter: counter, unserved: unserved) }
            return GuardedChildChannel(base: try TLSChannel(http1, tlsConfiguration: tls), limits: limits, counter: counter, unserved: unserved)
        }
    }
}

/// Wraps the service's child channel (HTTP/1.1, with or without TLS) with what Hummingbird
/// doesn't offer: the connection caps and the header and body deadlines. Hummingbird's
/// `availableConnectionsDelegate` stops accepting past its maximum, which leaves every further
/// client, `/health` included, waiting in the listen backlog; here a connection over a cap is
/// accepted and closed at once, so the others go on being served. The idle timeout of keep-alive
/// connections is Hummingbird's own (`HTTP1Channel.Configuration.idleTimeout`). Accepted
/// connections are held until served, so cancelling the service closes them instead of trapping
/// (``UnservedConnections``).
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel where Base.Value == UnservedConnections.Connection {
    typealias Value = Base.Value

    let base: Base
    let limits: ConnectionLimits
    let counter: ConnectionCounter
    let unserved: UnservedConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard let ticket = counter.open(address, close: { channel.close(promise: nil) }) else {
            logger.debug("connection refused: over the connection cap", metadata: ["client": .string(address)])
            // Closed as soon as it is active, before a byte is read: the channel isn't registered
            // yet, and only a registered channel closes cleanly.
            do {
                try channel.pipeline.syncOperations.addHandler(CloseAtOnce())
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return held(base.setup(channel: channel, logger: logger))
        }
        channel.closeFuture.whenComplete { _ in counter.close(ticket) }
        do {
            // First in the pipeline (before TLS and the HTTP decoder): it sees every byte arrive.
            try channel.pipeline.syncOperations.addHandler(
                ConnectionDeadlines(
                    headerTimeout: .init(limits.headerTimeout), bodyTimeout: .init(limits.bodyTimeout),
                    bodyMinimumRate: limits.bodyMinimumRate, waiting: ConnectionWaiting(counter: counter, ticket: ticket)))
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return held(base.setup(channel: channel, logger: logger))
    }

    private func held(_ setup: EventLoopFuture<Value>) -> EventLoopFuture<Value> {
        setup.map { [unserved] connection in
            unserved.hold(connection)
            return connection
        }
    }

    func handle(value: Value, logger: Logger) async {
        // A connection closed while it waited has been finished already.
        guard unserved.serve(value) else { return }
        await base.handle(value: value, logger: logger)
    }
}

/// Closes its connection the moment it becomes active, before reading from it.
final class CloseAtOnce: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.close(promise: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// Open connections, in all and per client address. Addresses in `exempt` (trusted proxies,
/// which carry many clients) count only towards the global cap.
///
/// At the global cap a new connection takes the place of one that waits on its client (for its
/// request to arrive, in its head, in its body or idle between requests, or for the client to
/// take a response), which is closed: a client that sends its requests or reads its answers
/// slowly, or a crowd of them, can hold connections only until others need them. The one that
/// gives way belongs to the address (an IPv6 /64) with the most waiting connections, and is the
/// one of that address that has waited longest; when no address has more than one, it is the
/// longest waiting of all. So a crowd of addresses churning connections at the cap closes its
/// own, however fast it churns: a client with one connection gives it up only when no address
/// holds more. A connection whose request has arrived and is being answered is not closed
/// for a new one.
package final class ConnectionCounter: Sendable {
    /// What ``open(_:close:)`` hands out and ``close(_:)`` takes back.
    package struct Ticket: Sendable {
        let id: Int
        /// The key of the per-address cap (`nil` for an exempt address).
        let address: String?
        /// The key its waiting counts against (an exempt address's too).
        let key: String
    }

    /// Connections that could give way to a new one, longest waiting first: a queue of turns,
    /// each connection's latest turn the one that counts (a connection that waits again goes to
    /// the back; one being answered or closed leaves its turns behind, skipped when reached).
    /// Taking the longest waiting is O(1) amortized, so a flood of new connections at the cap
    /// costs each one a few steps under the lock, not a look at every connection.
    private struct Waiting {
        private var turns: [(id: Int, turn: Int)] = []
        private var head = 0
        private var latest: [Int: Int] = [:]
        private var nextTurn = 0
        /// Turns left behind that may pile up before the queue is rebuilt.
        let slack: Int

        init(slack: Int) { self.slack = slack }

        var count: Int { latest.count }

        mutating func add(_ id: Int) {
            nextTurn += 1
            latest[id] = nextTurn
            turns.append((id, nextTurn))
            // Turns left behind are dropped once they outnumber the live ones.
            if turns.count - head > 2 * latest.count + slack {
                turns = latest.map { (id: $0.key, turn: $0.value) }.sorted { $0.turn < $1.turn }
                head = 0
            }
        }

        mutating func remove(_ id: Int) { latest[id] = nil }

        func contains(_ id: Int) -> Bool { latest[id] != nil }

        /// The longest-waiting connection, taken out of the queue.
        mutating func takeOldest() -> Int? {
            while head < turns.count {
                let (id, turn) = turns[head]
                head += 1
                if head > slack, head * 2 > turns.count {
                    turns.removeFirst(head)
                    head = 0
                }
                if latest[id] == turn {
                    latest[id] = nil
                    return id
                }
            }
            return nil
        }
    }

    /// The waiting connections, in all and per address, and the addresses by how many of their
    /// connections wait, so that the one with the most is found in O(1).
    private struct WaitingByAddress {
        var all = Waiting(slack: 1_024)
        var perAddress: [String: Waiting] = [:]
        /// Each waiting connection's address.
        var addresses: [Int: String] = [:]
        /// Addresses by their count of waiting connections (counts of 1 and more).
        var addressesByCount: [Int: Set<String>] = [:]
        var largestCount = 0

        func contains(_ id: Int) -> Bool { addresses[id] != nil }

        mutating func add(_ id: Int, address: String) {
            all.add(id)
            addresses[id] = address
            perAddress[address, default: Waiting(slack: 8)].add(id)
            moved(address, by: 1)
        }

        mutating func remove(_ id: Int) {
            guard let address = addresses.removeValue(forKey: id) else { return }
            all.remove(id)
            perAddress[address]?.remove(id)
            moved(address, by: -1)
        }

        /// The connection to give way, taken out: the longest waiting of the address with the
        /// most waiting connections, or of all when none has more than one.
        mutating func takeOldest() -> Int? {
            let crowded = largestCount > 1 ? addressesByCount[largestCount]?.first : nil
            guard let id = crowded.flatMap({ perAddress[$0]?.takeOldest() }) ?? all.takeOldest() else { return nil }
            remove(id)  // out of the other queue and the counts too
            return id
        }

        /// Keeps the count index right after one of `address`'s connections started or stopped
        /// waiting (counts move by one, so the largest moves by at most one).
        private mutating func moved(_ address: String, by change: Int) {
            let now = perAddress[address]?.count ?? 0
            let before = now - change
            if before > 0 {
                addressesByCount[before]?.remove(address)
                if addressesByCount[before]?.isEmpty == true { addressesByCount[before] = nil }
            }
            if now > 0 {
                addressesByCount[now, default: []].insert(address)
            } else {
                perAddress[address] = nil
            }
            if now > largestCount {
                largestCount = now
            } else if before == largestCount, addressesByCount[before] == nil {
                largestCount = before - 1
            }
        }
    }

    private struct Counts {
        var total = 0
        var perAddress: [String: Int] = [:]
        var nextID = 0
        /// How to close each open connection (until it is closed or has given way).
        var closers: [Int: @Sendable () -> Void] = [:]
        var waiting = WaitingByAddress()
    }

    let maximum: Int
    let maximumPerAddress: Int
    let exempt: TrustedProxies
    private let counts = Mutex(Counts())
    private let evictions = Counter(label: "wallet_orders_connections_evicted_total")

    package init(maximum: Int, maximumPerAddress: Int, exempt: TrustedProxies) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
        self.exempt = exempt
    }

    /// Counts a new connection from `address` (an IPv6 address with the rest of its /64:
    /// ``IPAddressRange/limitKey(_:)``), or `nil` when it is over a cap. At the global cap a
    /// waiting connection is closed (`close`, as it was given to this method) to make room (see
    /// the type's description for which); the new one counts as waiting from now.
    package func open(_ address: String, close: @escaping @Sendable () -> Void) -> Ticket? {
        let key = IPAddressRange.limitKey(address)
        let perAddress = exempt.contains(address) ? nil : key
        let (ticket, evicted): (Ticket?, (@Sendable () -> Void)?) = counts.withLock { counts in
            if let perAddress, counts.perAddress[perAddress, default: 0] >= maximumPerAddress { return (nil, nil) }
            var evicted: (@Sendable () -> Void)?
            if counts.total >= maximum {
                guard let chosen = counts.waiting.takeOldest() else { return (nil, nil) }
                // Its slot is the new connection's from now; its close, when it comes, takes back
                // only its own counts.
                evicted = counts.closers.removeValue(forKey: chosen)
            }
            if let perAddress { counts.perAddress[perAddress, default: 0] += 1 }
            counts.total += 1
            counts.nextID += 1
            counts.closers[counts.nextID] = close
            counts.waiting.add(counts.nextID, address: key)
            return (Ticket(id: counts.nextID, address: perAddress, key: key), evicted)
        }
        if let evicted {
            evictions.increment()
            evicted()
        }
        return ticket
    }

    /// The connection now waits on its client: for a request (its next one, after an answer),
    /// or for the client to take what it is sent. It goes to the back of the queue, unless it
    /// waits there already (a connection idle, then slow to send its next request, keeps the
    /// place it took when it went idle).
    package func waiting(_ ticket: Ticket) {
        counts.withLock { counts in
            if counts.closers[ticket.id] != nil, !counts.waiting.contains(ticket.id) {
                counts.waiting.add(ticket.id, address: ticket.key)
            }
        }
    }

    /// The connection's request has arrived and is being answered: it can't be closed for a new one.
    package func serving(_ ticket: Ticket) {
        counts.withLock { $0.waiting.remove(ticket.id) }
    }

    /// Forgets a closed connection.
    package func close(_ ticket: Ticket) {
        counts.withLock { counts in
            counts.total -= 1
            counts.closers[ticket.id] = nil
            counts.waiting.remove(ticket.id)
            if let address = ticket.address {
                let open = counts.perAddress[address, default: 1] - 1
                counts.perAddress[address] = open > 0 ? open : nil
            }
        }
    }

    /// Open connections now.
    package var total: Int { counts.withLock { $0.total } }
}

/// One connection's place in its ``ConnectionCounter``: ``ConnectionDeadlines`` says when it waits
/// for a request and when it is being answered.
struct ConnectionWaiting {
    let counter: ConnectionCounter
    let ticket: ConnectionCounter.Ticket
}

/// Closes a connection whose request head doesn't arrive within `headerTimeout` (counted from the
/// connection's start, or from the first byte of a later request), whose request body sends
/// nothing for `bodyTimeout` or whose request falls behind `bodyMinimumRate` (bytes a second on the
/// connection, head and framing included, on average from the request's first byte after a head
/// start of `headerTimeout`: a body trickled a byte at a time is closed about `headerTimeout`
/// after the request began however regularly the bytes come), or whose client takes nothing of a
/// response for `bodyTimeout` (the socket stays unwritable). After an answer sent before its request's body ended (a 413, a 401
/// that didn't need the body), it reads at most ``lingerBytes`` more for up to ``lingerTime``, so
/// that the client, still sending, can read the answer, then closes. It sits first in the
/// pipeline, where it sees bytes arrive; ``RequestProgress``, after the HTTP decoder, tells it
/// where each request is. It also tells the ``ConnectionCounter`` whether the connection waits
/// for a request (and so may give way to a new connection at the cap) or is being answered.
final class ConnectionDeadlines: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What is read of a request after its early answer before the connection is closed.
    static let lingerBytes = 256 * 1024
    /// How long the rest of such a request may take.
    static let lingerTime = TimeAmount.seconds(2)

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let bodyMinimumRate: Int64
    private let waiting: ConnectionWaiting
    private var context: ChannelHandlerContext?
    /// Requests whose head has arrived and whose response hasn't been sent.
    private var requestsOpen = 0
    private(set) var readingBody = false
    /// When the head now awaited started to arrive (the connection's start for the first).
    private var headStarted: NIODeadline?
    private var lastBodyRead = NIODeadline.now()
    /// When the request now arriving started (its head's first byte; the connection's start for
    /// the first), and the bytes read on the connection since: its head, its body, their framing.
    private var requestStarted = NIODeadline.now()
    private var requestBytes: Int64 = 0
    /// Since when the socket hasn't taken what the service writes.
    private var writeStalled: NIODeadline?
    /// Set once a request was answered before its body ended: the bytes that may still be read,
    /// and until when.
    private var lingering: (bytesLeft: Int, until: NIODeadline)?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount, bodyMinimumRate: Int, waiting: ConnectionWaiting) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyMinimumRate = Int64(max(1, bodyMinimumRate))
        self.waiting = waiting
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        headStarted = .now()
        requestStarted = headStarted!
        schedule()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let lingering {
            let left = lingering.bytesLeft - unwrapInboundIn(data).readableBytes
            guard left > 0 else {
                context.close(promise: nil)
                return
            }
            self.lingering?.bytesLeft = left
        }
        let bytes = Int64(unwrapInboundIn(data).readableBytes)
        if readingBody {
            lastBodyRead = .now()
            requestBytes += bytes
        } else if headStarted == nil {
            headStarted = .now()
            requestStarted = headStarted!
            requestBytes = bytes
            schedule()
        } else {
            requestBytes += bytes
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writeStalled = context.channel.isWritable ? nil : .now()
        // A connection whose client doesn't take its answer waits on the client: at the cap it
        // gives way to a new connection, as one that doesn't send its request does.
        if writeStalled != nil {
            waiting.counter.waiting(waiting.ticket)
        } else if requestsOpen > 0, !readingBody {
            waiting.counter.serving(waiting.ticket)
        }
        schedule()
        context.fireChannelWritabilityChanged()
    }

    /// A request's head arrived: its body, if any, is next.
    func headReceived() {
        headStarted = nil
        readingBody = true
        requestsOpen += 1
        lastBodyRead = .now()
        schedule()
    }

    /// A request's end arrived: it is being answered.
    func requestReceived() {
        readingBody = false
        waiting.counter.serving(waiting.ticket)
        if lingering != nil { context?.close(promise: nil) }
    }

    /// A response's end was written.
    func responseSent() {
        requestsOpen = max(0, requestsOpen - 1)
        if requestsOpen == 0, !readingBody { waiting.counter.waiting(waiting.ticket) }
        schedule()
    }

    /// A response's end was written before its request's body ended: read a little more of it
    /// (``lingerBytes``, ``lingerTime``), then close.
    func answeredBeforeBodyEnded() {
        lingering = (Self.lingerBytes, .now() + Self.lingerTime)
        schedule()
    }

    /// When the connection is closed unless something happens first; `nil` while the service is
    /// answering (and its client takes the answer), or between requests (where Hummingbird's idle
    /// timeout applies).
    private var deadline: NIODeadline? {
        let awaited: NIODeadline? =
            if readingBody {
                // (Bytes capped where their nanoseconds still fit an Int64: 8 GiB, past any body the service reads.)
                min(
                    lastBodyRead + bodyTimeout,
                    requestStarted + headerTimeout + .nanoseconds(min(requestBytes, 1 << 33) * 1_000_000_000 / bodyMinimumRate))
            } else if requestsOpen > 0 { nil } else { headStarted.map { $0 + headerTimeout } }
        return [awaited, writeStalled.map { $0 + bodyTimeout }, lingering?.until].compactMap { $0 }.min()
    }

    private func schedule() {
        guard let deadline, let context else { return }
        if let timerDeadline, timerDeadline <= deadline { return }  // the timer looks again when it fires
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in expired() }
    }

    private func expired() {
        timer = nil
        timerDeadline = nil
        guard let deadline, let context else { return }
        if deadline <= .now() {
            context.close(promise: nil)
        } else {
            schedule()
        }
    }
}

/// Follows each request of a connection after the HTTP decoder (Hummingbird's
/// `additionalChannelHandlers`), where request heads and ends arrive and response parts leave:
///
/// - It tells ``ConnectionDeadlines`` where each request is.
/// - It gives the service's JSON error body to the 400 that Hummingbird writes, with no body, when
///   a request isn't valid HTTP/1.1 (a header value with a control character, for example): the
///   HTTP decoder reports an `HTTPParserError` up the pipeline, Hummingbird answers `400` with
///   `Content-Length: 0` and closes the connection. The error is noted on its way in and the
///   answer filled in on its way out.
///
/// One handler for both: every handler in the pipeline is called for every part of every request
/// and answer.
final class RequestProgress: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The answer to a request that isn't valid HTTP/1.1.
    static let invalidHTTP = ServiceError.badRequest(
        "bad-http", "The request is not valid HTTP/1.1.",
        hint: "Check the request line and the headers: header values may not hold control characters.")

    private var deadlines: ConnectionDeadlines?
    private var parseFailed = false
    /// The response being written answers a request whose body hasn't ended: the connection
    /// closes after it.
    private var answeringEarly = false

    func handlerAdded(context: ChannelHandlerContext) {
        deadlines = try? context.pipeline.syncOperations.handler(type: ConnectionDeadlines.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadlines = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines?.headReceived()
        case .body: break
        case .end: deadlines?.requestReceived()
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { parseFailed = true }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .end:
            deadlines?.responseSent()
            if answeringEarly {
                answeringEarly = false
                deadlines?.answeredBeforeBodyEnded()
            }
        case .head(var head) where parseFailed && head.status == .badRequest && head.headerFields[.contentType] == nil:
            parseFailed = false
            let body = Self.invalidHTTP.body
            for field in Self.invalidHTTP.responseHeaders { head.headerFields[field.name] = field.value }
            head.headerFields[.contentLength] = String(body.count)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
            return
        case .head(var head) where deadlines?.readingBody == true:
            // Answered before the body ended (413, or a refusal that didn't need it): the rest of
            // the body is not read, so this is the connection's last answer.
            answeringEarly = true
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .head, .body:
            break
        }
        context.write(data, promise: promise)
    }
}
