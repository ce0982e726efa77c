import WalletOrdersServer

extension ConnectionLimits {
    /// The deadlines of a service under HummingbirdTesting's live client. That client opens one
    /// connection when the test starts and sends every request of the test on it, so the service's
    /// header deadline (10 s by default) runs from the test's start to its first request, and its
    /// idle timeout over every pause between requests. On a test machine running several suites at
    /// once a test's own setup (a PostgreSQL store, archives signed beside it) can take longer than
    /// that, and the service then rightly closes a connection the client is about to use ("I/O on
    /// closed channel"). The deadlines themselves are tested with clients of their own
    /// (`ConnectionLimitTests`).
    static let liveTestClient = ConnectionLimits(headerTimeout: .seconds(600), idleTimeout: .seconds(600))
}
