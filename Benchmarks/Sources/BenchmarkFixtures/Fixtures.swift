// The fixtures shared by the benchmarks and the profiling driver: a TEST-ONLY certificate chain,
// the shipped sample and a large generated order, each built and signed once.
public import Foundation
public import WalletOrders

/// The archives every benchmark works on, built once per process.
public struct Fixture: Sendable {
    public var name: String
    public var source: OrderSource
    public var builder: OrderArchiveBuilder
    public var archive: [UInt8]
}

public struct Fixtures: Sendable {
    public var verifier: OrderArchiveVerifier
    public var validator: OrderValidator
    public var signingTime: Date
    public var all: [Fixture]

    /// The repository root (this file is Benchmarks/Sources/BenchmarkFixtures/…).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fixture named `name` (`shipped-ecommerce`, `large-order`).
    public subscript(name: String) -> Fixture? { all.first { $0.name == name } }

    public static func make() throws -> Fixtures {
        let authority = try DevelopmentCertificateAuthority()
        let verifier = try OrderArchiveVerifier(additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)])
        let validator = try OrderValidator(verifier: verifier)
        let signingTime = Date()
        let sources: [(String, OrderSource)] = [
            ("shipped-ecommerce", try OrderSource(directory: repository.appendingPathComponent("Samples/shipped-ecommerce"))),
            ("large-order", LargeOrder.source()),
        ]
        var fixtures: [Fixture] = []
        for (name, source) in sources {
            let order = try Order.decode(from: Data(source.orderJSON ?? []))
            let certificate = try authority.issueOrderTypeCertificate(
                orderTypeIdentifier: order.orderTypeIdentifier, teamIdentifier: "BENCH00001")
            let builder = OrderArchiveBuilder(identity: try certificate.signingIdentity())
            let built = try builder.build(source, signingTime: signingTime)
            // Benchmarks of a failing path would measure the wrong thing: every fixture is clean
            // (notes, such as the WWDR generation, are fine).
            let report = validator.validate(archiveBytes: built.bytes, subject: name)
            let findings = report.diagnostics.filter { $0.severity != .info }
            guard findings.isEmpty else {
                fatalError("fixture \(name) must validate without errors or warnings:\n\(findings.map(\.description).joined(separator: "\n"))")
            }
            fixtures.append(Fixture(name: name, source: source, builder: builder, archive: built.bytes))
        }
        return Fixtures(verifier: verifier, validator: validator, signingTime: signingTime, all: fixtures)
    }
}
