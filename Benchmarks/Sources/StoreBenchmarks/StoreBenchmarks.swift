import BenchmarkFixtures
// Order store benchmarks (BenchmarkHarness): durable saves one at a time and batched, and
// contains, on a store of 100,000 orders (2,000 with WALLET_ORDERS_BENCH_SMOKE; any number with
// WALLET_ORDERS_BENCH_STORE_ORDERS), on SQLite and, when WALLET_ORDERS_BENCH_PG_URL names a
// PostgreSQL server (report.py starts a throwaway one with default durability, pgcluster.py), the
// same benchmarks on PostgreSQL ("store postgres …").
//
// The SQLite store is filled once through the public API (build, validate, batched save) and kept
// in .build-release/store-fixtures/ between runs; every run works on a fresh copy of it. The
// PostgreSQL store is filled the same way once per server (database fixture_N) and every run works
// on a copy of that database (CREATE DATABASE … TEMPLATE, through psql: WALLET_ORDERS_BENCH_PG_PSQL
// or `psql` on PATH), dropped when the process exits. Every save benchmark saves orders the store
// doesn't hold yet, so that each save writes.
import BenchmarkHarness
import Foundation
import Subprocess
import Synchronization
import SystemPackage
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
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

/// What the benchmark processes leave behind: SQLite copies of about 1 GB each at 100,000 orders,
/// with their WAL and shared-memory files, removed when the process exits (`atExit`), and
/// PostgreSQL copies of the fixture database, dropped through psql once every benchmark has run
/// (`atEnd`, awaited by main.swift; a run that fails leaves them on the server, which `make bench`
/// throws away with its cluster).
enum Cleanup {
    private static let actions = Mutex<[@Sendable () -> Void]>([])
    private static let registered = Atomic<Bool>(false)

    static func atExit(_ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0.append(action) }
        if !registered.exchange(true, ordering: .relaxed) {
            atexit {
                for action in Cleanup.actions.withLock({ $0 }) { action() }
            }
        }
    }

    private static let endActions = Mutex<[@Sendable () async -> Void]>([])

    static func atEnd(_ action: @escaping @Sendable () async -> Void) {
        endActions.withLock { $0.append(action) }
    }

    /// Runs what `atEnd` registered.
    static func end() async {
        for action in endActions.withLock({ $0 }) { await action() }
    }

    static func removeAtExit(_ path: String) {
        atExit { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
    }
}

/// Which store a fixture is on.
enum Backend: Sendable {
    case sqlite
    /// A PostgreSQL server (any database URL on it, as a role that may create databases).
    case postgres(PostgresAdmin)

    /// The part of a benchmark's name that says the store ("" for SQLite, whose names are older).
    var namePart: String {
        switch self {
        case .sqlite: ""
        case .postgres: "postgres "
        }
    }
}

/// Database-level work the store doesn't do (create, copy, drop databases), through psql.
struct PostgresAdmin: Sendable {
    let url: URL
    let psql: String

