// Runs the benchmarks of this executable (see BenchmarkRunner for the arguments).
import BenchmarkHarness

await BenchmarkRunner.main(registering: benchmarks)
await Cleanup.end()
