import Foundation
import Testing
import WalletOrdersTestSupport
import WalletPasses

/// Passes we build, checked by what we don't write: our verifier with the development root,
/// `openssl cms -verify`, and Python's `zipfile` and `hashlib` on the manifest.
@Suite struct PassBuildingTests {
    static let signingTime = ISO8601DateFormatter().date(from: "2026-11-20T10:00:00Z")!

    /// A development CA, and a Pass Type ID certificate for Apple's boarding-pass sample's type and team.
    static let authority = try! DevelopmentCertificateAuthority(validFrom: signingTime.addingTimeInterval(-10 * 86_400))
    static let certificate = try! authority.issuePassTypeCertificate(
        passTypeIdentifier: "pass.com.apple.devpubs.example", teamIdentifier: "A93A5CM278",
        validFrom: signingTime.addingTimeInterval(-86_400))

    static func source() throws -> PassSource {
        let folder = try #require(RealPasses.folder).appendingPathComponent("sources/apple-devpubs-boardingpass.pass")
        return try PassSource(directory: folder)
    }

    @Test("A pass built from Apple's sample verifies with the development root, and the same inputs give the same bytes")
    func buildsAndVerifies() throws {
        let identity = try Self.certificate.signingIdentity(validAt: Self.signingTime)
        #expect(identity.kind == .pass)
        #expect(identity.passTypeIdentifier == "pass.com.apple.devpubs.example")
        let builder = PassArchiveBuilder(identity: identity)
        let built = try builder.build(try Self.source(), signingTime: Self.signingTime)
        #expect(built.manifest.hashes.values.allSatisfy { $0.count == 40 })
        let again = try builder.build(try Self.source(), signingTime: Self.signingTime)
        #expect(built.bytes == again.bytes)

        let verifier = try PassArchiveVerifier(additionalTrustAnchors: [Array(Self.authority.rootCertificatePEM.utf8)])
        let report = verifier.verify(archiveBytes: built.bytes, subject: "built.pkpass", now: Self.signingTime)
        #expect(report.errors.isEmpty, "\(report.errors)")
        // Apple's sample keeps its trailing comma; the built pass carries it, with its warning.
        #expect(report.diagnostics.contains { $0.ruleID == "json.trailing-comma" })
    }