    /// `url` on another database.
    func url(database: String) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.path = "/" + database
        return components.url!
    }

    /// Runs `sql`; returns psql's unaligned output. Retries while the database is still in use
    /// (the backends of a closed pool take a moment to exit). psql runs through Subprocess, awaited
    /// without holding a thread.
    @discardableResult
    func run(_ sql: String) async throws -> String {
        // The password in psql's environment, not on its command line.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let password = components.password
        components.password = nil
        let environment: Subprocess.Environment =
            if let password { .inherit.updating(["PGPASSWORD": password]) } else { .inherit }
        for attempt in 0... {
            let result = try await Subprocess.run(
                psql.contains("/") ? .path(FilePath(psql)) : .name(psql),
                arguments: ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", components.string!, "-c", sql],
                environment: environment, output: .string(limit: 16 << 20), error: .string(limit: 1 << 20)
            )
            let message = result.standardError
            if result.terminationStatus.isSuccess { return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard message.contains("is being accessed by other users"), attempt < 100 else {
                throw BenchmarkSetupError(description: "psql \(sql): \(message)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        fatalError("unreachable")
    }

    func exists(_ database: String) async throws -> Bool {
        try await run("SELECT count(*) FROM pg_database WHERE datname = '\(database)'") == "1"
    }
}

struct BenchmarkSetupError: Error, CustomStringConvertible {
    var description: String
}

/// Fills `store` with `count` orders `fixture-0` … through the public API, 1,000 per batch.
func fill(_ store: some OrderStoring, count: Int, fixtures: Fixtures, shipped: Fixture) async throws {
    for start in stride(from: 0, to: count, by: 1_000) {
        let archives = try (start..<min(count, start + 1_000)).map {
            try variant(shipped, orderIdentifier: "fixture-\($0)", second: 0, signingTime: fixtures.signingTime)
        }
        for result in try await OrderIntake(validator: fixtures.validator, store: store).save(signedArchives: archives) { _ = try result.get() }
    }
}

func checkCount(_ stored: Int, _ count: Int) {
    guard stored == count else { fatalError("the store fixture has \(stored) orders, not \(count)") }
}

/// The shared store: made (or copied from the cache) by the first benchmark's setup.
final class StoreFixture: Sendable {
    let count: Int
    let fixtures: Fixtures
    let shipped: Fixture
    let backend: Backend
    private let made = Mutex<(any OrderStoring)?>(nil)
    private let counter = Atomic<Int>(0)

    init(count: Int, fixtures: Fixtures, shipped: Fixture, backend: Backend) {
        self.count = count
        self.fixtures = fixtures
        self.shipped = shipped
        self.backend = backend
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

    func store() async throws -> any OrderStoring {
        if let store = made.withLock({ $0 }) { return store }
        let store: any OrderStoring
        switch backend {
        case .sqlite: store = try await openSQLite()
        case .postgres(let admin): store = try await openPostgres(admin)
        }
        made.withLock { $0 = store }
        return store
    }

    private func openSQLite() async throws -> SQLiteOrderStore {
        let cacheFolder = Fixtures.repository.appendingPathComponent(".build-release/store-fixtures")
        try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
        let cached = cacheFolder.appendingPathComponent("orders-\(count).sqlite")
        if !FileManager.default.fileExists(atPath: cached.path) {
            let making = cacheFolder.appendingPathComponent("orders-\(count).making.sqlite")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: making.path + suffix) }
            let store = try SQLiteOrderStore(url: making)
            try await fill(store, count: count, fixtures: fixtures, shipped: shipped)
            checkCount(try await store.count(), count)
            try await store.backup(to: cached)  // one consistent file, WAL included
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: making.path + suffix) }
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-bench-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: cached, to: copy)
        Cleanup.removeAtExit(copy.path)
        return try SQLiteOrderStore(url: copy)
    }

    /// A copy of database fixture_COUNT, made through the store on this server the first time.
    private func openPostgres(_ admin: PostgresAdmin) async throws -> PostgresOrderStore {
        let fixture = "fixture_\(count)"
        if try await !admin.exists(fixture) {
            let making = fixture + "_making"
            try await admin.run("DROP DATABASE IF EXISTS \(making) WITH (FORCE)")
            try await admin.run("CREATE DATABASE \(making) TEMPLATE template0")
            let store = try await PostgresOrderStore(url: admin.url(database: making))
            try await fill(store, count: count, fixtures: fixtures, shipped: shipped)
            checkCount(try await store.count(), count)
            await store.close()
            try await admin.run("ALTER DATABASE \(making) RENAME TO \(fixture)")
        }
        let copy = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        // FILE_COPY: the template's files copied as they are (two checkpoints) rather than
        // through the WAL; the copy is as durable either way.
        try await admin.run("CREATE DATABASE \(copy) TEMPLATE \(fixture) STRATEGY FILE_COPY")
        Cleanup.atEnd { _ = try? await admin.run("DROP DATABASE IF EXISTS \(copy) WITH (FORCE)") }
        return try await PostgresOrderStore(url: admin.url(database: copy))
    }
}

