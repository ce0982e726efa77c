import Foundation
import HummingbirdTesting
import Testing
import WalletOrdersTestSupport

/// Requests that aren't valid HTTP/1.1 (found by schemathesis: a header value with a control
/// character) get a 400 with the service's JSON error body, like every other malformed request,
/// not Hummingbird's bare 400. Sent as raw bytes by Python's `socket`, which doesn't check them.
@Suite("Requests that aren't valid HTTP get a 400 with the JSON error body (live HTTP, raw bytes)")
struct MalformedHTTPTests {
    static func exchange(_ request: String, port: Int) async throws -> String {
        let script = #"""
            import socket, sys
            with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60) as connection:
                connection.sendall(sys.argv[2].encode("latin-1"))
                answer = b""
                while True:
                    part = connection.recv(65536)
                    if not part:
                        break
                    answer += part
            sys.stdout.write(answer.decode("latin-1"))
            """#
        let result = try await ExternalProgram.python(script, [String(port), request])
        guard result.status == 0 else { throw BackgroundProgramError(description: "\(result)") }
        return result.output
    }

    @Test(
        "A bad header value, a bad chunk size: 400, application/json, error code bad-http, connection closed",
        arguments: [
            "GET /health HTTP/1.1\r\nHost: localhost\r\nIf-Modified-Since: I/\u{D1}\u{7F}\r\n\r\n",
            "POST /v1/log HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        ])
    func badHTTP(request: String) async throws {
        let service = try ServiceUnderTest()
        let answer = try await service.runLive { client in
            try await Self.exchange(request, port: try #require(client.port))
        }
        let (head, body) = try #require(answer.range(of: "\r\n\r\n").map { (answer[..<$0.lowerBound], answer[$0.upperBound...]) }, "\(answer)")
        #expect(head.hasPrefix("HTTP/1.1 400 "), "\(answer)")
        #expect(head.lowercased().contains("content-type: application/json; charset=utf-8"), "\(answer)")
        #expect(head.lowercased().contains("connection: close"), "\(answer)")
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        #expect((json?["error"] as? [String: Any])?["code"] as? String == "bad-http", "\(answer)")
    }
}
