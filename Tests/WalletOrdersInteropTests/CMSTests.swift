import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct CMSTests {
    static let content = Array(
        #"{"order.json":"0000000000000000000000000000000000000000000000000000000000000000"}"#.utf8)
    /// 2026-01-31T12:00:00Z.
    static let signingTime = Date(timeIntervalSince1970: 1_769_860_800)

    static func sign(_ content: [UInt8] = content, at time: Date = signingTime) throws -> [UInt8] {
        let chain = try TestChain.get()
        return try CMSSigner.signDetached(
            content, certificate: chain.leaf, privateKey: chain.leafKey, additionalCertificates: [chain.intermediate],
            signingTime: time)
    }

    @Test("signDetached makes a detached SignedData over id-data with one SHA-256 signer")
    func structure() throws {
        let chain = try TestChain.get()
        let cms = try CMSSignedData(derBytes: try Self.sign())
        #expect(cms.isSignedData)
        #expect(cms.contentType == "pkcs7-signedData")
        #expect(cms.isDetached)
        #expect(cms.encapsulatesData)
        #expect(cms.encapsulatedContentType == "pkcs7-data")
        // The additional certificates are added before the signer's own.
        #expect(cms.certificates == [chain.intermediate, chain.leaf])
        let signers = cms.signerInfos
        #expect(signers.count == 1)
        let signer = try #require(signers.first)
        #expect(signer.digestAlgorithm.lowercased() == "sha256")
        #expect(signer.signatureAlgorithm == "rsaEncryption")
        #expect(signer.identifies(chain.leaf))
        #expect(!signer.identifies(chain.intermediate))
        let issuerAndSerial = try #require(signer.issuerAndSerial)
        #expect(issuerAndSerial.issuer == chain.intermediate.subject)
        #expect(issuerAndSerial.serialHex == chain.leaf.serialNumberHex)
    }

    @Test("The signed attributes are contentType, signingTime and messageDigest, with the given values")
    func signedAttributes() throws {
        let cms = try CMSSignedData(derBytes: try Self.sign())
        let signer = try #require(cms.signerInfos.first)
        #expect(
            Set(signer.signedAttributeOIDs) == ["1.2.840.113549.1.9.3", "1.2.840.113549.1.9.5", "1.2.840.113549.1.9.4"])
        #expect(!signer.signedAttributeOIDs.contains("1.2.840.113549.1.9.15"))  // no S/MIME capabilities
        #expect(signer.contentTypeAttributeIsData)
        #expect(signer.signingTime == Self.signingTime)
        #expect(signer.messageDigest == SHA256.hash(Self.content))
        #expect(signer.digest(of: Self.content) == SHA256.hash(Self.content))
    }

    @Test(
        "The signing time is stored to the second, also past 2049 (GeneralizedTime)",
        arguments: [
            1_769_860_800.0, 1_769_860_800.75, 2_556_144_000.0,
        ])
    func signingTimePrecision(seconds: Double) throws {
        let cms = try CMSSignedData(derBytes: try Self.sign(at: Date(timeIntervalSince1970: seconds)))
        let signer = try #require(cms.signerInfos.first)
        #expect(signer.signingTime == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test("The signature verifies with the signer's certificate and not with another one")
    func verifySignature() throws {
        let chain = try TestChain.get()
        let bytes = try Self.sign()
        let cms = try CMSSignedData(derBytes: bytes)
        #expect(try #require(cms.signerInfos.first).verifySignature(with: chain.leaf))
        let other = try CMSSignedData(derBytes: bytes)
        #expect(!(try #require(other.signerInfos.first).verifySignature(with: chain.stranger)))
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("Equal inputs give byte-identical signatures; another time gives other bytes")
    func deterministic() throws {
        let first = try Self.sign()
        #expect(try Self.sign() == first)
        #expect(try Self.sign(at: Self.signingTime.addingTimeInterval(1)) != first)
    }

    @Test("The openssl CLI verifies the signature against the content and the root")
    func opensslVerifies() async throws {
        let chain = try TestChain.get()
        let folder = try TemporaryFolder.ofTest
        let contentFile = try folder.write(Self.content, to: "manifest.json")
        let tamperedFile = try folder.write(Self.content.dropLast() + Array("]".utf8), to: "tampered.json")
        let signatureFile = try folder.write(try Self.sign(), to: "signature")
        let rootFile = try folder.write(chain.root.pemString.utf8, to: "root.pem")
        func verify(_ content: URL) async throws -> ProgramResult {
            try await ExternalProgram.run(
                tool: "openssl",
                [
                    "cms", "-verify", "-binary", "-inform", "DER", "-in", signatureFile.path, "-content", content.path,
                    "-CAfile", rootFile.path, "-purpose", "any", "-out", folder.file("out").path,
                ])
        }
        let good = try await verify(contentFile)
        #expect(good.status == 0, "\(good.errorOutput)")
        #expect(good.errorOutput.contains("Verification successful"))
        let bad = try await verify(tamperedFile)
        #expect(bad.status != 0)
        #expect(bad.errorOutput.contains("Verification failure"), "\(bad.errorOutput)")

        let printed = try await ExternalProgram.run(
            tool: "openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", signatureFile.path])
        #expect(printed.status == 0, "\(printed.errorOutput)")
        #expect(printed.output.contains("signingTime"))
        #expect(printed.output.contains("UTCTIME:Jan 31 12:00:00 2026 GMT"))
        #expect(printed.output.contains("eContent: <ABSENT>"))
    }

    @Test("Bytes that are not CMS throw with a context")
    func notCMS() throws {
        let error = try #require(throws: OpenSSLError.self) { try CMSSignedData(derBytes: Array("hello".utf8)) }
        #expect(error.function == "d2i_CMS_ContentInfo")
        #expect(error.context == "The data is not a DER-encoded CMS structure")
        #expect(!error.entries.isEmpty)
        #expect(openSSLErrorQueueIsEmpty())
    }
}
