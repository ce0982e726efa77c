// Runs one benchmark operation N times on the benchmark fixtures, for profilers:
//
//   valgrind --tool=callgrind --toggle-collect='*runIterations*' --callgrind-out-file=validate.out \
//       .build-release/release/wallet-orders-profile validate shipped-ecommerce 200
//   callgrind_annotate validate.out | head -40
//
// OPERATION: build | build-store | validate | verify | contains (on a store of 1,000 copies of FIXTURE). FIXTURE: shipped-ecommerce | large-order.
// Instruction counts (callgrind) are repeatable on a shared machine, unlike times.
import BenchmarkFixtures
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore

// As `wallet-orders` does at start (see its Platform.swift): with TZ unset, glibc stats
// /etc/localtime on each of libzip's per-entry mktime calls.
if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
let arguments = CommandLine.arguments
guard arguments.count >= 3, ["build", "build-store", "validate", "verify", "contains"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: wallet-orders-profile build|build-store|validate|verify|contains FIXTURE [ITERATIONS]\n".utf8))
    exit(64)
}
let iterations = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
let fixtures = try Fixtures.make()
guard let fixture = fixtures[arguments[2]] else {
    FileHandle.standardError.write(Data("unknown fixture \(arguments[2]); one of: \(fixtures.all.map(\.name))\n".utf8))
    exit(64)
}
/// The measured loop, kept out of line so a profiler can collect only it:
/// `valgrind --tool=callgrind --toggle-collect='*runIterations*' ...`.
@inline(never)
func runIterations(_ operation: String, _ fixture: Fixture, _ fixtures: Fixtures, _ iterations: Int) throws -> Int {
    var sink = 0
    for _ in 0..<iterations {
        switch operation {
        case "build": sink &+= try fixture.builder.build(fixture.source, signingTime: fixtures.signingTime).bytes.count
        case "build-store":
            var storing = fixture.builder
            storing.compression = .store
            sink &+= try storing.build(fixture.source, signingTime: fixtures.signingTime).bytes.count
        case "validate": sink &+= fixtures.validator.validate(archiveBytes: fixture.archive, subject: fixture.name).diagnostics.count
        default: sink &+= fixtures.verifier.verify(archiveBytes: fixture.archive, subject: fixture.name).diagnostics.count
        }
    }
    return sink
}

/// `contains` on a 1,000-order store (made here, outside the measured loop), in a loop of its own.
@inline(never)
func runLookups(_ store: SQLiteOrderStore, _ keys: [FullyQualifiedOrderIdentifier], _ iterations: Int) async throws -> Int {
    var sink = 0
    let date: Timestamp = "2025-11-20T09:00:00Z"
    for index in 0..<iterations {
        if try await store.contains(matching: keys[index % keys.count], updatedDate: date) != .notFound { sink += 1 }
    }
    return sink
}

let start: UInt64
let sink: Int
if arguments[1] == "contains" {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-profile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try SQLiteOrderStore(url: folder.appendingPathComponent("orders.sqlite"))
    let order = try Order.decode(from: Data(fixture.source.orderJSON ?? []))
    var keys: [FullyQualifiedOrderIdentifier] = []
    var archives: [[UInt8]] = []
    for number in 0..<1_000 {
        var files = fixture.source.files
        let json = String(decoding: files["order.json"] ?? [], as: UTF8.self)
            .replacingOccurrences(of: "\"\(order.orderIdentifier)\"", with: "\"profile-\(number)\"")
        files["order.json"] = Array(json.utf8)
        archives.append(try fixture.builder.build(OrderSource(files: files), signingTime: fixtures.signingTime).bytes)
        keys.append(FullyQualifiedOrderIdentifier(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: "profile-\(number)"))
    }
    for result in try await OrderIntake(validator: fixtures.validator, store: store).save(signedArchives: archives) { _ = try result.get() }
    start = DispatchTime.now().uptimeNanoseconds
    sink = try await runLookups(store, keys.shuffled(), iterations)
} else {
    start = DispatchTime.now().uptimeNanoseconds
    sink = try runIterations(arguments[1], fixture, fixtures, iterations)
}
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
print("\(arguments[1]) \(fixture.name): \(iterations) iterations, \(String(format: "%.3f", elapsed / Double(iterations))) ms each (\(sink))")
