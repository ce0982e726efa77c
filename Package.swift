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
        .library(name: "WalletOrdersStore", targets: ["WalletOrdersStore"]),
        .executable(name: "wallet-orders", targets: ["wallet-orders"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
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
        // The only Swift code that imports the C modules. `package` API, no product.
        .target(
            name: "WalletOrdersInterop",
            dependencies: ["CWalletOrdersOpenSSL", "CWalletOrdersZip"],
            swiftSettings: swiftSettings
        ),
        // The public library: Swift types only.
        .target(
            name: "WalletOrders",
            dependencies: ["WalletOrdersInterop"],
            exclude: ["Validation/ReferenceData/Generator"],
            resources: [.copy("Resources/TrustAnchors"), .copy("Resources/Schemas")],
            swiftSettings: swiftSettings
        ),
        // The order store (FinanceKit's save/contains answers) on embedded SQLite through GRDB.
        .target(
            name: "WalletOrdersStore",
            dependencies: ["WalletOrders", "WalletOrdersInterop", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // The command-line tool: argument parsing and printing, nothing else.
        .executableTarget(
            name: "wallet-orders",
            dependencies: [
                "WalletOrders",
                "WalletOrdersStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Helpers every test target shares: temporary folders, external programs, repository paths.
        // Foundation only, so any test target can use it; not a product.
        .target(
            name: "WalletOrdersTestSupport",
            path: "Tests/WalletOrdersTestSupport",
            swiftSettings: swiftSettings
        ),
        // Fuzzing (Tests/Fuzz, `make fuzz`): one entry point per input the package reads, a C
        // declaration of libFuzzer's driver, and an executable that fuzzes one target when built
        // with `-sanitize=fuzzer,address -DFUZZING` and otherwise replays files through it.
        .target(
            name: "WalletOrdersFuzzTargets",
            dependencies: ["WalletOrders", "WalletOrdersInterop", "WalletOrdersStore"],
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
            name: "WalletOrdersInteropTests",
            dependencies: ["WalletOrdersInterop", "WalletOrdersTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersTests",
            dependencies: ["WalletOrders", "WalletOrdersInterop", "WalletOrdersTestSupport"],
            exclude: ["Support/make_order_archive.py", "Golden", "Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersStoreTests",
            dependencies: ["WalletOrdersStore", "WalletOrders", "WalletOrdersTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletOrdersCLITests",
            dependencies: [
                "wallet-orders",
                "WalletOrders",
                "WalletOrdersTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
