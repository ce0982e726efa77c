// Order store benchmarks on ordo-one/benchmark: durable saves one at a time and batched, and
// contains, on a store of 100,000 orders (2,000 with WALLET_ORDERS_BENCH_SMOKE; any number with
// WALLET_ORDERS_BENCH_STORE_ORDERS).
//
// The store is filled once through the public API (build, validate, batched save) and kept in
// Benchmarks/.build/store-fixtures/ between runs; every run works on a fresh copy of it, and every
// save benchmark saves orders the store doesn't hold yet, so that each save writes.
import Benchmark
import BenchmarkFixtures
import Foundation
import Synchronization
import WalletOrders
import WalletOrdersStore

/// The shipped sample as another order (`orderIdentifier`) at another `updatedAt` (minute 09:00 plus `second`).
func variant(_ fixture: Fixture, orderIdentifier: String, second: Int, signingTime: Date) throws -> [UInt8] {
    var files = fixture.source.files
    let json = String(decoding: files["order.json"] ?? [], as: UTF8.self)
        .replacingOccurrences(of: "\"nw-2025-118734\"", with: "\"\(orderIdentifier)\"")
        .replacingOccurrences(
            of: "\"updatedAt\": \"2025-11-20T08:31:44Z\"",
            with: "\"updatedAt\": \"2025-11-20T09:\(String(format: "%02d:%02d", second / 60 % 60, second % 60))Z\"")
    files["order.json"] = Array(json.utf8)
    return try fixture.builder.build(OrderSource(files: files), signingTime: signingTime).bytes
}

/// The stores' temporary copies (about 1 GB each at 100,000 orders), removed with their WAL and
/// shared-memory files when the benchmark process exits.
enum StoreCopies {
    private static let paths = Mutex<[String]>([])
    private static let registered = Atomic<Bool>(false)

    static func removeAtExit(_ path: String) {
        paths.withLock { $0.append(path) }
        if !registered.exchange(true, ordering: .relaxed) {
            atexit {
                for path in StoreCopies.paths.withLock({ $0 }) {
                    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
                }
            }
        }
    }
}

/// The shared store: made (or copied from the cache) by the first benchmark's setup.
final class StoreFixture: Sendable {
    let count: Int
    let fixtures: Fixtures
    let shipped: Fixture
    private let made = Mutex<SQLiteOrderStore?>(nil)
    private let counter = Atomic<Int>(0)

    init(count: Int, fixtures: Fixtures, shipped: Fixture) {
        self.count = count
        self.fixtures = fixtures
        self.shipped = shipped
    }

    /// Order identifiers no other benchmark uses.
    func newIdentifiers(_ count: Int) -> [String] {
        let first = counter.add(count, ordering: .relaxed).oldValue
        return (first..<(first + count)).map { "new-\($0)" }
    }

    /// New orders' archives (built outside the measurement).
    func newArchives(_ count: Int) throws -> [[UInt8]] {
        try newIdentifiers(count).map { try variant(shipped, orderIdentifier: $0, second: 1, signingTime: fixtures.signingTime) }
    }

    func store() async throws -> SQLiteOrderStore {
        if let store = made.withLock({ $0 }) { return store }
        let store = try await Self.open(count: count, fixtures: fixtures, shipped: shipped)
        made.withLock { $0 = store }
        return store
    }

    private static func open(count: Int, fixtures: Fixtures, shipped: Fixture) async throws -> SQLiteOrderStore {
        let cacheFolder = Fixtures.repository.appendingPathComponent("Benchmarks/.build/store-fixtures")
        try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
        let cached = cacheFolder.appendingPathComponent("orders-\(count).sqlite")
        if !FileManager.default.fileExists(atPath: cached.path) {
            let making = cacheFolder.appendingPathComponent("orders-\(count).making.sqlite")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: making.path + suffix) }
            let store = try SQLiteOrderStore(url: making, validator: fixtures.validator)
            for start in stride(from: 0, to: count, by: 1_000) {
                let archives = try (start..<min(count, start + 1_000)).map {
                    try variant(shipped, orderIdentifier: "fixture-\($0)", second: 0, signingTime: fixtures.signingTime)
                }
                for result in try await store.save(signedArchives: archives) { _ = try result.get() }
            }
            guard try await store.count() == count else { fatalError("the store fixture has the wrong number of orders") }
            try await store.backup(to: cached)  // one consistent file, WAL included
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: making.path + suffix) }
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-bench-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: cached, to: copy)
        StoreCopies.removeAtExit(copy.path)
        return try SQLiteOrderStore(url: copy, validator: fixtures.validator)
    }
}

