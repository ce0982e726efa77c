import Configuration
import WalletOrders

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long a connection may take and how many there may be: what keeps connections that send
/// half a request, or nothing, from holding the service's file descriptors.
///
/// | limit | default | what happens |
/// |---|---|---|
/// | ``headerTimeout`` | 10 s | a request's head (request line and headers) must arrive within it, counted from the connection's start or from the first byte of a later request; then the connection is closed |
/// | ``idleTimeout`` | 60 s | a keep-alive connection with no request in progress is closed after it (Hummingbird's own idle timeout, which also closes a connection whose request sends nothing for that long: the header and body deadlines may not be longer) |
/// | ``bodyTimeout`` | 30 s | a request body that sends nothing for this long, or an answer the client takes nothing of for this long, is abandoned and the connection closed |
/// | ``bodyMinimumRate`` | 4,096 bytes/s | a request must arrive at this rate on average after a head start of ``headerTimeout``: by `t` seconds after its first byte, `(t − headerTimeout) × rate` bytes on the connection (head, body and their framing, TLS records included); a slower one is abandoned and the connection closed. So a registration's or a log's few hundred bytes must all arrive within about ``headerTimeout``, and an upload gets time in proportion to its size |
/// | ``maximumConnections`` | 10,000 (less when the open-file limit is lower) | at it, a new connection takes the place of the open one that has waited longest on its client (for its request, in its head, its body or idle between requests, or with its socket full of an answer it doesn't take), which is closed; connections whose request is being answered are not closed for it. With none to close, the new connection is closed at once, before a byte is read |
/// | ``maximumConnectionsPerAddress`` | 64 | past it, a new connection from that client address is closed at once (an IPv6 client counts per /64, which one subscriber is given to pick addresses from); trusted proxies (``OrderServer/Configuration/trustedProxies``) count only towards the global cap |
///
/// A connection refused by a cap costs one `accept` and one `close`: the service goes on
/// answering every other client, `/health` included. Connections that send their requests slowly
/// can't hold the service's connections from others for long: each is closed by the body rate or
/// the header deadline within seconds, and at the cap the longest-waiting gives way to a new
/// client. The price: under a flood of new connections at the cap, a legitimate slow upload or
/// idle keep-alive connection can be closed too, and has to be tried again.
public struct ConnectionLimits: Sendable, Equatable {
    /// How long a request's head may take to arrive.
    public var headerTimeout: Duration
    /// How long a keep-alive connection may wait for its next request.
    public var idleTimeout: Duration
    /// How long a request body may go without sending a byte, and an answer without the client
    /// taking a byte.
    public var bodyTimeout: Duration
    /// The rate, in bytes a second on the connection, a request must keep up on average once
    /// ``headerTimeout`` has passed since its first byte.
    public var bodyMinimumRate: Int
    /// Open connections in all; at it, a new connection takes the place of the one that has waited
    /// longest on its client, or is closed at once when none waits. The service lowers it to what
    /// the process's open-file limit allows (less ``reservedFileDescriptors``).
    public var maximumConnections: Int
    /// Open connections from one client address; further ones are closed at once.
    public var maximumConnectionsPerAddress: Int

    /// Descriptors kept back from ``maximumConnections`` for the store, the log and APNs.
    public static let reservedFileDescriptors = 128

    /// Creates limits; every default is the one in the table above.
    public init(
        headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), bodyTimeout: Duration = .seconds(30),
        bodyMinimumRate: Int = 4_096, maximumConnections: Int = 10_000, maximumConnectionsPerAddress: Int = 64
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyMinimumRate = bodyMinimumRate
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    /// ``maximumConnections``, lowered so that the connections and ``reservedFileDescriptors``
    /// fit under the process's soft open-file limit.
    public var effectiveMaximumConnections: Int {
        guard let limit = Self.openFileLimit()?.soft else { return maximumConnections }
        return max(1, min(maximumConnections, limit - Self.reservedFileDescriptors))
    }

    /// The process's open-file limit (`RLIMIT_NOFILE`), soft and hard; `nil` when unlimited or
    /// unknown.
    public static func openFileLimit() -> (soft: Int, hard: Int)? {
        var limit = rlimit()
        guard getrlimit(Self.noFile, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_max))
    }

    /// Raises the soft open-file limit to the hard one (on macOS, to `OPEN_MAX` when the hard
    /// limit is unlimited), as a server that holds a descriptor per connection needs. Returns the
    /// soft limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Self.noFile, &limit) == 0 else { return nil }
        var target = limit.rlim_max
        #if canImport(Darwin)
            target = min(target, rlim_t(OPEN_MAX))
        #endif
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(Self.noFile, &limit)
        }
        return openFileLimit()?.soft
    }

    #if canImport(Glibc)
        private static let noFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let noFile = RLIMIT_NOFILE
    #endif
}

