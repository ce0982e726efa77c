public import Foundation
import Testing
public import WalletOrders
import WalletOrdersTestSupport

/// Test-time certificates: one development authority per test process, and one Order Type ID
/// identity per order type identifier (RSA key generation is the slow part, so it is shared).
public enum TestPKI {
    public static let authority: DevelopmentCertificateAuthority = try! DevelopmentCertificateAuthority()
    public static let otherAuthority: DevelopmentCertificateAuthority = try! DevelopmentCertificateAuthority(generation: "G1")

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var certificates: [String: DevelopmentOrderTypeCertificate] = [:]
        var identities: [String: SigningIdentity] = [:]
    }

    /// A development Order Type ID certificate for `orderTypeIdentifier` (cached).
    public static func certificate(for orderTypeIdentifier: String) -> DevelopmentOrderTypeCertificate {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.certificates[orderTypeIdentifier] { return known }
        let made = try! authority.issueOrderTypeCertificate(orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: "TESTTEAM01")
        cache.certificates[orderTypeIdentifier] = made
        return made
    }

    /// A signing identity for `orderTypeIdentifier` (cached).
    public static func identity(for orderTypeIdentifier: String) -> SigningIdentity {
        let certificate = certificate(for: orderTypeIdentifier)
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.identities[orderTypeIdentifier] { return known }
        let made = try! certificate.signingIdentity()
        cache.identities[orderTypeIdentifier] = made
        return made
    }

    /// The test root, PEM, as a trust anchor.
    public static var rootAnchor: [UInt8] { Array(authority.rootCertificatePEM.utf8) }

    /// A verifier that trusts the test root (and Apple's).
    public static let verifier: OrderArchiveVerifier = try! OrderArchiveVerifier(additionalTrustAnchors: [rootAnchor])

    /// A validator whose verifier trusts the test root (and Apple's).
    public static let validator: OrderValidator = try! OrderValidator(verifier: verifier)

    /// A fixed signing time inside every test certificate's validity, in whole seconds.
    public static let signingTime = Date(timeIntervalSince1970: Date().addingTimeInterval(-3_600).timeIntervalSince1970.rounded(.down))
}

/// Versions of one sample order, built with the test PKI at any `updatedAt`.
public enum SampleVersions {
    /// The sample every store test uses.
    public static let sampleName = "shipped-ecommerce"
    /// The identifier of the sample with another `orderIdentifier`.
    public static func identifier(_ orderIdentifier: String) -> FullyQualifiedOrderIdentifier {
        FullyQualifiedOrderIdentifier(orderTypeIdentifier: identifier.orderTypeIdentifier, orderIdentifier: orderIdentifier)
    }

    /// Its identifier.
    public static let identifier = FullyQualifiedOrderIdentifier(
        orderTypeIdentifier: "order.com.northwindoutfitters.shop", orderIdentifier: "nw-2025-118734")
    /// Its `updatedAt` line in order.json (createdAt is 2025-11-18T16:42:10Z, before every version).
    /// The sample's `authenticationToken`.
    public static let authenticationToken = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"
    public static let updatedAtLine = #""updatedAt": "2025-11-20T08:31:44Z""#

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var archives: [String: [UInt8]] = [:]
    }

    /// The sample signed with `updatedAt` (RFC 3339 text, written as given) and `signingTime`,
    /// optionally with another `orderIdentifier`, order `status` and `orderTypeIdentifier` (another
    /// merchant's order type, signed with a test certificate of that type).
    public static func archive(
        updatedAt: String, signingTime: Date = TestPKI.signingTime, orderIdentifier: String? = nil,
        status: String? = nil, orderTypeIdentifier: String? = nil, authenticationToken: String? = nil
    ) throws -> [UInt8] {
        let key =
            "\(updatedAt)|\(signingTime.timeIntervalSince1970)|\(orderIdentifier ?? "")|\(status ?? "")|\(orderTypeIdentifier ?? "")|\(authenticationToken ?? "")"
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
        if let orderTypeIdentifier {
            let line = #""orderTypeIdentifier": "\#(identifier.orderTypeIdentifier)""#
            let range = try #require(edited.range(of: line), "the sample's orderTypeIdentifier changed; update SampleVersions")
            edited.replaceSubrange(range, with: #""orderTypeIdentifier": "\#(orderTypeIdentifier)""#)
        }
        if let authenticationToken {
            let range = try #require(edited.range(of: #""authenticationToken": "\#(Self.authenticationToken)""#), "the sample's token changed")
            edited.replaceSubrange(range, with: #""authenticationToken": "\#(authenticationToken)""#)
        }
        files[OrderArchive.orderPath] = Array(edited.utf8)
        let source = OrderSource(files: files)
        let order = try Order.decode(from: Data(try #require(source.orderJSON)))
        #expect(order.orderTypeIdentifier == orderTypeIdentifier ?? identifier.orderTypeIdentifier)
        #expect(order.orderIdentifier == orderIdentifier ?? identifier.orderIdentifier)
        let built = try OrderArchiveBuilder(identity: TestPKI.identity(for: order.orderTypeIdentifier))
            .build(source, signingTime: signingTime)
        cache.archives[key] = built.bytes
        return built.bytes
    }
}