let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["WALLET_ORDERS_BENCH_SMOKE"] != nil
    let storeSize = Int(ProcessInfo.processInfo.environment["WALLET_ORDERS_BENCH_STORE_ORDERS"] ?? "") ?? (smoke ? 2_000 : 100_000)
    let batchSize = smoke ? 50 : 1_000
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .microseconds,
        warmupIterations: smoke ? 1 : 10,
        maxDuration: .seconds(smoke ? 3 : 30),
        maxIterations: smoke ? 20 : 1_000
    )
    let shared: StoreFixture
    do {
        let fixtures = try Fixtures.make()
        guard let shipped = fixtures["shipped-ecommerce"] else { fatalError("no shipped-ecommerce fixture") }
        shared = StoreFixture(count: storeSize, fixtures: fixtures, shipped: shipped)
    } catch {
        fatalError("benchmark fixtures: \(error)")
    }
    let setup: @Sendable () async throws -> Void = { _ = try await shared.store() }

    // One new order per sample, validated and committed (WAL fsync) on its own.
    Benchmark("store save one durable \(storeSize)", closure: { benchmark in
        let store = try await shared.store()
        let archive = try shared.newArchives(1)[0]
        benchmark.startMeasurement()
        blackHole(try await store.save(signedArchive: archive))
    }, setup: setup)

    // The large order (4.8 MB, 50 line items, localized), validated and committed on its own. At
    // most 100 samples: each adds 4.8 MB to the store.
    guard let large = shared.fixtures["large-order"] else { fatalError("no large-order fixture") }
    Benchmark(
        "store save large-order one durable \(storeSize)",
        configuration: .init(warmupIterations: 1, maxIterations: smoke ? 3 : 100),
        closure: { benchmark in
            let store = try await shared.store()
            let identifier = shared.newIdentifiers(1)[0]
            var files = large.source.files
            files["order.json"] = Array(
                String(decoding: files["order.json"] ?? [], as: UTF8.self)
                    .replacingOccurrences(of: "\"BENCH-LARGE-1\"", with: "\"\(identifier)\"").utf8)
            let archive = try large.builder.build(OrderSource(files: files), signingTime: shared.fixtures.signingTime).bytes
            benchmark.startMeasurement()
            blackHole(try await store.save(signedArchive: archive))
        }, setup: setup)

    // The same without validation (VerifiedOrderArchive made outside the measurement): the store's own cost.
    Benchmark("store write one durable \(storeSize)", closure: { benchmark in
        let store = try await shared.store()
        let verified = try VerifiedOrderArchive(bytes: try shared.newArchives(1)[0], validator: shared.fixtures.validator)
        benchmark.startMeasurement()
        blackHole(try await store.save(verifiedArchives: [verified]))
    }, setup: setup)

    // (Preparation before `startMeasurement()` is not measured; calling `stopMeasurement()` first
// would record a sample of its own.)

// A batch of new orders per sample: validated in parallel, then one transaction.
    Benchmark(
        "store save batch of \(batchSize) durable \(storeSize)",
        configuration: .init(warmupIterations: 1, maxIterations: smoke ? 3 : 20),
        closure: { benchmark in
            let store = try await shared.store()
            let archives = try shared.newArchives(batchSize)
            benchmark.startMeasurement()
            blackHole(try await store.save(signedArchives: archives))
        }, setup: setup)

    Benchmark(
        "store write batch of \(batchSize) durable \(storeSize)",
        configuration: .init(warmupIterations: 1, maxIterations: smoke ? 3 : 20),
        closure: { benchmark in
            let store = try await shared.store()
            let verified = try shared.newArchives(batchSize).map {
                try VerifiedOrderArchive(bytes: $0, validator: shared.fixtures.validator)
            }
            benchmark.startMeasurement()
            blackHole(try await store.save(verifiedArchives: verified))
        }, setup: setup)

    // contains for random stored orders (keys made outside the measurement), 100 lookups per
    // iteration so that the harness's own per-iteration cost (clocks, malloc counters) is not
    // counted 100 times; report.py divides by 100.
    let keys = (0..<4_096).map { _ in
        FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: "order.com.northwindoutfitters.shop", orderIdentifier: "fixture-\(Int.random(in: 0..<storeSize))")
    }
    let next = Atomic<Int>(0)
    let lookupsPerIteration = 100
    // Its own copy of the fixture, as made: exactly `storeSize` orders. The shared store has taken
    // the write benchmarks' orders by then (tens of thousands more, and their WAL frames).
    let lookupStore = StoreFixture(count: storeSize, fixtures: shared.fixtures, shipped: shared.shipped)
    Benchmark(
        "store contains \(storeSize), \(lookupsPerIteration) lookups",
        configuration: .init(warmupIterations: smoke ? 5 : 100, maxIterations: smoke ? 100 : 20_000),
        closure: { benchmark in
            let store = try await lookupStore.store()
            let start = next.add(lookupsPerIteration, ordering: .relaxed).oldValue
            let date: Timestamp = "2025-11-20T09:00:00Z"
            benchmark.startMeasurement()
            for offset in 0..<lookupsPerIteration {
                blackHole(try await store.contains(matching: keys[(start + offset) & 4_095], updatedDate: date))
            }
        }, setup: { _ = try await lookupStore.store() })
}