    @Test("openssl cms -verify accepts the signature and Python's zipfile and hashlib confirm the SHA-1 manifest", .temporaryFolder)
    func independentReaders() async throws {
        let folder = try TemporaryFolder.ofTest
        let identity = try Self.certificate.signingIdentity(validAt: Self.signingTime)
        let built = try PassArchiveBuilder(identity: identity).build(try Self.source(), signingTime: Self.signingTime)
        let pass = try folder.write(built.bytes, to: "built.pkpass")
        let root = try folder.write(Array(Self.authority.rootCertificatePEM.utf8), to: "root.pem")
        let check = try await ExternalProgram.python(
            """
            import hashlib, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                names = [i.filename for i in z.infolist()]
                manifest = json.loads(z.read("manifest.json"))
                for name in names:
                    if name in ("manifest.json", "signature"): continue
                    assert manifest.pop(name) == hashlib.sha1(z.read(name)).hexdigest(), name
                assert not manifest, manifest
                open(sys.argv[2] + "/manifest.json", "wb").write(z.read("manifest.json"))
                open(sys.argv[2] + "/signature", "wb").write(z.read("signature"))
            print("ok", len(names))
            """, [pass.path, folder.url.path])
        #expect(check.status == 0, "\(check)")
        #expect(check.output.hasPrefix("ok"))
        let openssl = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", folder.file("signature").path, "-content",
                folder.file("manifest.json").path, "-CAfile", root.path, "-purpose", "any", "-attime",
                String(Int(Self.signingTime.timeIntervalSince1970)), "-out", "/dev/null",
            ])
        #expect(openssl.status == 0, "\(openssl)")
        #expect(openssl.errorOutput.contains("Verification successful"), "\(openssl)")
    }

    @Test("A certificate for another pass type or team is refused before signing")
    func refusesAnotherType() throws {
        let other = try Self.authority.issuePassTypeCertificate(
            passTypeIdentifier: "pass.com.example.other", teamIdentifier: "TEAM000000", validFrom: Self.signingTime.addingTimeInterval(-86_400))
        let builder = PassArchiveBuilder(identity: try other.signingIdentity(validAt: Self.signingTime))
        let error = try #require(throws: WalletOrdersError.self) { try builder.build(try Self.source(), signingTime: Self.signingTime) }
        #expect(error.code == .passTypeMismatch)
        #expect(error.message.contains("signature.signer-pass-type-mismatch"))
        #expect(error.message.contains("signature.signer-team-mismatch"))
    }

    @Test("An Order Type ID certificate can't sign a pass, and a Pass Type ID certificate can't sign an order")
    func kindsDontMix() throws {
        let order = try Self.authority.issueOrderTypeCertificate(
            orderTypeIdentifier: "order.com.example", teamIdentifier: "A93A5CM278", validFrom: Self.signingTime.addingTimeInterval(-86_400))
        // Loaded for passes, the order certificate misses the pass profile, with its own rule.
        let asPass = try #require(throws: WalletOrdersError.self) {
            try SigningIdentity(
                certificate: Array(order.certificatePEM.utf8), privateKey: Array(try order.privateKeyPEM().utf8),
                intermediate: Array(Self.authority.intermediateCertificatePEM.utf8), for: .pass)
        }
        #expect(asPass.code == .certificateProfile)
        #expect(asPass.message.contains("certificate.order-type-certificate"))
        let passIdentity = try Self.certificate.signingIdentity(validAt: Self.signingTime)
        let asOrder = try #require(throws: WalletOrdersError.self) { try passIdentity.checkCanSign(orderTypeIdentifier: "order.com.example") }
        #expect(asOrder.code == .orderTypeMismatch)
    }

    @Test("A pass with nfc signed without the NFC-enabled certificate is refused with the device's message")
    func nfcNeedsEnhancedCertificate() throws {
        var files = try Self.source().files
        var json = String(decoding: try #require(files["pass.json"]), as: UTF8.self)
        json = json.replacingOccurrences(of: "\"formatVersion\"", with: "\"nfc\" : {\"message\" : \"member-1\"},\n  \"formatVersion\"")
        files["pass.json"] = Array(json.utf8)
        let verifier = try PassArchiveVerifier(additionalTrustAnchors: [Array(Self.authority.rootCertificatePEM.utf8)])
        let plain = try PassArchiveBuilder(identity: try Self.certificate.signingIdentity(validAt: Self.signingTime))
            .build(PassSource(files: files), signingTime: Self.signingTime)
        let refused = verifier.verify(archiveBytes: plain.bytes, subject: "nfc.pkpass", now: Self.signingTime)
        let finding = try #require(refused.diagnostics.first { $0.ruleID == "certificate.nfc-certificate-required" })
        #expect(finding.severity == .error)
        #expect(finding.message.contains("must be signed with an enhanced Passbook certificate"))
        #expect(finding.location.jsonPointer == "/nfc")

        let enhanced = try Self.authority.issuePassTypeCertificate(
            passTypeIdentifier: "pass.com.apple.devpubs.example", teamIdentifier: "A93A5CM278", nfc: true,
            validFrom: Self.signingTime.addingTimeInterval(-86_400))
        let signed = try PassArchiveBuilder(identity: try enhanced.signingIdentity(validAt: Self.signingTime))
            .build(PassSource(files: files), signingTime: Self.signingTime)
        let accepted = verifier.verify(archiveBytes: signed.bytes, subject: "nfc.pkpass", now: Self.signingTime)
        #expect(accepted.errors.isEmpty, "\(accepted.errors)")
    }
}
