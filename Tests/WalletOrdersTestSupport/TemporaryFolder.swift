public import Foundation

/// A unique temporary folder for one test. Make it inside the test and remove it with
/// `defer { folder.remove() }`.
public struct TemporaryFolder: Sendable {
    /// The folder itself.
    public let url: URL

    /// Creates a new, empty folder in the system's temporary directory, named after `label`
    /// (the calling function, by default) and a UUID.
    public init(_ label: String = #function) throws {
        let name = "wallet-orders-tests-\(label.prefix { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The URL of `relativePath` inside the folder (nothing is created).
    public func file(_ relativePath: String) -> URL {
        url.appendingPathComponent(relativePath)
    }

    /// Writes `bytes` to `relativePath` inside the folder, creating the folders on the way.
    /// Returns the file's URL.
    @discardableResult
    public func write(_ bytes: some Sequence<UInt8>, to relativePath: String) throws -> URL {
        let target = file(relativePath)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: target)
        return target
    }

    /// Removes the folder and everything in it; errors are ignored.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
