import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestSupport

/// This target's own folders; the package root, `Samples/` and the sample names come from
/// ``WalletOrdersTestSupport/Repository``.
extension Repository {
    static let support = tests.appendingPathComponent("WalletOrdersTests/Support", isDirectory: true)
    static let golden = tests.appendingPathComponent("WalletOrdersTests/Golden", isDirectory: true)
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
