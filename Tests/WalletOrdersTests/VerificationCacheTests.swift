import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// The verifier caches parsed certificates, issuer checks and chain verdicts, and reads
/// well-formed signatures without OpenSSL's CMS parser: none of that may change a finding.
@Suite struct VerificationCacheTests {
    static func freshVerifier() throws -> OrderArchiveVerifier {
        try OrderArchiveVerifier(additionalTrustAnchors: [Array(TestPKI.authority.rootCertificatePEM.utf8)])
    }

    /// A signature of `built`'s manifest made by OpenSSL at `time` (inside or outside validity).
    static func resigned(_ built: BuiltOrderArchive, at time: Date) throws -> [UInt8] {
        let certificate = TestPKI.certificate(for: built.orderIdentifier.orderTypeIdentifier)
        let signer = try X509Certificate.parsePEM(Array(certificate.certificatePEM.utf8))[0]
        let key = try PrivateKey(bytes: Array(try certificate.privateKeyPEM().utf8), passphrase: nil)
        let intermediate = try X509Certificate.parsePEM(Array(TestPKI.authority.intermediateCertificatePEM.utf8))[0]
        let signature = try CMSSigner.signDetached(
            built.manifestBytes, certificate: signer, privateKey: key, additionalCertificates: [intermediate], signingTime: time)
        return try ArchiveSurgery.rewrite(built.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = signature
        }
    }

    @Test("Our signatures are read by the strict DER reader, not OpenSSL's CMS parser", arguments: Repository.sampleNames)
    func fastPathTaken(sample: String) throws {
        let built = try SampleBuilds.build(sample)
        let signature = try #require(try OrderArchive(bytes: built.bytes).contents(of: "signature"))
        #expect(StrictSignedData(signature) != nil)
    }

    @Test("Cold, warm and shared verifiers report the same findings, before and after expiry at signing time")
    func sameFindingsWarmOrCold() throws {
        let built = try SampleBuilds.build("store-pickup")
        let signer = try X509Certificate.parsePEM(
            Array(TestPKI.certificate(for: built.orderIdentifier.orderTypeIdentifier).certificatePEM.utf8))[0]
        // Same certificates, signing times on every side of the leaf's validity period.
        let archives: [(String, [UInt8])] = [
            ("built", built.bytes),
            ("valid", try Self.resigned(built, at: TestPKI.signingTime)),
            ("at notAfter", try Self.resigned(built, at: signer.notAfter)),
            ("after notAfter", try Self.resigned(built, at: signer.notAfter.addingTimeInterval(1))),
            ("a day after", try Self.resigned(built, at: signer.notAfter.addingTimeInterval(86_400))),
            ("at notBefore", try Self.resigned(built, at: signer.notBefore)),
            ("before notBefore", try Self.resigned(built, at: signer.notBefore.addingTimeInterval(-1))),
            ("valid again", try Self.resigned(built, at: TestPKI.signingTime.addingTimeInterval(60))),
        ]
        let warm = try Self.freshVerifier()
        for (name, bytes) in archives {
            let cold = try Self.freshVerifier().verify(archiveBytes: bytes, subject: name, now: TestPKI.signingTime)
            #expect(warm.verify(archiveBytes: bytes, subject: name, now: TestPKI.signingTime) == cold, "\(name)")
            #expect(warm.verify(archiveBytes: bytes, subject: name, now: TestPKI.signingTime) == cold, "\(name), again")
            #expect(TestPKI.verifier.verify(archiveBytes: bytes, subject: name, now: TestPKI.signingTime) == cold, "\(name), shared")
        }
        let expired = warm.verify(archiveBytes: archives[3].1, subject: "after", now: TestPKI.signingTime)
        #expect(expired.errors.map(\.ruleID) == ["certificate.expired-at-signing"], "\(expired.diagnostics)")
        let notYet = warm.verify(archiveBytes: archives[6].1, subject: "before", now: TestPKI.signingTime)
        #expect(notYet.errors.map(\.ruleID) == ["certificate.not-yet-valid-at-signing"], "\(notYet.diagnostics)")
        #expect(
            warm.verify(archiveBytes: archives[2].1, subject: "at", now: TestPKI.signingTime)
                == (try Self.freshVerifier()).verify(archiveBytes: archives[2].1, subject: "at", now: TestPKI.signingTime))
    }

    @Test("A verifier without the test root says untrusted, warm or cold, and the trusting one still trusts")
    func trustIsPerVerifier() throws {
        let built = try SampleBuilds.build("shipped-ecommerce")
        let appleOnly = try OrderArchiveVerifier()
        let first = appleOnly.verify(archiveBytes: built.bytes, subject: "a")
        #expect(first.errors.map(\.ruleID) == ["certificate.untrusted"])
        #expect(appleOnly.verify(archiveBytes: built.bytes, subject: "a") == first)
        #expect(TestPKI.verifier.verify(archiveBytes: built.bytes, subject: "a").errors.isEmpty)
    }

    @Test("Concurrent builds and verifications share caches without changing a byte or a finding")
    func concurrent() async throws {
        let sources = try Repository.sampleNames.map { try SampleBuilds.source($0) }
        let builders = try sources.map { OrderArchiveBuilder(identity: TestPKI.identity(for: try SampleBuilds.orderTypeIdentifier(of: $0))) }
        let expected = try zip(sources, builders).map { try $1.build($0, signingTime: TestPKI.signingTime).bytes }
        let verifier = try Self.freshVerifier()
        let reports = expected.map { Self.reportWithoutNotes(verifier.verify(archiveBytes: $0, subject: "s", now: TestPKI.signingTime)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<10 {
                        let index = (task + round) % sources.count
                        let bytes = try builders[index].build(sources[index], signingTime: TestPKI.signingTime).bytes
                        #expect(bytes == expected[index])
                        let report = verifier.verify(archiveBytes: bytes, subject: "s", now: TestPKI.signingTime)
                        #expect(Self.reportWithoutNotes(report) == reports[index])
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func reportWithoutNotes(_ report: ValidationReport) -> [String] {
        report.diagnostics.map(\.description)
    }
}
