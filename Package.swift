// swift-tools-version:6.2
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode plus the upcoming features the house style asks for.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),  // SE-0335
    .enableUpcomingFeature("MemberImportVisibility"),  // SE-0444
    .enableUpcomingFeature("InternalImportsByDefault"),  // SE-0409
]

let package = Package(
    name: "wallet-orders",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WalletOrders", targets: ["WalletOrders"]),
        .library(name: "WalletPasses", targets: ["WalletPasses"]),
        .library(name: "WalletOrdersStore", targets: ["WalletOrdersStore"]),
        .library(name: "WalletOrdersIntake", targets: ["WalletOrdersIntake"]),
        .library(name: "WalletOrdersPostgres", targets: ["WalletOrdersPostgres"]),
        .library(name: "WalletOrdersServer", targets: ["WalletOrdersServer"]),
        .library(name: "WalletOrdersServiceCheck", targets: ["WalletOrdersServiceCheck"]),
        .executable(name: "wallet-orders", targets: ["wallet-orders"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // The web service (WalletOrdersServer) and its push client.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // Child processes (the preview's Chromium, and every program the tests run), awaited without a thread.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // The PostgreSQL order store (WalletOrdersPostgres).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // C system libraries: a module map and a shim header, nothing else.
        .systemLibrary(
            name: "CWalletOrdersOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CWalletOrdersZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"]), .brew(["libzip"])]
        ),
        // libzint (no pkg-config file on Debian; the module map links it): barcodes for the preview.
        .systemLibrary(
            name: "CWalletOrdersBarcode",
            providers: [.apt(["libzint-dev"]), .brew(["zint"])]
        ),
        // The only Swift code that imports the C modules, in two modules: OpenSSL and libzip for
        // everything, libzint for the preview alone (so that the core library doesn't link it).
        // `package` API, no product.
        .target(
            name: "WalletOrdersInterop",
            dependencies: ["CWalletOrdersOpenSSL", "CWalletOrdersZip"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WalletOrdersBarcodeInterop",
            dependencies: ["CWalletOrdersBarcode"],
            swiftSettings: swiftSettings
        ),
        // JSON with positions and pointers, and the JSON Schema engine: `package` API, no product,
        // imports nothing of ours (the floor every stage that reads JSON stands on).
        .target(
            name: "WalletOrdersJSON",
            swiftSettings: swiftSettings
        ),
        // The core both archive kinds share: zip reading and writing within strict limits, the
        // manifest (SHA-256 or SHA-1), CMS signing and verification, the Order Type ID and Pass Type
        // ID certificate profiles, diagnostics and the rule catalogue, bounded files, the one error
        // type. Re-exported by WalletOrders and WalletPasses, which don't import each other.
        .target(
            name: "WalletArchives",
            dependencies: ["WalletOrdersInterop", "WalletOrdersJSON"],
            // No resource bundle: the schemas and Apple's certificates are compiled in
            // (Resources/EmbeddedResources+Generated.swift, `make resources`), so the binary runs alone.
            exclude: ["Resources/TrustAnchors", "Resources/generate-embedded-resources.sh"],
            swiftSettings: swiftSettings
        ),
        // The public library for orders: Swift types only.
        .target(
            name: "WalletOrders",
            dependencies: ["WalletArchives", "WalletOrdersInterop", "WalletOrdersJSON"],
            exclude: ["Validation/ReferenceData/Generator"],
            swiftSettings: swiftSettings
        ),
        // The public library for passes (`.pkpass`, `.pkpasses`): Swift types only.
        .target(
            name: "WalletPasses",
            dependencies: ["WalletArchives", "WalletOrdersInterop", "WalletOrdersJSON"],
            swiftSettings: swiftSettings
        ),
        // The order store (FinanceKit's save/contains answers) on embedded SQLite through GRDB.
        .target(
            name: "WalletOrdersStore",
            dependencies: [
                "WalletOrders", "WalletPasses", "WalletOrdersInterop", "WalletOrdersJSON", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The order intake: validate → sign → store → notify, the one way an order comes in
        // (signed archives and sources), for the command-line tool, the service and library users.
        // Knows neither Hummingbird nor ArgumentParser.
        .target(
            name: "WalletOrdersIntake",
            dependencies: ["WalletOrders", "WalletPasses", "WalletOrdersInterop", "WalletOrdersJSON", "WalletOrdersStore"],
            swiftSettings: swiftSettings
        ),
        // The order store on PostgreSQL (postgres-nio): the same contract for many servers on one
        // database. Its own target, so SQLite-only users of WalletOrdersStore don't build NIO.
        .target(
            name: "WalletOrdersPostgres",
            dependencies: [
                "WalletOrders",
                "WalletPasses",
                "WalletOrdersStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The order web service: Apple's protocol and the merchant API on Hummingbird 2, the APNs
        // client and the push outbox worker.
        .target(
            name: "WalletOrdersServer",
            dependencies: [
                "WalletOrders",
                "WalletPasses",
                "WalletOrdersJSON",
                "WalletOrdersStore",
                "WalletOrdersIntake",
                "WalletOrdersPreview",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),
        // A checker for any order web service: plays Wallet against it over HTTP (AsyncHTTPClient) and
        // reports each deviation from Apple's protocol by rule. Knows neither Hummingbird nor our service.
        .target(
            name: "WalletOrdersServiceCheck",
            dependencies: [
                "WalletOrders",
                "WalletOrdersInterop",  // the zip of a changed order (merchant API)
                "WalletOrdersJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // An order as the customer will see it: a self-contained HTML page (`wallet-orders preview`),
        // barcodes drawn through the interop layer.
        .target(
            name: "WalletOrdersPreview",
            dependencies: [
                "WalletOrders", "WalletOrdersBarcodeInterop",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command-line tool: argument parsing and printing, nothing else.
        .executableTarget(
            name: "wallet-orders",
            dependencies: [
                "WalletOrders",
                "WalletPasses",
                "WalletOrdersInterop",  // the C libraries' versions, for --version
                "WalletOrdersBarcodeInterop",  // libzint's version, for doctor
                "WalletOrdersStore",
                "WalletOrdersIntake",
                "WalletOrdersServer",
                "WalletOrdersPreview",
                "WalletOrdersPostgres",
                "WalletOrdersServiceCheck",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // The DocC article "Using wallet-orders in a server": a Hummingbird service that receives,
        // validates and saves archives and answers contains. Built with the tests so the page compiles.
        .executableTarget(
            name: "wallet-orders-server-example",
            dependencies: [
                "WalletOrders",
                "WalletOrdersIntake",
                "WalletOrdersStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Examples/OrderServer",
            swiftSettings: swiftSettings
        ),
        // A local stand-in for Apple's push service (HTTP/2 over TLS, NIO): checks the client
        // certificate or JWT, headers, topic and payload, and answers with any of APNs' errors.
        // For the tests and `make demo`; not a product.
        .target(
            name: "APNsStandIn",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/APNsStandIn",
            swiftSettings: swiftSettings
        ),
        // Helpers every test target shares: temporary folders, external programs, repository paths.
        // Foundation only, so any test target can use it; not a product.
        .target(
            name: "WalletOrdersTestSupport",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/WalletOrdersTestSupport",
            exclude: ["browser_check.py"],
            swiftSettings: swiftSettings
        ),
        // `apns-stand-in`: runs the stand-in from the command line (`make demo` shows pushes arriving).
        .executableTarget(
            name: "apns-stand-in",
            dependencies: [
                "APNsStandIn",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/APNsStandInTool",
            swiftSettings: swiftSettings
        ),
        // `make bench-serve`'s reference: a bare Hummingbird 2 route answering "hello", no middleware,
        // measured in the same run as `wallet-orders serve` (the framework's ceiling on the machine).
        .executableTarget(
            name: "serve-reference",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"), "WalletOrders", "WalletOrdersStore", "WalletOrdersIntake",
                "WalletOrdersServer",
            ],
            path: "Tests/ServeReference",
            swiftSettings: swiftSettings
        ),
        // `make bench-serve`'s floor of the push line: the service's APNs client sending to the
        // stand-in, with no store, outbox or worker.
        .executableTarget(
            name: "push-reference",
            dependencies: ["WalletOrdersServer"],
            path: "Tests/PushReference",
            swiftSettings: swiftSettings
        ),
        // The benchmarks (`make bench`, Benchmarks/): plain executables of this package, built in the
        // release build with the tool itself, so the stack is compiled once for both. The harness
        // times each benchmark and prints JSON lines for Benchmarks/report.py; not a product.
        .target(
            name: "BenchmarkHarness",
            path: "Benchmarks/Sources/BenchmarkHarness",
            swiftSettings: swiftSettings
        ),
        // The benchmarks' fixtures: a TEST-ONLY chain, the shipped sample, a large generated order.
        .target(
            name: "BenchmarkFixtures",
            dependencies: ["WalletOrders"],
            path: "Benchmarks/Sources/BenchmarkFixtures",
            swiftSettings: swiftSettings
        ),
        // Build+sign (deflate and store), the signature alone, full validation and container-only
        // verification, for the shipped sample and a large generated order.
        .executableTarget(
            name: "wallet-orders-archive-benchmarks",
            dependencies: ["BenchmarkHarness", "BenchmarkFixtures", "WalletOrders"],
            path: "Benchmarks/Sources/ArchiveBenchmarks",
            swiftSettings: swiftSettings
        ),
        // Durable saves (one at a time and batched, with and without validation; one large order)
        // and contains, on a store of 100,000 orders, on SQLite and (WALLET_ORDERS_BENCH_PG_URL;
        // report.py starts a cluster) on PostgreSQL.
        .executableTarget(
            name: "wallet-orders-store-benchmarks",
            dependencies: [
                "BenchmarkHarness", "BenchmarkFixtures", "WalletOrders", "WalletOrdersStore", "WalletOrdersPostgres", "WalletOrdersIntake",
                .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Benchmarks/Sources/StoreBenchmarks",
            swiftSettings: swiftSettings
        ),
        // Runs one operation N times, for callgrind and perf (see its main.swift).
        .executableTarget(
            name: "wallet-orders-profile",
            dependencies: ["BenchmarkFixtures", "WalletOrders", "WalletOrdersStore", "WalletOrdersIntake"],
            path: "Benchmarks/Sources/wallet-orders-profile",
            swiftSettings: swiftSettings
        ),
        // Signed test orders: a development PKI and versions of a sample (WalletOrders and
        // Swift Testing); shared by the store and server tests.
        .target(
            name: "WalletOrdersTestFixtures",
            dependencies: ["WalletOrders", "WalletPasses", "WalletOrdersStore", "WalletOrdersIntake", "WalletOrdersTestSupport"],
            path: "Tests/WalletOrdersTestFixtures",
            swiftSettings: swiftSettings
        ),
        // Fuzzing (Tests/Fuzz, `make fuzz`): one entry point per input the package reads, a C
        // declaration of libFuzzer's driver, and an executable that fuzzes one target when built
        // with `-sanitize=fuzzer,address -DFUZZING` and otherwise replays files through it.
        .target(
            name: "WalletOrdersFuzzTargets",
            dependencies: ["WalletOrders", "WalletPasses", "WalletOrdersInterop", "WalletOrdersJSON", "WalletOrdersStore", "WalletOrdersIntake"],
            path: "Tests/Fuzz/Targets",
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CWalletOrdersFuzzer",
            path: "Tests/Fuzz/CWalletOrdersFuzzer"
        ),
        .executableTarget(
            name: "wallet-orders-fuzz",
            dependencies: ["WalletOrdersFuzzTargets", "CWalletOrdersFuzzer"],
            path: "Tests/Fuzz/Driver",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersFuzzTests",
            dependencies: ["WalletOrdersFuzzTargets", "WalletOrders", "WalletOrdersInterop", "WalletOrdersTestSupport"],
            path: "Tests/Fuzz/RegressionTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletPassesTests",
            dependencies: ["WalletPasses", "WalletArchives", "WalletOrdersInterop", "WalletOrdersJSON", "WalletOrdersTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersInteropTests",
            dependencies: ["WalletOrdersInterop", "WalletOrdersBarcodeInterop", "WalletOrdersTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersTests",
            dependencies: [
                "WalletOrders", "WalletOrdersInterop", "WalletOrdersJSON", "WalletOrdersIntake", "WalletOrdersTestSupport",
                "WalletOrdersTestFixtures",
            ],
            exclude: ["Support/make_order_archive.py", "Support/apple_profile_chain.py", "Support/json_schema_check.py", "Golden", "Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersStoreTests",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersPostgres", "WalletOrdersIntake", "WalletOrders", "WalletPasses", "WalletOrdersTestSupport",
                "WalletOrdersTestFixtures", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersIntakeTests",
            dependencies: ["WalletOrdersIntake", "WalletOrdersStore", "WalletOrders", "WalletOrdersTestSupport", "WalletOrdersTestFixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersServerTests",
            dependencies: [
                "WalletOrdersServer",
                "WalletPasses",
                "WalletOrdersServiceCheck",
                "WalletOrdersPreview",
                "WalletOrdersStore",
                "WalletOrdersIntake",
                "WalletOrdersPostgres",
                "WalletOrders",
                "WalletOrdersTestSupport",
                "WalletOrdersTestFixtures",
                "APNsStandIn",
                "apns-stand-in",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersPreviewTests",
            dependencies: ["WalletOrdersPreview", "WalletOrders", "WalletOrdersInterop", "WalletOrdersTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersCLITests",
            dependencies: [
                "wallet-orders",
                "WalletOrders",
                "WalletOrdersStore",
                "WalletOrdersTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: [
                "Support/held_connections.py", "Support/trickled_bodies.py", "Support/misbehaving_service.py", "Support/trail_flood.py",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