extension OrderServer.Configuration {
    /// Reads ``connections``, ``deviceLog`` and ``trustedProxies`` (the keys
    /// `connections.headerTimeoutSeconds`, `connections.idleTimeoutSeconds`,
    /// `connections.bodyTimeoutSeconds`, `connections.bodyMinimumBytesPerSecond`, `connections.maximum`,
    /// `connections.maximumPerAddress`,
    /// `log.requestBytes`, `log.budgetBytes`, `log.budgetSeconds`, `trustedProxies`).
    mutating func readLimits(_ config: ConfigReader) throws {
        func seconds(_ key: String, _ fallback: Duration) throws -> Duration {
            let fallbackSeconds = Double(fallback.components.seconds) + Double(fallback.components.attoseconds) / 1e18
            let value = config.double(forKey: ConfigKey(key), default: fallbackSeconds)
            guard value.isFinite, (0.001...86_400).contains(value) else { throw Self.invalidLimit(key, "\(value)", "seconds from 0.001 to 86400") }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        func count(_ key: String, _ fallback: Int) throws -> Int {
            let value = config.int(forKey: ConfigKey(key), default: fallback)
            guard value >= 1 else { throw Self.invalidLimit(key, "\(value)", "a whole number, 1 or more") }
            return value
        }
        let defaults = ConnectionLimits()
        connections = ConnectionLimits(
            headerTimeout: try seconds("connections.headerTimeoutSeconds", defaults.headerTimeout),
            idleTimeout: try seconds("connections.idleTimeoutSeconds", defaults.idleTimeout),
            bodyTimeout: try seconds("connections.bodyTimeoutSeconds", defaults.bodyTimeout),
            bodyMinimumRate: try count("connections.bodyMinimumBytesPerSecond", defaults.bodyMinimumRate),
            maximumConnections: try count("connections.maximum", defaults.maximumConnections),
            maximumConnectionsPerAddress: try count("connections.maximumPerAddress", defaults.maximumConnectionsPerAddress))
        // Hummingbird's idle timeout also closes a connection whose request stops arriving: a
        // longer header or body deadline would never be reached, so it is an error, not a quiet cap.
        for (key, value) in [
            ("connections.headerTimeoutSeconds", connections.headerTimeout), ("connections.bodyTimeoutSeconds", connections.bodyTimeout),
        ]
        where value > connections.idleTimeout {
            throw WalletOrdersError(
                .invalidConfiguration,
                "The setting \(key) (\(value.seconds) s) is longer than connections.idleTimeoutSeconds (\(connections.idleTimeout.seconds) s).",
                hint:
                    "A connection that sends nothing for the idle timeout is closed, in a request too: raise connections.idleTimeoutSeconds with it."
            )
        }
        let log = DeviceLogLimits()
        deviceLog = DeviceLogLimits(
            requestBytes: try count("log.requestBytes", log.requestBytes), budgetBytes: try count("log.budgetBytes", log.budgetBytes),
            budgetWindow: try seconds("log.budgetSeconds", log.budgetWindow))
        trustedProxies = try config.stringArray(forKey: "trustedProxies", default: []).map { text in
            guard let range = IPAddressRange(text) else {
                throw Self.invalidLimit("trustedProxies", text, "an address or a CIDR range, e.g. 10.0.0.0/8")
            }
            // Trusting every address lets any client name itself in X-Forwarded-For, so the
            // per-address caps and rates count whatever the client says: refused, not warned of.
            guard !range.holdsEveryAddress else {
                throw WalletOrdersError(
                    .invalidConfiguration,
                    "The setting trustedProxies is \(text): that trusts every address, so any client could name any address in X-Forwarded-For and the per-address limits would count what clients claim.",
                    hint: "Name the reverse proxies' own addresses or ranges (for example 10.0.0.0/8, or 127.0.0.1 for a proxy on this machine).")
            }
            return range
        }
    }

    private static func invalidLimit(_ key: String, _ value: String, _ expected: String) -> WalletOrdersError {
        WalletOrdersError(.invalidConfiguration, "The setting \(key) is \(value); it takes \(expected).")
    }
}
