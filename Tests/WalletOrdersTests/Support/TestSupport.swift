import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// This target's own folders; the package root, `Samples/` and the sample names come from
/// ``WalletOrdersTestSupport/Repository``.
extension Repository {
    static let support = tests.appendingPathComponent("WalletOrdersTests/Support", isDirectory: true)
    static let golden = tests.appendingPathComponent("WalletOrdersTests/Golden", isDirectory: true)
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
    static func build(_ name: String, compression: ArchiveCompression = .deflate) throws -> BuiltOrderArchive {
        let source = try source(name)
        let identity = TestPKI.identity(for: try orderTypeIdentifier(of: source))
        return try OrderArchiveBuilder(identity: identity, compression: compression).build(source, signingTime: TestPKI.signingTime)
    }
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
