import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop

/// Paths into the repository, found from this file's location.
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // WalletOrdersTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    static let samples = root.appendingPathComponent("Samples", isDirectory: true)
    static let support = root.appendingPathComponent("Tests/WalletOrdersTests/Support", isDirectory: true)
    static let golden = root.appendingPathComponent("Tests/WalletOrdersTests/Golden", isDirectory: true)

    /// The folder names of `Samples/` that hold an `order.json`, sorted.
    static let sampleNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []
        return names.sorted().filter {
            FileManager.default.fileExists(atPath: samples.appendingPathComponent("\($0)/order.json").path)
        }
    }()

    static func sample(_ name: String) -> URL { samples.appendingPathComponent(name, isDirectory: true) }
}

/// Test-time certificates: one development authority per test process, and one Order Type ID
/// identity per order type identifier (RSA key generation is the slow part, so it is shared).
enum TestPKI {
    static let authority: DevelopmentCertificateAuthority = try! DevelopmentCertificateAuthority()
    static let otherAuthority: DevelopmentCertificateAuthority = try! DevelopmentCertificateAuthority(generation: "G1")

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var certificates: [String: DevelopmentOrderTypeCertificate] = [:]
    }

    /// A development Order Type ID certificate for `orderTypeIdentifier` (cached).
    static func certificate(for orderTypeIdentifier: String) -> DevelopmentOrderTypeCertificate {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.certificates[orderTypeIdentifier] { return known }
        let made = try! authority.issueOrderTypeCertificate(orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: "TESTTEAM01")
        cache.certificates[orderTypeIdentifier] = made
        return made
    }

    static func identity(for orderTypeIdentifier: String) -> SigningIdentity {
        try! certificate(for: orderTypeIdentifier).signingIdentity()
    }

    /// A verifier that trusts the test root (and Apple's).
    static let verifier: OrderArchiveVerifier = try! OrderArchiveVerifier(
        additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)])

    /// A fixed signing time inside every test certificate's validity.
    static let signingTime = Date().addingTimeInterval(-3_600).rounded()
}

extension Date {
    /// The date with whole seconds (signing times are stored to the second).
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

/// Builds samples with the test PKI.
enum SampleBuilds {
    static func source(_ name: String) throws -> OrderSource {
        try OrderSource(directory: Repository.sample(name))
    }

    static func orderTypeIdentifier(of source: OrderSource) throws -> String {
        try Order.decode(from: Data(try #require(source.orderJSON))).orderTypeIdentifier
    }

    /// Builds sample `name` with a matching identity at ``TestPKI/signingTime``.
    static func build(_ name: String) throws -> BuiltOrderArchive {
        let source = try source(name)
        let identity = TestPKI.identity(for: try orderTypeIdentifier(of: source))
        return try OrderArchiveBuilder(identity: identity).build(source, signingTime: TestPKI.signingTime)
    }
}

/// A unique temporary folder, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    func write(_ bytes: [UInt8], to name: String) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: target)
        return target
    }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Runs a program and captures its output.
struct ProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

func runProcess(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
        standardError: String(decoding: errData, as: UTF8.self))
}

/// Rewriting archives for tampering tests: read every file, change them, zip them again.
enum ArchiveSurgery {
    /// The archive's files in their original order.
    static func files(of bytes: [UInt8]) throws -> [(path: String, bytes: [UInt8])] {
        let archive = try OrderArchive(bytes: bytes)
        return archive.entries.filter { !$0.isDirectory }.map { ($0.path, archive.contents(of: $0.path) ?? []) }
    }

    static func zip(_ files: [(path: String, bytes: [UInt8])]) throws -> [UInt8] {
        try ZipWriter.write(
            files.map { ZipWriter.Entry(path: $0.path, bytes: $0.bytes) },
            timestamp: .init(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0))
    }

    static func rewrite(_ bytes: [UInt8], _ change: (inout [(path: String, bytes: [UInt8])]) throws -> Void) throws -> [UInt8] {
        var all = try files(of: bytes)
        try change(&all)
        return try zip(all)
    }
}
