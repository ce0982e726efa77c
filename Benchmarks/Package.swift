// swift-tools-version:6.2
import PackageDescription

// A separate package so that benchmarking never slows down `swift build` / `make test` of the
// library. `make bench` builds it in release mode and runs it pinned to one core.
let package = Package(
    name: "wallet-orders-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "wallet-orders", path: "..")],
    targets: [
        .executableTarget(
            name: "wallet-orders-bench",
            dependencies: [.product(name: "WalletOrders", package: "wallet-orders")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
