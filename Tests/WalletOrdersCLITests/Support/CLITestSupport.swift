import Foundation
import Testing

/// Paths into the repository, found from this file's location.
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // WalletOrdersCLITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    static let samples = root.appendingPathComponent("Samples", isDirectory: true)
    static let sampleNames = ["localized", "returns-and-transactions", "shipped-ecommerce", "store-pickup"]
    static let shippedEcommerce = samples.appendingPathComponent("shipped-ecommerce", isDirectory: true)
    /// `orderTypeIdentifier` and `orderIdentifier` of `Samples/shipped-ecommerce/order.json`.
    static let shippedOrderTypeIdentifier = "order.com.northwindoutfitters.shop"
    static let shippedOrderIdentifier = "nw-2025-118734"
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// The built `wallet-orders` executable: next to the test bundle (`.build*/debug/`), else
/// `.build/debug/wallet-orders` under the package root.
enum WalletOrdersBinary {
    static let candidates: [URL] = {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle.main.executableURL?.deletingLastPathComponent() ?? Bundle.main.bundleURL)
        folders.append(Repository.root.appendingPathComponent(".build/debug", isDirectory: true))
        return folders.map { $0.appendingPathComponent("wallet-orders") }
    }()

    static let located: Result<URL, FixtureError> = {
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return .success(found)
        }
        return .failure(
            FixtureError(
                description:
                    "The wallet-orders executable was not found. Build it first (swift build --build-tests). Looked at:\n"
                    + candidates.map { "  " + $0.path }.joined(separator: "\n")))
    }()

    static func url() throws -> URL { try located.get() }
}

/// What one run of the tool printed and how it ended.
struct CLIResult: Sendable, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var standardOutput: Data
    var standardError: Data

    var output: String { String(decoding: standardOutput, as: UTF8.self) }
    var errorOutput: String { String(decoding: standardError, as: UTF8.self) }

    var description: String {
        "wallet-orders \(arguments.joined(separator: " ")) → exit \(status)\n--- stdout\n\(output)--- stderr\n\(errorOutput)"
    }
}

/// Runs programs with `Process`, stdout and stderr going to files (no pipe deadlocks).
enum CLI {
    /// The environment for every run: the test's own, without `SOURCE_DATE_EPOCH`, with `NO_COLOR=1`.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = nil
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `wallet-orders arguments…`.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil,
        timeout: TimeInterval = 60
    ) throws -> CLIResult {
        let binary = try WalletOrdersBinary.url()
        let (status, out, err) = try launch(
            binary, arguments, environment: environment(extra), directory: directory, timeout: timeout)
        return CLIResult(arguments: arguments, status: status, standardOutput: out, standardError: err)
    }

    /// Runs any executable; returns its exit status, stdout and stderr.
    static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String], directory: URL? = nil,
        timeout: TimeInterval = 60
    ) throws -> (Int32, Data, Data) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wallet-orders-cli-output-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        if let directory { process.currentDirectoryURL = directory }
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw FixtureError(
                description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) timed out")
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return (process.terminationStatus, try Data(contentsOf: outURL), try Data(contentsOf: errURL))
    }

    /// Runs `python3 -c script arguments…`.
    static func python(_ script: String, _ arguments: [String]) throws -> (Int32, String, String) {
        let (status, out, err) = try launch(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + arguments,
            environment: ProcessInfo.processInfo.environment)
        return (status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

/// A unique temporary folder for one test; remove it with `defer { TemporaryFolder.remove(dir) }`.
enum TemporaryFolder {
    static func make(_ label: String = #function) throws -> URL {
        let name = "wallet-orders-cli-\(label.prefix { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The files `wallet-orders dev-certs` writes.
struct DevCertsFolder: Sendable {
    var directory: URL
    var rootCA: URL { directory.appendingPathComponent("root-ca.pem") }
    var wwdr: URL { directory.appendingPathComponent("wwdr-intermediate.pem") }
    var certificate: URL { directory.appendingPathComponent("order-type.pem") }
    var key: URL { directory.appendingPathComponent("order-type.key.pem") }
    var p12: URL { directory.appendingPathComponent("order-type.p12") }

    /// `--cert … --key … --wwdr …` for this folder.
    var signingArguments: [String] { ["--cert", certificate.path, "--key", key.path, "--wwdr", wwdr.path] }
}

/// Fixtures made once per test process (RSA key generation is the slow part) and only read by
/// tests. They live under one folder that is removed when the process exits.
enum SharedFixtures {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wallet-orders-cli-shared-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: SharedFixtures.folder) }
        return url
    }()

    /// A signing time inside the dev certificates' validity (they start a day before they are
    /// made): the start of today, UTC, as RFC 3339. Fixed for the whole run.
    static let signingTime: Date = {
        let now = Date().timeIntervalSince1970
        return Date(timeIntervalSince1970: (now / 86_400).rounded(.down) * 86_400)
    }()
    static let signingTimeText: String = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: signingTime)
    }()

    /// Dev certs for the shipped-ecommerce sample's order type.
    static let certs: Result<DevCertsFolder, FixtureError> = makeCerts("certs")
    /// A second, unrelated set (same names, different keys) for mix-up tests.
    static let otherCerts: Result<DevCertsFolder, FixtureError> = makeCerts("other-certs")

    private static func makeCerts(_ name: String) -> Result<DevCertsFolder, FixtureError> {
        let directory = folder.appendingPathComponent(name, isDirectory: true)
        do {
            let result = try CLI.run([
                "dev-certs", "--order-type-id", Repository.shippedOrderTypeIdentifier, "--team-id", "TESTTEAM01",
                "--out",
                directory.path,
            ])
            guard result.status == 0 else { return .failure(FixtureError(description: "dev-certs failed: \(result)")) }
            return .success(DevCertsFolder(directory: directory))
        } catch {
            return .failure(FixtureError(description: "dev-certs could not run: \(error)"))
        }
    }

    /// `Samples/shipped-ecommerce` built with ``certs`` at ``signingTime``.
    static let archive: Result<URL, FixtureError> = {
        let url = folder.appendingPathComponent("shipped-ecommerce.order")
        do {
            let certs = try SharedFixtures.certs.get()
            let result = try CLI.run(
                ["build", Repository.shippedEcommerce.path, "--out", url.path, "--signing-time", signingTimeText]
                    + certs.signingArguments)
            guard result.status == 0 else { return .failure(FixtureError(description: "build failed: \(result)")) }
            return .success(url)
        } catch {
            return .failure(FixtureError(description: "\(error)"))
        }
    }()
}

/// Parses JSON output, failing the test with the text when it isn't JSON.
func parseJSON(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    do {
        return try JSONSerialization.jsonObject(with: data)
    } catch {
        Issue.record("Not JSON: \(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
        throw error
    }
}
