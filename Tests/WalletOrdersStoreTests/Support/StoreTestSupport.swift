import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestSupport

/// Test-time certificates (copied from WalletOrdersTests' TestPKI): one development authority per
/// test process and one Order Type ID identity per order type identifier.
enum TestPKI {
    static let authority: DevelopmentCertificateAuthority = try! DevelopmentCertificateAuthority()

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var identities: [String: SigningIdentity] = [:]
    }

    /// A signing identity for `orderTypeIdentifier` (cached; RSA key generation is the slow part).
    static func identity(for orderTypeIdentifier: String) -> SigningIdentity {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.identities[orderTypeIdentifier] { return known }
        let made = try! authority.issueOrderTypeCertificate(
            orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: "TESTTEAM01"
        ).signingIdentity()
        cache.identities[orderTypeIdentifier] = made
        return made
    }

    /// A validator whose verifier trusts the test root (and Apple's).
    static let validator: OrderValidator = try! OrderValidator(
        verifier: OrderArchiveVerifier(additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)]))

    /// A fixed signing time inside every test certificate's validity, in whole seconds.
    static let signingTime = Date(timeIntervalSince1970: Date().addingTimeInterval(-3_600).timeIntervalSince1970.rounded(.down))
}

/// Versions of one sample order, built with the test PKI at any `updatedAt`.
enum SampleVersions {
    /// The sample every store test uses.
    static let sampleName = "shipped-ecommerce"
    /// The identifier of the sample with another `orderIdentifier`.
    static func identifier(_ orderIdentifier: String) -> FullyQualifiedOrderIdentifier {
        FullyQualifiedOrderIdentifier(orderTypeIdentifier: identifier.orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }

    /// Its identifier.
    static let identifier = FullyQualifiedOrderIdentifier(
        orderTypeIdentifier: "order.com.northwindoutfitters.shop", orderIdentifier: "nw-2025-118734")
    /// Its `updatedAt` line in order.json (createdAt is 2025-11-18T16:42:10Z, before every version).
    static let updatedAtLine = #""updatedAt": "2025-11-20T08:31:44Z""#

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var archives: [String: [UInt8]] = [:]
    }

    /// The sample signed with `updatedAt` (RFC 3339 text, written as given) and `signingTime`,
    /// optionally with another `orderIdentifier` and order `status`.
    static func archive(
        updatedAt: String, signingTime: Date = TestPKI.signingTime, orderIdentifier: String? = nil,
        status: String? = nil
    ) throws -> [UInt8] {
        let key = "\(updatedAt)|\(signingTime.timeIntervalSince1970)|\(orderIdentifier ?? "")|\(status ?? "")"
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.archives[key] { return known }
        var files = try OrderSource(directory: Repository.sample(sampleName)).files
        let json = String(decoding: try #require(files[OrderArchive.orderPath]), as: UTF8.self)
        let range = try #require(json.range(of: updatedAtLine), "the sample's updatedAt changed; update SampleVersions")
        var edited = json.replacingCharacters(in: range, with: #""updatedAt": "\#(updatedAt)""#)
        if let orderIdentifier {
            let line = #""orderIdentifier": "\#(identifier.orderIdentifier)""#
            let range = try #require(edited.range(of: line), "the sample's orderIdentifier changed; update SampleVersions")
            edited.replaceSubrange(range, with: #""orderIdentifier": "\#(orderIdentifier)""#)
        }
        if let status {
            let range = try #require(edited.range(of: #""status": "open""#), "the sample's status changed; update SampleVersions")
            edited.replaceSubrange(range, with: #""status": "\#(status)""#)
        }
        files[OrderArchive.orderPath] = Array(edited.utf8)
        let source = OrderSource(files: files)
        let order = try Order.decode(from: Data(try #require(source.orderJSON)))
        #expect(order.orderTypeIdentifier == identifier.orderTypeIdentifier)
        #expect(order.orderIdentifier == orderIdentifier ?? identifier.orderIdentifier)
        let built = try OrderArchiveBuilder(identity: TestPKI.identity(for: order.orderTypeIdentifier))
            .build(source, signingTime: signingTime)
        cache.archives[key] = built.bytes
        return built.bytes
    }
}

/// The two stores every contract test runs against, through ``OrderStoring``.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }

    /// A fresh, empty store; `body` gets it, and any temporary folder is removed afterwards.
    /// `validator` defaults to one trusting the test root.
    func withStore<T>(
        validator: OrderValidator = TestPKI.validator, _ body: (any OrderStoring) async throws -> T
    ) async throws -> T {
        switch self {
        case .inMemory:
            return try await body(try InMemoryOrderStore(validator: validator))
        case .sqlite:
            let folder = try TemporaryFolder("store")
            defer { folder.remove() }
            return try await body(try SQLiteOrderStore(url: folder.file("orders.sqlite"), validator: validator))
        }
    }
}

/// Records what confirmation handlers were asked.
actor ProposalRecorder {
    private(set) var proposals: [SaveProposal] = []
    func record(_ proposal: SaveProposal) { proposals.append(proposal) }
}

/// SHA-256 from Python's hashlib, an oracle independent of the store's own digest.
enum SHA256Oracle {
    static func hex(_ bytes: [UInt8]) -> String {
        let hexBytes = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let result = try! ExternalProgram.python(
            "import hashlib, sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1])).hexdigest())", [hexBytes])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
