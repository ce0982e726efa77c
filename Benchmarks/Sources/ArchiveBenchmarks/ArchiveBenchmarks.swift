import BenchmarkFixtures
// Archive benchmarks (BenchmarkHarness): build+sign, full validation and container-only
// verification of one archive, for the shipped sample and for a large generated order.
//
//   make bench         full run, pinned to one core, with `openssl speed rsa2048` as the floor
//   make bench-smoke   a few iterations of each (CI)
//
// WALLET_ORDERS_BENCH_SMOKE=1 shortens every benchmark to a few iterations.
import BenchmarkHarness
import Foundation
import WalletOrders

let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["WALLET_ORDERS_BENCH_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        warmupIterations: smoke ? 3 : 200,
        maxDuration: smoke ? .milliseconds(300) : .seconds(10),
        maxIterations: smoke ? 20 : 20_000
    )
    let fixtures: Fixtures
    do {
        fixtures = try Fixtures.make()
    } catch {
        fatalError("benchmark fixtures: \(error)")
    }

    for fixture in fixtures.all {
        // The signature alone (CMS of the manifest: one RSA-2048 sign plus the CMS structure), in
        // this process and harness: build+sign next to it shows what packaging adds, free of the
        // drift between this run and `openssl speed`'s.
        let manifest: [UInt8]
        do {
            manifest = try fixture.builder.build(fixture.source, signingTime: fixtures.signingTime).manifestBytes
        } catch {
            fatalError("benchmark fixture \(fixture.name): \(error)")
        }
        Benchmark("sign \(fixture.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try fixture.builder.identity.detachedSignature(of: manifest, signingTime: fixtures.signingTime))
            }
        }
        Benchmark("build+sign \(fixture.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try fixture.builder.build(fixture.source, signingTime: fixtures.signingTime))
            }
        }
        let storing = {
            var builder = fixture.builder
            builder.compression = .store
            return builder
        }()
        Benchmark("build+sign \(fixture.name) (store)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try storing.build(fixture.source, signingTime: fixtures.signingTime))
            }
        }
        Benchmark("validate \(fixture.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(fixtures.validator.validate(archiveBytes: fixture.archive, subject: fixture.name))
            }
        }
        Benchmark("verify \(fixture.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(fixtures.verifier.verify(archiveBytes: fixture.archive, subject: fixture.name))
            }
        }
    }
    // Store benchmarks (save one at a time, save batched, contains) belong here too, on the
    // same fixtures: add them as `Benchmark("store save …")` next to these, or as a separate
    // benchmark target (see Package.swift). report.py prints any benchmark it finds; give it a
    // floor in report.py's FLOORS to get a ratio.
}