let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["WALLET_ORDERS_BENCH_SMOKE"] != nil
    let storeSize = Int(ProcessInfo.processInfo.environment["WALLET_ORDERS_BENCH_STORE_ORDERS"] ?? "") ?? (smoke ? 2_000 : 100_000)
    let batchSize = smoke ? 50 : 1_000
    Benchmark.defaultConfiguration = .init(
        warmupIterations: smoke ? 1 : 10,
        maxDuration: .seconds(smoke ? 3 : 30),
        maxIterations: smoke ? 20 : 1_000
    )
    let fixtures: Fixtures
    do {
        fixtures = try Fixtures.make()
    } catch {
        fatalError("benchmark fixtures: \(error)")
    }
    guard let shipped = fixtures["shipped-ecommerce"] else { fatalError("no shipped-ecommerce fixture") }
    var backends: [Backend] = [.sqlite]
    let environment = ProcessInfo.processInfo.environment
    if let text = environment["WALLET_ORDERS_BENCH_PG_URL"], !text.isEmpty {
        guard let url = URL(string: text) else { fatalError("WALLET_ORDERS_BENCH_PG_URL is not a URL") }
        backends.append(.postgres(PostgresAdmin(url: url, psql: environment["WALLET_ORDERS_BENCH_PG_PSQL"] ?? "psql")))
    }

    for backend in backends {
        register(backend: backend, storeSize: storeSize, batchSize: batchSize, smoke: smoke, fixtures: fixtures, shipped: shipped)
    }
}

/// The store benchmarks on one backend: the same fixtures, store size and iterations on each.
func register(backend: Backend, storeSize: Int, batchSize: Int, smoke: Bool, fixtures: Fixtures, shipped: Fixture) {
    let on = backend.namePart
    let shared = StoreFixture(count: storeSize, fixtures: fixtures, shipped: shipped, backend: backend)
    let setup: @Sendable () async throws -> Void = { _ = try await shared.store() }

    // One new order per sample, validated and committed (WAL fsync) on its own.
    Benchmark(
        "store \(on)save one durable \(storeSize)",
        closure: { benchmark in
            let store = try await shared.store()
            let archive = try shared.newArchives(1)[0]
            benchmark.startMeasurement()
            blackHole(try await OrderIntake(validator: shared.fixtures.validator, store: store).save(signedArchive: archive))
        }, setup: setup)

    // The large order (4.8 MB, 50 line items, localized), validated and committed on its own. At
    // most 100 samples: each adds 4.8 MB to the store. SQLite only.
    guard let large = shared.fixtures["large-order"] else { fatalError("no large-order fixture") }
    if case .sqlite = backend {
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
                blackHole(try await OrderIntake(validator: shared.fixtures.validator, store: store).save(signedArchive: archive))
            }, setup: setup)
    }

    // The same without validation (VerifiedOrderArchive made outside the measurement): the store's own cost.
    Benchmark(
        "store \(on)write one durable \(storeSize)",
        closure: { benchmark in
            let store = try await shared.store()
            let verified = try VerifiedOrderArchive(bytes: try shared.newArchives(1)[0], validator: shared.fixtures.validator)
            benchmark.startMeasurement()
            blackHole(try await store.save(verifiedArchives: [verified]))
        }, setup: setup)

    // (Preparation before `startMeasurement()` is not measured; calling `stopMeasurement()` first
    // would record a sample of its own.)

    // A batch of new orders per sample: validated in parallel, then one transaction.
    Benchmark(
        "store \(on)save batch of \(batchSize) durable \(storeSize)",
        configuration: .init(warmupIterations: 1, maxIterations: smoke ? 3 : 20),
        closure: { benchmark in
            let store = try await shared.store()
            let archives = try shared.newArchives(batchSize)
            benchmark.startMeasurement()
            blackHole(try await OrderIntake(validator: shared.fixtures.validator, store: store).save(signedArchives: archives))
        }, setup: setup)

    Benchmark(
        "store \(on)write batch of \(batchSize) durable \(storeSize)",
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
    // iteration so that the harness's own per-iteration cost (clocks) is not
    // counted 100 times; report.py divides by 100.
    let keys = (0..<4_096).map { _ in
        FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: "order.com.northwindoutfitters.shop", orderIdentifier: "fixture-\(Int.random(in: 0..<storeSize))")
    }
    let next = Atomic<Int>(0)
    let lookupsPerIteration = 100
    // Its own copy of the fixture, as made: exactly `storeSize` orders. The shared store has taken
    // the write benchmarks' orders by then (tens of thousands more, and their WAL frames).
    let lookupStore = StoreFixture(count: storeSize, fixtures: fixtures, shipped: shipped, backend: backend)
    Benchmark(
        "store \(on)contains \(storeSize), \(lookupsPerIteration) lookups",
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
