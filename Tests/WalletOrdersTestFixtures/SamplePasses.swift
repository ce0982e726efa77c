public import Foundation
import Testing
import WalletOrdersTestSupport
public import WalletPasses

/// Versions of the sample event ticket (`Samples/event-ticket-pass`), signed with the test PKI:
/// another serial number, a web service, a voided flag or another event name make another pass
/// or another version of one.
public enum SamplePasses {
    /// The sample's folder name.
    public static let sampleName = "event-ticket-pass"
    /// The sample's `passTypeIdentifier`.
    public static let passTypeIdentifier = "pass.com.northwindoutfitters.ticket"
    /// The sample's `teamIdentifier`.
    public static let teamIdentifier = "ABCDE12345"
    /// The `authenticationToken` the versions carry unless told otherwise.
    public static let authenticationToken = "vxwxd7J8AlNNFPS8k0a0FfUFtq0ewzFdc"

    /// The identifier of the sample with `serialNumber`.
    public static func identifier(_ serialNumber: String, passTypeIdentifier: String = passTypeIdentifier) -> PassIdentifier {
        PassIdentifier(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber)
    }

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var identities: [String: SigningIdentity] = [:]
        var archives: [String: [UInt8]] = [:]
    }

    /// A signing identity for `passTypeIdentifier` under the test root (cached).
    public static func identity(for passTypeIdentifier: String) -> SigningIdentity {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.identities[passTypeIdentifier] { return known }
        let certificate = try! TestPKI.authority.issuePassTypeCertificate(
            passTypeIdentifier: passTypeIdentifier, teamIdentifier: teamIdentifier)
        let made = try! certificate.signingIdentity()
        cache.identities[passTypeIdentifier] = made
        return made
    }

    /// A validator whose verifier trusts the test root (and Apple's).
    public static let validator: PassValidator = try! PassValidator(
        verifier: PassArchiveVerifier(additionalTrustAnchors: [TestPKI.rootAnchor]))

    /// The sample's files with `pass.json` changed as asked (keys sorted, so the same arguments
    /// give the same files).
    public static func source(
        serialNumber: String, passTypeIdentifier: String = passTypeIdentifier, event: String? = nil, voided: Bool = false,
        authenticationToken: String? = authenticationToken, webServiceURL: String? = "https://example.com/passes/"
    ) throws -> PassSource {
        var files = try PassSource(directory: Repository.sample(sampleName)).files
        let original = try #require(files[PassArchive.passPath])
        var json = try #require(try JSONSerialization.jsonObject(with: Data(original)) as? [String: Any])
        json["serialNumber"] = serialNumber
        json["passTypeIdentifier"] = passTypeIdentifier
        if voided { json["voided"] = true }
        if let authenticationToken, let webServiceURL {
            json["authenticationToken"] = authenticationToken
            json["webServiceURL"] = webServiceURL
        }
        if let event, var ticket = json["eventTicket"] as? [String: Any], var primary = ticket["primaryFields"] as? [[String: Any]] {
            primary[0]["value"] = event
            ticket["primaryFields"] = primary
            json["eventTicket"] = ticket
        }
        files[PassArchive.passPath] = Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted]))
        return PassSource(files: files)
    }

    /// The sample signed at `signingTime` with `pass.json` changed as ``source(serialNumber:passTypeIdentifier:event:voided:authenticationToken:webServiceURL:)`` does (cached).
    public static func archive(
        serialNumber: String, passTypeIdentifier: String = passTypeIdentifier, event: String? = nil, voided: Bool = false,
        authenticationToken: String? = authenticationToken, webServiceURL: String? = "https://example.com/passes/",
        signingTime: Date = TestPKI.signingTime
    ) throws -> [UInt8] {
        let key =
            "\(serialNumber)|\(passTypeIdentifier)|\(event ?? "")|\(voided)|\(authenticationToken ?? "")|\(webServiceURL ?? "")|\(signingTime.timeIntervalSince1970)"
        if let known = cache.lock.withLock({ cache.archives[key] }) { return known }
        let source = try source(
            serialNumber: serialNumber, passTypeIdentifier: passTypeIdentifier, event: event, voided: voided,
            authenticationToken: authenticationToken, webServiceURL: webServiceURL)
        let built = try PassArchiveBuilder(identity: identity(for: passTypeIdentifier)).build(source, signingTime: signingTime)
        cache.lock.withLock { cache.archives[key] = built.bytes }
        return built.bytes
    }

    /// ``archive(serialNumber:passTypeIdentifier:event:voided:authenticationToken:webServiceURL:signingTime:)`` verified, ready to save.
    public static func verified(
        serialNumber: String, passTypeIdentifier: String = passTypeIdentifier, event: String? = nil, voided: Bool = false,
        authenticationToken: String? = authenticationToken, signingTime: Date = TestPKI.signingTime
    ) throws -> VerifiedPassArchive {
        try VerifiedPassArchive(
            bytes: archive(
                serialNumber: serialNumber, passTypeIdentifier: passTypeIdentifier, event: event, voided: voided,
                authenticationToken: authenticationToken, signingTime: signingTime),
            validator: validator)
    }
}
