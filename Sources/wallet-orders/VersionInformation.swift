import WalletOrdersInterop

/// What `wallet-orders --version` prints: the tool's version and the commit it was built from,
/// the Swift compiler that built it, and the OpenSSL and libzip it runs with.
enum VersionInformation {
    /// The tool's version.
    static let version = "0.1.0"

    /// The git commit (`git describe --always --dirty`) the binary was built from, or `nil`.
    ///
    /// SwiftPM has no build setting that carries a value into the code, so `make release` (and
    /// `make install`, `make release-static`) writes the commit into
    /// `BuildCommit+Generated.swift` (not in git) and compiles with
    /// `-DWALLET_ORDERS_BUILD_COMMIT`; a plain `swift build` has no commit to name.
    static var commit: String? {
        #if WALLET_ORDERS_BUILD_COMMIT
            generatedBuildCommit
        #else
            nil
        #endif
    }

    /// The version of the Swift compiler that built the binary, to the minor version.
    static var swiftCompiler: String {
        #if compiler(>=7.0)
            "7.0 or later"
        #elseif compiler(>=6.5)
            "6.5"
        #elseif compiler(>=6.4)
            "6.4"
        #elseif compiler(>=6.3)
            "6.3"
        #else
            "6.2"
        #endif
    }

    /// Two lines: `wallet-orders 0.1.0 (commit 65c6c6d)` (or `unknown commit`), then the
    /// compiler and the C libraries.
    static var text: String {
        """
        wallet-orders \(version) (\(commit.map { "commit \($0)" } ?? "unknown commit"))
        Swift \(swiftCompiler), \(LibraryVersions.openSSL), libzip \(LibraryVersions.libzip)
        """
    }
}
