import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Issue 10, finding 1, from the command line: a genuine certificate for one order type (issued
/// by the same intermediate) must not be able to sign, verify or replace another type's orders.
@Suite struct OrderTypeBindingEndToEndTests {
    static let victimType = Repository.shippedOrderTypeIdentifier
    static let attackerType = "order.com.other.victim"

    struct Setup {
        let folder: TemporaryFolder
        let root: URL
        let genuine: URL
        let forged: URL
        /// `--cert … --key … --wwdr …` of the attacker's (genuine, same-intermediate) certificate.
        let attackerArguments: [String]
    }

    static func setUp() async throws -> Setup {
        let folder = try TemporaryFolder()
        let authority = try DevelopmentCertificateAuthority()
        let victim = try authority.issueOrderTypeCertificate(orderTypeIdentifier: victimType, teamIdentifier: "VICTIM0001")
        let attacker = try authority.issueOrderTypeCertificate(orderTypeIdentifier: attackerType, teamIdentifier: "ATTACK0001")
        let root = try folder.write(Array(authority.rootCertificatePEM.utf8), to: "root-ca.pem")
        let wwdr = try folder.write(Array(authority.intermediateCertificatePEM.utf8), to: "wwdr.pem")
        let victimCert = try folder.write(Array(victim.certificatePEM.utf8), to: "victim.pem")
        let victimKey = try folder.write(Array(try victim.privateKeyPEM().utf8), to: "victim.key.pem")
        let attackerCert = try folder.write(Array(attacker.certificatePEM.utf8), to: "attacker.pem")
        let attackerKey = try folder.write(Array(try attacker.privateKeyPEM().utf8), to: "attacker.key.pem")

        let genuine = folder.file("genuine.order")
        let built = try await CLI.run(
            [
                "build", Repository.shippedEcommerce.path, "--out", genuine.path, "--signing-time", SharedFixtures.signingTimeText,
                "--cert", victimCert.path, "--key", victimKey.path, "--wwdr", wwdr.path,
            ])
        #expect(built.status == 0, "\(built)")

        // The forgery: a later updatedAt and a phishing URL in the victim's order, signed by the attacker.
        var files = try OrderSource(directory: Repository.shippedEcommerce).files
        var json = String(decoding: try #require(files[OrderArchive.orderPath]), as: UTF8.self)
        json = json.replacingOccurrences(of: #""updatedAt": "2025-11-20T08:31:44Z""#, with: #""updatedAt": "2026-11-20T08:31:44Z""#)
        json = json.replacingOccurrences(of: #""orderManagementURL": ""#, with: #""orderManagementURL": "https://evil.example/login?"#)
        files[OrderArchive.orderPath] = Array(json.utf8)
        let carrier = try OrderArchiveBuilder(identity: try victim.signingIdentity())
            .build(OrderSource(files: files), signingTime: SharedFixtures.signingTime)
        let signature = try attacker.signingIdentity().detachedSignature(of: carrier.manifestBytes, signingTime: SharedFixtures.signingTime)
        let carrierURL = try folder.write(carrier.bytes, to: "carrier.order")
        let signatureURL = try folder.write(signature, to: "attacker.signature")
        let forged = folder.file("forged.order")
        let swapped = try await ExternalProgram.python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as source, zipfile.ZipFile(sys.argv[3], "w", zipfile.ZIP_DEFLATED) as target:
                for info in source.infolist():
                    data = open(sys.argv[2], "rb").read() if info.filename == "signature" else source.read(info.filename)
                    target.writestr(info, data)
            """, [carrierURL.path, signatureURL.path, forged.path])
        #expect(swapped.status == 0, "\(swapped)")
        return Setup(
            folder: folder, root: root, genuine: genuine, forged: forged,
            attackerArguments: ["--cert", attackerCert.path, "--key", attackerKey.path, "--wwdr", wwdr.path])
    }

    @Test("verify and validate fail a forged archive, naming both order types; store save keeps the genuine order")
    func forgedArchiveIsRefusedEverywhere() async throws {
        let setup = try await Self.setUp()
        defer { setup.folder.remove() }
        let trust = ["--trust-root", setup.root.path]

        let genuine = try await CLI.run(["verify", setup.genuine.path] + trust)
        #expect(genuine.status == 0, "\(genuine)")

        let verify = try await CLI.run(["verify", setup.forged.path] + trust)
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.output.contains("error[signature.signer-order-type-mismatch]"), "\(verify)")
        #expect(verify.output.contains(Self.victimType) && verify.output.contains(Self.attackerType), "\(verify)")

        let validate = try await CLI.run(["validate", setup.forged.path] + trust)
        #expect(validate.status == 1, "\(validate)")
        #expect(validate.output.contains("error[signature.signer-order-type-mismatch]"), "\(validate)")

        let store = setup.folder.file("orders.sqlite").path
        let first = try await CLI.run(["store", "save", setup.genuine.path, "--store", store] + trust)
        #expect(first.status == 0, "\(first)")
        let attack = try await CLI.run(["store", "save", setup.forged.path, "--store", store, "--json"] + trust)
        #expect(attack.status == 1, "\(attack)")
        #expect(attack.output.contains("signature.signer-order-type-mismatch"), "\(attack)")
        let fetched = setup.folder.file("fetched.order")
        let get = try await CLI.run(["store", "get", Self.victimType, Repository.shippedOrderIdentifier, "--out", fetched.path, "--store", store])
        #expect(get.status == 0, "\(get)")
        #expect(try Data(contentsOf: fetched) == (try Data(contentsOf: setup.genuine)), "the genuine order was replaced")
    }

    @Test("build refuses to sign an order with another order type's certificate")
    func buildRefuses() async throws {
        let setup = try await Self.setUp()
        defer { setup.folder.remove() }
        let out = setup.folder.file("attempt.order")
        let result = try await CLI.run(["build", Repository.shippedEcommerce.path, "--out", out.path] + setup.attackerArguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains(Self.victimType) && result.errorOutput.contains(Self.attackerType), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
