// apns-stand-in: runs the local APNs stand-in until killed, printing each request it receives as
// one JSON line on stdout. TEST ONLY: for `make demo` and manual runs, never for real devices.
import APNsStandIn
import Foundation

let usage = """
    usage: apns-stand-in --cert SERVER.pem --key SERVER-KEY.pem [--listen HOST:PORT]
                         [--client-ca CA.pem] [--jwt-key PUBLIC.pem --key-id KID --team-id TEAM]
                         [--fail-next N:STATUS:REASON[:RETRY-AFTER]] [--fail-token TOKEN:STATUS:REASON]

      --listen      where to listen (default 127.0.0.1:0, a free port; the first line says which)
      --cert/--key  the server's TLS certificate chain and key (PEM)
      --client-ca   CA certificates (PEM) whose client certificates it accepts (UID must equal the topic)
      --jwt-key     a P-256 public key (PEM) whose provider tokens it accepts, with --key-id and --team-id
      --fail-next   answer the next N good pushes with STATUS and REASON (repeatable; STATUS 0 closes the connection)
      --fail-token  answer every push to TOKEN with STATUS and REASON (repeatable)

    stdout: {"event":"listening","host":…,"port":…}, then one {"event":"push",…} line per request
            (receivedAt to the second, receivedAtSeconds since 1970 to the microsecond).
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("apns-stand-in: \(message)\n\n\(usage)\n".utf8))
    exit(2)
}

func parse(_ arguments: [String]) -> [String: [String]] {
    var options: [String: [String]] = [:]
    var arguments = arguments[...]
    while let name = arguments.popFirst() {
        guard name.hasPrefix("--"), name != "--help" else {
            print(usage)
            exit(name == "--help" ? 0 : 2)
        }
        guard let value = arguments.popFirst() else { fail("\(name) needs a value") }
        options[name, default: []].append(value)
    }
    return options
}
let options = parse(Array(CommandLine.arguments.dropFirst()))

func read(_ option: String) -> String? {
    guard let path = options[option]?.last else { return nil }
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("can't read \(path)") }
    return text
}

func scripted(_ text: String) -> APNsStandIn.ScriptedResponse {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard let status = Int(parts[0]) else { fail("bad status in \(text)") }
    if status == 0 { return .closeConnection }
    let rest = parts.count > 1 ? parts[1].split(separator: ":", maxSplits: 1).map(String.init) : []
    return .error(status: status, reason: rest.first ?? "InternalServerError", retryAfter: rest.count > 1 ? rest[1] : nil)
}

guard let certificate = read("--cert"), let key = read("--key") else { fail("--cert and --key are required") }
var configuration = APNsStandIn.Configuration(serverCertificateChainPEM: certificate, serverPrivateKeyPEM: key)
configuration.clientCertificateAuthorityPEM = read("--client-ca")
if let publicKey = read("--jwt-key") {
    guard let keyID = options["--key-id"]?.last, let teamID = options["--team-id"]?.last else {
        fail("--jwt-key needs --key-id and --team-id")
    }
    configuration.providerToken = .init(keyID: keyID, teamID: teamID, publicKeyPEM: publicKey)
}
if configuration.clientCertificateAuthorityPEM == nil && configuration.providerToken == nil {
    fail("give --client-ca, --jwt-key or both: the stand-in accepts no caller otherwise")
}
if let listen = options["--listen"]?.last {
    guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
        fail("--listen wants HOST:PORT")
    }
    configuration.host = String(listen[..<colon])
    configuration.port = port
}

let standIn: APNsStandIn
do {
    standIn = try APNsStandIn(configuration: configuration)
} catch {
    fail("\(error)")
}
for text in options["--fail-next"] ?? [] {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2, let count = Int(parts[0]) else { fail("--fail-next wants N:STATUS:REASON") }
    standIn.respondToNext(count, with: scripted(parts[1]))
}
for text in options["--fail-token"] ?? [] {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { fail("--fail-token wants TOKEN:STATUS:REASON") }
    standIn.respond(toDeviceToken: parts[0], with: scripted(parts[1]))
}

@Sendable func printLine(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// One `{"event":"push",…}` line. Encoded by `JSONEncoder` without sorted keys: a push is a
/// line, and `JSONSerialization` with sorted keys (ICU collation) took most of the stand-in's time
/// under a fan-out of thousands of pushes a second.
struct PushLine: Encodable {
    var event = "push"
    var deviceToken: String
    var topic: String?
    var status: Int
    var headers: [String: String]
    var body: String
    var receivedAt: String
    /// Wall clock to the microsecond, comparable with a test client's times.
    var receivedAtSeconds: Double
    var auth: String
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case event, deviceToken, topic, status, headers, body, receivedAt, receivedAtSeconds, auth, reason
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(deviceToken, forKey: .deviceToken)
        try container.encode(topic, forKey: .topic)  // null when the push had none
        try container.encode(status, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encode(body, forKey: .body)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(receivedAtSeconds, forKey: .receivedAtSeconds)
        try container.encode(auth, forKey: .auth)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}

nonisolated(unsafe) let timestamps = ISO8601DateFormatter()  // thread-safe (Foundation says so); made once, not per push

standIn.onRequest { request in
    let line = PushLine(
        deviceToken: request.deviceToken, topic: request.topic, status: request.status,
        headers: request.headers.filter { $0.key != "authorization" }, body: request.body,
        receivedAt: timestamps.string(from: request.receivedAt), receivedAtSeconds: request.receivedAt.timeIntervalSince1970,
        auth: request.providerToken != nil ? "token" : (request.clientCertificateUID != nil ? "certificate" : "none"),
        reason: request.reason)
    guard let data = try? JSONEncoder().encode(line) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

do {
    try await standIn.start()
} catch {
    fail("can't listen on \(configuration.host):\(configuration.port): \(error)")
}
printLine(["event": "listening", "host": configuration.host, "port": standIn.port])
while true { try await Task.sleep(for: .seconds(3600)) }
