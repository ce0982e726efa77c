// swift-tools-version:6.1
import PackageDescription

// A separate package so that benchmarking never slows down `swift build` / `make test` of the
// library. `make bench` (full run) and `make bench-smoke` (a few iterations, for CI) build it in
// release mode, run it pinned to one core and print each figure next to `openssl speed rsa2048`
// from the same run (Benchmarks/report.py).
//
// ordo-one/benchmark's default traits include a Linux Swift 6.3 runtime interposer that is not in
// the local package mirror; naming the traits explicitly keeps only the malloc interposer (malloc
// counts per benchmark).
let package = Package(
    name: "wallet-orders-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wallet-orders", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The fixtures: a TEST-ONLY chain, the shipped sample, a large generated order.
        .target(
            name: "BenchmarkFixtures",
            dependencies: [.product(name: "WalletOrders", package: "wallet-orders")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Runs one operation N times, for callgrind and perf (see its main.swift).
        .executableTarget(
            name: "wallet-orders-profile",
            dependencies: [
                "BenchmarkFixtures", .product(name: "WalletOrders", package: "wallet-orders"),
                .product(name: "WalletOrdersStore", package: "wallet-orders"),
                .product(name: "WalletOrdersIntake", package: "wallet-orders"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Archive benchmarks: the signature alone, build+sign (deflate and store), full validation and
        // container-only verification, for the shipped sample and a large generated order.
        .executableTarget(
            name: "WalletOrdersBenchmarks",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "WalletOrders", package: "wallet-orders"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/WalletOrdersBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Store benchmarks: durable saves (one at a time and batched, with and without validation;
        // one large order) and contains, on a store of 100,000 orders, on SQLite and (when
        // WALLET_ORDERS_BENCH_PG_URL is set; report.py starts a cluster) on PostgreSQL.
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "WalletOrders", package: "wallet-orders"),
                .product(name: "WalletOrdersStore", package: "wallet-orders"),
                .product(name: "WalletOrdersPostgres", package: "wallet-orders"),
                .product(name: "WalletOrdersIntake", package: "wallet-orders"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
