import Foundation
import Testing
import WalletOrdersTestSupport
import WalletPasses

/// The Pass Type ID profile judged against Apple's own artifact: a leaf that copies every
/// extension and the subject of a real Pass Type ID certificate (the signer of a real pass Wallet
/// shows), issued by a copy of Apple's WWDR G4 under a test root, made by pyca/cryptography
/// (`apple_profile_chain.py`, which knows nothing of this project's code). Our certificates can
/// share our mistakes; a copy of Apple's can't.
@Suite(.temporaryFolder) struct PassAppleProfileTests {
    static let realPass = "signed-apple/ezqrin-event-2026.pkpass"
    static let script = Repository.tests.appendingPathComponent("WalletOrdersTests/Support/apple_profile_chain.py")
    static let appleWWDR = Repository.root.appendingPathComponent("Sources/WalletArchives/Resources/TrustAnchors/apple-wwdr-g4.pem")

    @Test("A chain copying a real Pass Type ID certificate and WWDR G4 signs a pass that verifies, validates and passes openssl cms -verify")
    func replicaOfARealCertificate() async throws {
        let folder = try TemporaryFolder.ofTest
        let real = try PassArchive(bytes: try RealPasses.bytes(Self.realPass))
        let signature = try folder.write(try #require(real.contents(of: "signature")), to: "real.signature")
        // The real signer, taken out by pyca/cryptography: the certificate with Apple's pass EKU.
        let extracted = try await ExternalProgram.python(
            """
            import sys, warnings
            from cryptography import x509
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.serialization import pkcs7
            warnings.simplefilter("ignore")
            for certificate in pkcs7.load_der_pkcs7_certificates(open(sys.argv[1], "rb").read()):
                try:
                    usages = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
                except x509.ExtensionNotFound:
                    continue
                if x509.ObjectIdentifier("1.2.840.113635.100.4.14") in usages:
                    open(sys.argv[2], "wb").write(certificate.public_bytes(serialization.Encoding.PEM))
            """, [signature.path, folder.file("real-leaf.pem").path])
        #expect(extracted.status == 0, "\(extracted)")
        let chain = folder.file("chain")
        let made = try await ExternalProgram.run(
            tool: "python3",
            [Self.script.path, "issue", chain.path, "--leaf", folder.file("real-leaf.pem").path, "--intermediate", Self.appleWWDR.path])
        #expect(made.status == 0, "\(made)")

        let read = { (name: String) in Array(try Data(contentsOf: chain.appendingPathComponent(name))) }
        let identity = try SigningIdentity(
            certificate: try read("leaf.pem"), privateKey: try read("leaf.key.pem"), intermediate: try read("wwdr.pem"), for: .pass)
        #expect(identity.passTypeIdentifier == "pass.com.ezqrin.bonenkai")
        #expect(identity.teamIdentifier == "UB98SLR8TL")

        var files: [String: [UInt8]] = [:]
        for path in real.filePaths where !Manifest.excludedPaths.contains(path) { files[path] = real.contents(of: path) }
        let built = try PassArchiveBuilder(identity: identity).build(PassSource(files: files))
        let anchors = [try read("root.pem")]
        let verified = try PassArchiveVerifier(additionalTrustAnchors: anchors).verify(archiveBytes: built.bytes, subject: "replica.pkpass")
        #expect(verified.errors.isEmpty, "\(verified.errors)")
        let validated = try PassValidator(verifier: PassArchiveVerifier(additionalTrustAnchors: anchors))
            .validate(archiveBytes: built.bytes, subject: "replica.pkpass")
        #expect(validated.errors.isEmpty, "\(validated.errors)")

        let pass = try PassArchive(bytes: built.bytes)
        let manifest = try folder.write(try #require(pass.contents(of: "manifest.json")), to: "manifest.json")
        let builtSignature = try folder.write(try #require(pass.contents(of: "signature")), to: "signature")
        let openssl = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", builtSignature.path, "-content", manifest.path, "-CAfile",
                chain.appendingPathComponent("root.pem").path, "-purpose", "any", "-out", "/dev/null",
            ])
        #expect(openssl.status == 0, "\(openssl)")

        // The same replica loaded to sign orders is refused with its own rule: it is a pass certificate.
        let asOrder = try #require(throws: WalletOrdersError.self) {
            try SigningIdentity(certificate: try read("leaf.pem"), privateKey: try read("leaf.key.pem"), intermediate: try read("wwdr.pem"))
        }
        #expect(asOrder.message.contains("certificate.pass-type-certificate"), "\(asOrder.message)")
    }
}
