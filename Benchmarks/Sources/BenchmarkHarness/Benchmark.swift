// A small benchmark harness: each benchmark is a closure run for a number of warm-up iterations,
// then timed one iteration at a time (ContinuousClock) until its iteration count or its time is
// used up; the runner prints one JSON line per benchmark (name, iterations, median and p99 in
// nanoseconds), which Benchmarks/report.py reads. The benchmarks are plain executables of the
// package, built in the release build with the tool itself (`make bench`), so the stack is
// compiled once for the install, the image and the benchmarks.
import Foundation
import Synchronization

/// How long a benchmark runs: `warmupIterations` untimed, then timed iterations until
/// `maxIterations` or `maxDuration`, whichever comes first (at least one timed iteration).
public struct BenchmarkConfiguration: Sendable {
    public var warmupIterations: Int
    public var maxDuration: Duration
    public var maxIterations: Int

    public init(warmupIterations: Int = 1, maxDuration: Duration = .seconds(10), maxIterations: Int = 1_000) {
        self.warmupIterations = warmupIterations
        self.maxDuration = maxDuration
        self.maxIterations = maxIterations
    }
}

/// One benchmark. Making one registers it with ``BenchmarkRunner``.
public final class Benchmark: Sendable {
    /// The configuration of benchmarks made without one; set it before making them.
    public static var defaultConfiguration: BenchmarkConfiguration {
        get { registry.withLock { $0.defaultConfiguration } }
        set { registry.withLock { $0.defaultConfiguration = newValue } }
    }

    public let name: String
    public let configuration: BenchmarkConfiguration
    let closure: @Sendable (BenchmarkIteration) async throws -> Void
    let setup: (@Sendable () async throws -> Void)?

    /// - Parameters:
    ///   - closure: one iteration; the time from its start (or from
    ///     ``BenchmarkIteration/startMeasurement()``) to its end is the sample.
    ///   - setup: run once before the warm-up, untimed.
    @discardableResult
    public init(
        _ name: String, configuration: BenchmarkConfiguration? = nil,
        closure: @escaping @Sendable (BenchmarkIteration) async throws -> Void,
        setup: (@Sendable () async throws -> Void)? = nil
    ) {
        self.name = name
        self.configuration = configuration ?? Self.defaultConfiguration
        self.closure = closure
        self.setup = setup
        Self.registry.withLock { $0.benchmarks.append(self) }
    }

    struct Registry {
        var defaultConfiguration = BenchmarkConfiguration()
        var benchmarks: [Benchmark] = []
    }

    static let registry = Mutex(Registry())
}

/// What an iteration's closure is given: where its measurement starts.
public final class BenchmarkIteration: @unchecked Sendable {
    var start = ContinuousClock.now

    /// One pass over the work per iteration (for closures written as a loop).
    public var scaledIterations: Range<Int> { 0..<1 }

    /// Starts the measurement here: what the closure did before is preparation, not measured.
    public func startMeasurement() { start = .now }
}

/// Keeps `value` from being optimized away.
@inline(never)
public func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// The figures of one benchmark, as printed.
public struct BenchmarkResult: Codable, Sendable {
    public var benchmark: String
    public var iterations: Int
    public var medianNanoseconds: Int64
    public var p99Nanoseconds: Int64

    /// The median and p99 of the samples (nearest rank).
    init(benchmark: String, samples: [Duration]) {
        let sorted = samples.map { $0.nanoseconds }.sorted()
        func percentile(_ p: Double) -> Int64 {
            sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        self.benchmark = benchmark
        iterations = sorted.count
        medianNanoseconds = percentile(0.5)
        p99Nanoseconds = percentile(0.99)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Registers the benchmarks and runs those the arguments select:
///
///     EXECUTABLE [--filter REGEX]… [--list]
///
/// `--filter` (repeatable) keeps the benchmarks whose whole name matches one of the expressions;
/// `--list` prints their names instead of running them. Each result is a JSON line on standard
/// output (``BenchmarkResult``); progress goes to standard error. Exits 1 when a benchmark throws.
public enum BenchmarkRunner {
    public static func main(registering register: () -> Void) async {
        var filters: [String] = []
        var list = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--filter":
                guard let filter = arguments.popFirst() else { fail("--filter needs a regular expression") }
                filters.append(filter)
            case "--list": list = true
            default: fail("unknown argument '\(argument)'; usage: [--filter REGEX]… [--list]")
            }
        }
        let expressions: [Regex<AnyRegexOutput>]
        do {
            expressions = try filters.map { try Regex($0) }
        } catch {
            fail("--filter: \(error)")
        }
        register()
        let benchmarks = Benchmark.registry.withLock { $0.benchmarks }.filter { benchmark in
            expressions.isEmpty || expressions.contains { benchmark.name.wholeMatch(of: $0) != nil }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for benchmark in benchmarks {
            if list {
                print(benchmark.name)
                continue
            }
            FileHandle.standardError.write(Data("benchmark: \(benchmark.name)\n".utf8))
            do {
                let result = try await run(benchmark)
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } catch {
                fail("\(benchmark.name): \(error)")
            }
        }
    }

    static func run(_ benchmark: Benchmark) async throws -> BenchmarkResult {
        let configuration = benchmark.configuration
        try await benchmark.setup?()
        for _ in 0..<configuration.warmupIterations {
            _ = try await sample(benchmark)
        }
        var samples: [Duration] = []
        let clock = ContinuousClock()
        let started = clock.now
        repeat {
            samples.append(try await sample(benchmark))
        } while samples.count < configuration.maxIterations && clock.now - started < configuration.maxDuration
        return BenchmarkResult(benchmark: benchmark.name, samples: samples)
    }

    static func sample(_ benchmark: Benchmark) async throws -> Duration {
        let iteration = BenchmarkIteration()
        try await benchmark.closure(iteration)
        return ContinuousClock.now - iteration.start
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("benchmark: error: \(message)\n".utf8))
        exit(1)
    }
}
