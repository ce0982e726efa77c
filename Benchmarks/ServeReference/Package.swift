// swift-tools-version:6.1
import PackageDescription

// The reference for `make bench-serve`: a bare Hummingbird 2 application with one route that
// answers "hello", no middleware. Measured in the same run as `wallet-orders serve`, it is the
// framework's own ceiling on this machine; the service's figures are given as a ratio to it.
let package = Package(
    name: "serve-reference",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1")
    ],
    targets: [
        .executableTarget(
            name: "serve-reference",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
