// Runs one benchmark operation N times on the benchmark fixtures, for profilers:
//
//   valgrind --tool=callgrind --callgrind-out-file=validate.out \
//       Benchmarks/.build/release/wallet-orders-profile validate shipped-ecommerce 200
//   callgrind_annotate validate.out | head -40
//
// OPERATION: build | validate | verify. FIXTURE: shipped-ecommerce | large-order.
// Instruction counts (callgrind) are repeatable on a shared machine, unlike times.
import BenchmarkFixtures
import Foundation
import WalletOrders

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["build", "validate", "verify"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: wallet-orders-profile build|validate|verify FIXTURE [ITERATIONS]\n".utf8))
    exit(64)
}
let iterations = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
let fixtures = try Fixtures.make()
guard let fixture = fixtures[arguments[2]] else {
    FileHandle.standardError.write(Data("unknown fixture \(arguments[2]); one of: \(fixtures.all.map(\.name))\n".utf8))
    exit(64)
}
var sink = 0
let start = DispatchTime.now().uptimeNanoseconds
for _ in 0..<iterations {
    switch arguments[1] {
    case "build": sink &+= try fixture.builder.build(fixture.source, signingTime: fixtures.signingTime).bytes.count
    case "validate": sink &+= fixtures.validator.validate(archiveBytes: fixture.archive, subject: fixture.name).diagnostics.count
    default: sink &+= fixtures.verifier.verify(archiveBytes: fixture.archive, subject: fixture.name).diagnostics.count
    }
}
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
print("\(arguments[1]) \(fixture.name): \(iterations) iterations, \(String(format: "%.3f", elapsed / Double(iterations))) ms each (\(sink))")
