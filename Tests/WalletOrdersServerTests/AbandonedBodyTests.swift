import Foundation
import Logging
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

/// A body that stops before its end is the client's doing: the request log and the request
/// metrics count it as 408 `body-incomplete`, never as a 500 (which pages an operator). Seen: a
/// stalled body, and one whose client hung up, each logged and counted as a 500.
@Suite("A stalled or abandoned request body is a 408, not a 500 (live HTTP, raw sockets)")
struct AbandonedBodyTests {
    /// The head of a `POST /v1/log` that announces 1,000 bytes, and the first 10 of them.
    static let partialLog = "POST /v1/log HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"logs\":[\""

    @Test("The client closes the connection halfway through the body", arguments: [false, true])
    func abandoned(stalls: Bool) async throws {
        let log = CapturedLog()
        // A stall is ended by the body deadline (1 s of silence); a hang-up by the client.
        let limits = ConnectionLimits(headerTimeout: .seconds(30), bodyTimeout: .seconds(1), bodyMinimumRate: 1)
        try await LimitedService.run(connections: limits, log: log) { port in
            try await onOwnThread {
                let socket = try RawSocket(port: port)
                try socket.write(Self.partialLog)
                if stalls {
                    #expect(RawSocket.closedByServer([socket], seconds: 60)[0], "the body deadline closed the stalled request")
                } else {
                    shutdown(socket.descriptor, Int32(SHUT_RDWR))
                }
                // Waits for the event (the request's log line), not for a time; 60 s is a hang guard.
                let deadline = Date().addingTimeInterval(60)
                while Self.requestLines(log).isEmpty && Date() < deadline { usleep(20_000) }
            }
        }
        let lines = Self.requestLines(log)
        #expect(lines.map { $0.metadata["status"] } == ["408"], "\(lines.map(\.line))")
        let errors = log.all.filter { $0.level >= .error }
        #expect(errors.isEmpty, "logged as a server error: \(errors.map(\.line))")
    }

    static func requestLines(_ log: CapturedLog) -> [CapturedLog.Record] {
        log.all.filter { $0.message == "request" && $0.metadata["route"] == "/v1/log" }
    }
}
