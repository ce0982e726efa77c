/// How much `POST /v1/log` may write to the service's log. Anyone can post device logs (Apple's
/// protocol gives them no credentials), so what one request, one client and everyone together
/// can write is bounded:
///
/// | limit | default | |
/// |---|---|---|
/// | ``requestBytes`` | 4 KiB | the messages of one request, escaped, in one log record; the text is cut to this before it is escaped |
/// | per client | 5 requests a second, bursts of 20 (``OrderServer/Configuration/logRate``) | past it 429 with `Retry-After` |
/// | ``budgetBytes`` every ``budgetWindow`` | 1 MiB a minute | for every client together, each record counted with ``recordOverheadBytes``; past it 429 `log-budget-exhausted` with `Retry-After` |
///
/// A client is its socket address, or the address a trusted proxy forwarded
/// (``OrderServer/Configuration/trustedProxies``).
public struct DeviceLogLimits: Sendable, Equatable {
    /// The bytes of messages one request may log.
    public var requestBytes: Int
    /// The bytes every client together may log in ``budgetWindow``.
    public var budgetBytes: Int
    /// The window of ``budgetBytes``: the budget comes back evenly over it.
    public var budgetWindow: Duration

    /// What a record costs the budget beyond its messages: the line, the time, the client.
    public static let recordOverheadBytes = 256

    /// Creates limits; every default is the one in the table above.
    public init(requestBytes: Int = 4_096, budgetBytes: Int = 1 << 20, budgetWindow: Duration = .seconds(60)) {
        self.requestBytes = requestBytes
        self.budgetBytes = budgetBytes
        self.budgetWindow = budgetWindow
    }
}
