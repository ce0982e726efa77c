import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders serve` in a child process, on a port of its choosing (`--listen 127.0.0.1:0`).
final class RunningServer: Sendable {
    let child: BackgroundProgram
    /// `http://127.0.0.1:PORT` (or https), as the server printed it.
    let baseURL: String

    /// Starts the server and waits (up to 60 s) until it says where it listens.
    init(_ arguments: [String], environment: [String: String] = [:], folder: TemporaryFolder, name: String = "serve") async throws {
        child = try await BackgroundProgram.tool(
            ["serve", "--listen", "127.0.0.1:0"] + arguments, environment: environment, outputIn: folder, name: name)
        do {
            baseURL = try await child.waitUntil("where it listens", timeout: 60 * TestTiming.scale) { printed in
                printed.errorOutput.range(of: #"listening on https?://[^ \n"]+"#, options: .regularExpression).map {
                    String(printed.errorOutput[$0].dropFirst("listening on ".count))
                }
            }
        } catch {
            child.kill()
            throw FixtureError(description: "wallet-orders serve did not start: \(error)")
        }
    }

    /// SIGTERM, then the exit status (the server shuts down gracefully).
    func stop(timeout: TimeInterval = 30) async throws -> Int32 {
        child.send(SIGTERM)
        return try await child.wait(timeout: timeout)
    }
}

/// HTTP requests made with Python's urllib (a client we didn't write).
enum HTTPClient {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil, caFile: String? = nil
    ) async throws -> Answer {
        let script = """
            import json, ssl, sys, base64, urllib.request, urllib.error
            method, url, headers, body, ca = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
            data = base64.b64decode(body) if body else None
            context = ssl.create_default_context(cafile=ca) if ca else None
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                response = urllib.request.urlopen(request, context=context, timeout=30)
            except urllib.error.HTTPError as error:
                response = error
            print(json.dumps({"status": response.status, "headers": dict(response.headers.items()), "body": base64.b64encode(response.read()).decode()}))
            """
        let headerJSON = String(decoding: try JSONSerialization.data(withJSONObject: headers), as: UTF8.self)
        let result = try await ExternalProgram.python(script, [method, url, headerJSON, body?.base64EncodedString() ?? "", caFile ?? ""])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any] else {
            throw FixtureError(description: "the HTTP request failed: \(result)")
        }
        return Answer(
            status: object["status"] as? Int ?? 0, headers: object["headers"] as? [String: String] ?? [:],
            body: Data(base64Encoded: object["body"] as? String ?? "") ?? Data())
    }
}
