import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite struct PreparedCMSSignerTests {
    /// Times on both sides of the UTCTime/GeneralizedTime boundaries, and odd seconds.
    static let times: [Date] = [
        CMSTests.signingTime,
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_234_567_890.75),
        Date(timeIntervalSince1970: -631_152_001),  // 1949-12-31T23:59:59Z: GeneralizedTime
        Date(timeIntervalSince1970: -631_152_000),  // 1950-01-01: UTCTime
        Date(timeIntervalSince1970: 2_524_607_999),  // 2049-12-31T23:59:59Z: UTCTime
        Date(timeIntervalSince1970: 2_524_608_000),  // 2050-01-01: GeneralizedTime
    ]

    @Test("The prepared signer writes exactly the bytes OpenSSL's CMS_sign writes", arguments: times)
    func sameBytesAsOpenSSL(time: Date) throws {
        let chain = try TestChain.get()
        let signer = try #require(
            PreparedCMSSigner(certificate: chain.leaf, privateKey: chain.leafKey, additionalCertificates: [chain.intermediate]))
        for content in [CMSTests.content, [], Array(repeating: 0x41, count: 70_000)] {
            let expected = try CMSSigner.signDetached(
                content, certificate: chain.leaf, privateKey: chain.leafKey, additionalCertificates: [chain.intermediate],
                signingTime: time)
            #expect(try signer.sign(content, signingTime: time) == expected)
        }
    }

    @Test("A certificate given twice is left to OpenSSL, which refuses it")
    func duplicateCertificate() throws {
        let chain = try TestChain.get()
        #expect(
            PreparedCMSSigner(
                certificate: chain.leaf, privateKey: chain.leafKey, additionalCertificates: [chain.intermediate, chain.leaf])
                == nil)
        #expect(throws: OpenSSLError.self) {
            try CMSSigner.signDetached(
                CMSTests.content, certificate: chain.leaf, privateKey: chain.leafKey,
                additionalCertificates: [chain.intermediate, chain.leaf], signingTime: CMSTests.signingTime)
        }
    }

    @Test("The strict reader finds what OpenSSL finds in our signatures")
    func strictReaderAgreesWithOpenSSL() throws {
        let chain = try TestChain.get()
        let bytes = try CMSTests.sign()
        let strict = try #require(StrictSignedData(bytes))
        let cms = try CMSSignedData(derBytes: bytes)
        let signer = try #require(cms.signerInfos.first)
        #expect(strict.signingTime == signer.signingTime)
        #expect(Array(bytes[strict.messageDigest]) == signer.messageDigest)
        #expect(strict.certificates.map { Array(bytes[$0]) } == cms.certificates.map(\.derBytes))
        var serial = Array(bytes[strict.signerSerial])
        if serial.count > 1 && serial[0] == 0 { serial.removeFirst() }  // the sign byte; OpenSSL shows the magnitude
        #expect(serial.map { String(format: "%02X", $0) }.joined(separator: ":") == chain.leaf.serialNumberHex)
        #expect(chain.leaf.verifiesRSASHA256(signature: bytes[strict.signature], over: strict.signedAttributesDER) == true)
        #expect(chain.intermediate.verifiesRSASHA256(signature: bytes[strict.signature], over: strict.signedAttributesDER) == false)
        var tampered = strict.signedAttributesDER
        tampered[tampered.count - 1] ^= 1
        #expect(chain.leaf.verifiesRSASHA256(signature: bytes[strict.signature], over: tampered) == false)
    }

    @Test("The strict reader leaves anything but strict DER of the usual shape to OpenSSL")
    func strictReaderRefuses() throws {
        let bytes = try CMSTests.sign()
        #expect(StrictSignedData(bytes + [0]) == nil)  // trailing data
        #expect(StrictSignedData(Array(bytes.dropLast())) == nil)  // truncated
        #expect(StrictSignedData([]) == nil)
        // BER: the outer length in a longer form than needed.
        var padded: [UInt8] = [0x30, 0x83, 0x00]
        padded += bytes[2...]
        #expect(StrictSignedData(padded) == nil)
    }
}
