// Runs one benchmark operation N times on the benchmark fixtures, for profilers:
//
//   valgrind --tool=callgrind --toggle-collect='*runIterations*' --callgrind-out-file=validate.out \
//       Benchmarks/.build/release/wallet-orders-profile validate shipped-ecommerce 200
//   callgrind_annotate validate.out | head -40
//
// OPERATION: build | build-store | validate | verify. FIXTURE: shipped-ecommerce | large-order.
// Instruction counts (callgrind) are repeatable on a shared machine, unlike times.
import BenchmarkFixtures
import Foundation
import WalletOrders

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["build", "build-store", "validate", "verify"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: wallet-orders-profile build|build-store|validate|verify FIXTURE [ITERATIONS]\n".utf8))
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

let start = DispatchTime.now().uptimeNanoseconds
let sink = try runIterations(arguments[1], fixture, fixtures, iterations)
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
print("\(arguments[1]) \(fixture.name): \(iterations) iterations, \(String(format: "%.3f", elapsed / Double(iterations))) ms each (\(sink))")
