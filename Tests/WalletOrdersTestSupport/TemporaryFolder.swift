public import Foundation
public import Testing

/// A unique temporary folder. A test gets its own from the ``Trait/temporaryFolder`` trait
/// (``TemporaryFolder/ofTest``); a helper that needs scratch space of its own makes one and
/// removes it with `defer { folder.remove() }`.
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

extension TemporaryFolder {
    /// The running test's folder, while the ``Trait/temporaryFolder`` trait provides one.
    @TaskLocal static var current: TemporaryFolder?

    /// The folder of the running test case: made empty before it starts, removed with everything
    /// in it after it ends, whether it passed or not. Each case of a parameterized test has its
    /// own. Throws when the test (or its suite) doesn't have the ``Trait/temporaryFolder`` trait.
    public static var ofTest: TemporaryFolder {
        get throws {
            guard let current else { throw TemporaryFolderMissing() }
            return current
        }
    }
}

/// ``TemporaryFolder/ofTest`` was read by a test without the ``Trait/temporaryFolder`` trait.
public struct TemporaryFolderMissing: Error, CustomStringConvertible {
    public var description: String { "no folder for this test: give it (or its suite) the .temporaryFolder trait" }
}

/// Gives each test case a ``TemporaryFolder`` of its own (``TemporaryFolder/ofTest``).
public struct TemporaryFolderTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Swift Testing provides a scope for the suite and the test function too; the folder is
        // the test case's (every test, parameterized or not, runs as test cases).
        guard testCase != nil else { return try await function() }
        let folder = try TemporaryFolder(test.name)
        defer { folder.remove() }
        try await TemporaryFolder.$current.withValue(folder) { try await function() }
    }
}

extension Trait where Self == TemporaryFolderTrait {
    /// Each test case gets an empty folder of its own, ``TemporaryFolder/ofTest``, removed after it.
    public static var temporaryFolder: Self { TemporaryFolderTrait() }
}
