public import Foundation

/// The built `wallet-orders` executable: next to the test bundle, else
/// `.build-release/release/wallet-orders` under the package root (what `make build-tests` builds).
public enum WalletOrdersBinary {
    /// Where it is looked for, in order.
    public static let candidates: [URL] = {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle.main.executableURL?.deletingLastPathComponent() ?? Bundle.main.bundleURL)
        folders.append(Repository.root.appendingPathComponent(".build-release/release", isDirectory: true))
        return folders.map { $0.appendingPathComponent("wallet-orders") }
    }()

    /// The executable, or why it wasn't found.
    public static let located: Result<URL, MissingExecutable> = {
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return .success(found)
        }
        return .failure(
            MissingExecutable(
                description:
                    "The wallet-orders executable was not found. Build it first (swift build --build-tests). Looked at:\n"
                    + candidates.map { "  " + $0.path }.joined(separator: "\n")))
    }()

    /// The executable's URL; throws ``MissingExecutable`` when it isn't built.
    public static func url() throws -> URL { try located.get() }
}

/// The `wallet-orders` executable was not found.
public struct MissingExecutable: Error, CustomStringConvertible {
    public var description: String
}
