import Foundation
import WalletOrdersServer

// `make bench-serve`'s floor for the push line (Benchmarks/serve.py measures it next to
// `wallet-orders serve`).
//
// push-reference HOST:PORT CA.pem TOKEN.p8 KEY-ID TEAM-ID TOPIC COUNT IN-FLIGHT: sends COUNT pushes
// to the APNs stand-in with the service's own APNs client (HTTP/2, TLS, provider token), IN-FLIGHT
// at a time (the push worker's batch size × concurrent batches), and prints
// `{"pushes": COUNT, "seconds": …, "rate": …}`. No store, no outbox, no worker: the client and
// the stand-in alone, which is what the service's fan-out can't beat on the machine.
// On the event loops and the executor `wallet-orders serve` uses (REFERENCE_EXECUTOR: event-loops, the
// default, or pool).
OrderServer.TaskThreads.sizeEventLoopsToAllowedCPUs()
OrderServer.TaskThreads(rawValue: ProcessInfo.processInfo.environment["REFERENCE_EXECUTOR"] ?? "event-loops")?.install()
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 8, let colon = arguments[0].lastIndex(of: ":"), let port = Int(arguments[0][colon...].dropFirst()),
    let count = Int(arguments[6]), let inFlight = Int(arguments[7]), count > 0, inFlight > 0
else {
    FileHandle.standardError.write(Data("usage: push-reference HOST:PORT CA.pem TOKEN.p8 KEY-ID TEAM-ID TOPIC COUNT IN-FLIGHT\n".utf8))
    exit(64)
}
let client = try APNsClient(
    configuration: APNsConfiguration(
        endpoint: .custom(host: String(arguments[0][..<colon]), port: port),
        credentials: .token(keyID: arguments[3], teamID: arguments[4], privateKeyPEM: try String(contentsOfFile: arguments[2], encoding: .utf8)),
        additionalTrustRootsPEM: [try String(contentsOfFile: arguments[1], encoding: .utf8)]))
let topic = arguments[5]
func token(_ index: Int) -> String { String(repeating: "0", count: 48) + String(format: "%016x", index) }

// One push first: the connection and its TLS handshake are not part of the rate.
guard case .delivered = await client.send(PushNotification(deviceToken: token(count), topic: topic)) else {
    FileHandle.standardError.write(Data("push-reference: the stand-in refused the first push\n".utf8))
    exit(1)
}
let start = ContinuousClock.now
let delivered = await withTaskGroup(of: Bool.self) { group in
    var next = 0
    var delivered = 0
    func add() {
        let notification = PushNotification(deviceToken: token(next), topic: topic)
        group.addTask { if case .delivered = await client.send(notification) { true } else { false } }
        next += 1
    }
    while next < min(inFlight, count) { add() }
    for await ok in group {
        if ok { delivered += 1 }
        if next < count { add() }
    }
    return delivered
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
try await client.shutdown()
guard delivered == count else {
    FileHandle.standardError.write(Data("push-reference: \(count - delivered) of \(count) pushes were not delivered\n".utf8))
    exit(1)
}
print("{\"pushes\": \(count), \"seconds\": \(seconds), \"rate\": \(Double(count) / seconds)}")
