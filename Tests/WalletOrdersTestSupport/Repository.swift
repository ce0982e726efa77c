public import Foundation

/// Paths into the package, found from this file's location.
public enum Repository {
    /// The package root (where `Package.swift` is).
    public static let root: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // WalletOrdersTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// `Tests/`.
    public static let tests: URL = root.appendingPathComponent("Tests", isDirectory: true)

    /// `Samples/`.
    public static let samples: URL = root.appendingPathComponent("Samples", isDirectory: true)

    /// The folder names of `Samples/` that hold an `order.json`, sorted.
    public static let sampleNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []
        return names.sorted().filter {
            FileManager.default.fileExists(atPath: samples.appendingPathComponent("\($0)/order.json").path)
        }
    }()

    /// `Samples/name/`.
    public static func sample(_ name: String) -> URL {
        samples.appendingPathComponent(name, isDirectory: true)
    }
}
