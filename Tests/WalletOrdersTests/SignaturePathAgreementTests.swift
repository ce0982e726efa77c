import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The verifier reads a signature of the usual shape with its own strict DER reader (the fast
/// path) and anything else with OpenSSL's CMS parser (the general path). Here both run on the
/// same archives: whenever the fast path answers, the general path must give the identical
/// report; whenever it declines, it must have reported nothing (see the Architecture article).
@Suite struct SignaturePathAgreementTests {
    /// Every sample as we sign it, signed again by OpenSSL's `CMS_sign` at times on both sides of
    /// the certificates' validity, and the hostile variants (altered manifest, foreign key, a
    /// second certificate, a byte flipped in the signature).
    static func archives() throws -> [(String, [UInt8])] {
        var archives: [(String, [UInt8])] = []
        for sample in Repository.sampleNames {
            let built = try SampleBuilds.build(sample)
            let signer = try X509Certificate.parsePEM(
                Array(TestPKI.certificate(for: built.orderIdentifier.orderTypeIdentifier).certificatePEM.utf8))[0]
            archives.append(("\(sample): built", built.bytes))
            archives.append(("\(sample): CMS_sign", try VerificationCacheTests.resigned(built, at: TestPKI.signingTime)))
            archives.append(("\(sample): expired", try VerificationCacheTests.resigned(built, at: signer.notAfter.addingTimeInterval(1))))
            archives.append(("\(sample): not yet valid", try VerificationCacheTests.resigned(built, at: signer.notBefore.addingTimeInterval(-1))))
            archives.append(
                (
                    "\(sample): manifest changed",
                    try ArchiveSurgery.rewrite(built.bytes) { files in
                        let index = try #require(files.firstIndex { $0.path == "manifest.json" })
                        files[index].bytes += Array(" ".utf8)
                    }
                ))
            archives.append(
                (
                    "\(sample): signature byte flipped",
                    try ArchiveSurgery.rewrite(built.bytes) { files in
                        let index = try #require(files.firstIndex { $0.path == "signature" })
                        files[index].bytes[files[index].bytes.count - 20] ^= 0x01
                    }
                ))
            let other = TestPKI.certificate(for: "order.com.example.other-\(sample)")
            let foreign = try CMSSigner.signDetached(
                built.manifestBytes, certificate: try X509Certificate.parsePEM(Array(other.certificatePEM.utf8))[0],
                privateKey: try PrivateKey(bytes: Array(try other.privateKeyPEM().utf8), passphrase: nil),
                additionalCertificates: [try X509Certificate.parsePEM(Array(TestPKI.authority.intermediateCertificatePEM.utf8))[0]],
                signingTime: TestPKI.signingTime)
            archives.append(
                (
                    "\(sample): another merchant's certificate",
                    try ArchiveSurgery.rewrite(built.bytes) { files in
                        let index = try #require(files.firstIndex { $0.path == "signature" })
                        files[index].bytes = foreign
                    }
                ))
        }
        return archives
    }

    @Test("Wherever the strict reader answers, OpenSSL's CMS parser gives the identical report; where it declines, it reported nothing")
    func bothPathsAgree() throws {
        var fastAnswered = 0
        for (name, bytes) in try Self.archives() {
            let archive = try OrderArchive(bytes: bytes)
            let signature = try #require(archive.contents(of: OrderArchive.signaturePath), "\(name)")
            let manifest = try #require(archive.contents(of: OrderArchive.manifestPath), "\(name)")
            let verifier = try VerificationCacheTests.freshVerifier()
            var fast = ValidationReport(subject: name)
            let fastSigner = verifier.checkWellFormedSignature(signature, of: manifest, now: TestPKI.signingTime, into: &fast)
            var general = ValidationReport(subject: name)
            let generalSigner = try VerificationCacheTests.freshVerifier()
                .checkSignatureInGeneral(signature, in: archive, now: TestPKI.signingTime, into: &general)
            if let fastSigner {
                fastAnswered += 1
                #expect(fast == general, "\(name): fast \(fast.diagnostics) / general \(general.diagnostics)")
                #expect(fastSigner.der == generalSigner?.der, "\(name)")
            } else {
                #expect(fast.diagnostics.isEmpty, "\(name): the fast path declined but reported \(fast.diagnostics)")
                #expect(!general.diagnostics.filter { $0.severity == .error }.isEmpty || generalSigner != nil, "\(name)")
            }
        }
        // Ours, OpenSSL's at three times and the foreign signer's take the fast path (5 of 7 per sample).
        #expect(fastAnswered == Repository.sampleNames.count * 5)
    }

    @Test("On a BER signature (BouncyCastle's layout) the fast path declines; the general path gives the DER findings plus the BER warning")
    func berSignatureTakesTheGeneralPath() throws {
        for sample in Repository.sampleNames {
            let built = try SampleBuilds.build(sample)
            let archive = try OrderArchive(bytes: built.bytes)
            let der = try #require(archive.contents(of: OrderArchive.signaturePath))
            let ber = try TamperingTests.bouncyCastleLayout(der)
            var fastDER = ValidationReport(subject: sample)
            let signer = try VerificationCacheTests.freshVerifier()
                .checkWellFormedSignature(der, of: built.manifestBytes, now: TestPKI.signingTime, into: &fastDER)
            #expect(signer != nil, "\(sample): the DER signature takes the fast path")
            var fastBER = ValidationReport(subject: sample)
            let fastBERSigner = try VerificationCacheTests.freshVerifier()
                .checkWellFormedSignature(ber, of: built.manifestBytes, now: TestPKI.signingTime, into: &fastBER)
            #expect(fastBERSigner == nil && fastBER.diagnostics.isEmpty, "\(sample): \(fastBER.diagnostics)")
            var general = ValidationReport(subject: sample)
            let generalSigner = try VerificationCacheTests.freshVerifier()
                .checkSignatureInGeneral(ber, in: archive, now: TestPKI.signingTime, into: &general)
            #expect(generalSigner?.der == signer?.der, "\(sample)")
            #expect(general.diagnostics(ruleID: "signature.ber-encoding").map(\.severity) == [.warning], "\(sample): \(general.diagnostics)")
            #expect(
                general.diagnostics.filter { $0.ruleID != "signature.ber-encoding" } == fastDER.diagnostics,
                "\(sample): BER \(general.diagnostics) / DER \(fastDER.diagnostics)")
        }
    }

}
