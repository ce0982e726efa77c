import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct X509CertificateTests {
    /// 2025-01-01T00:00:00Z (UTCTime) to 2055-06-15T12:34:56Z (GeneralizedTime, past 2049).
    static let notBefore = Date(timeIntervalSince1970: 1_735_689_600)
    static let notAfter = Date(timeIntervalSince1970: 2_696_675_696)

    static let subject: [(type: String, value: String)] = [
        ("C", "US"), ("O", "Interop Tests"), ("OU", "TEAM123456"), ("UID", "order.com.example.roundtrip"),
        ("CN", "Round Trip CA"),
    ]

    /// A fresh key and a self-signed CA certificate with `subject`.
    static func makeSelfSigned() throws -> (PrivateKey, X509Certificate) {
        let key = try PrivateKey.generateRSA(bits: 2048)
        let certificate = try CertificateIssuer.issue(
            .init(
                subject: subject, notBefore: notBefore, notAfter: notAfter, certificateAuthorityPathLength: -1,
                keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: key, issuer: nil, issuerKey: key)
        return (key, certificate)
    }

    @Test("A generated RSA key describes itself as RSA 2048-bit and matches the certificate made for it")
    func generatedKey() throws {
        let (key, certificate) = try Self.makeSelfSigned()
        #expect(key.keyDescription == "RSA 2048-bit")
        #expect(certificate.publicKeyDescription == "RSA 2048-bit")
        #expect(certificate.matches(key))
        let other = try TestChain.get()
        #expect(!certificate.matches(other.leafKey))
    }

    @Test("A self-signed certificate keeps its subject (with UID), serial, validity and CA flag")
    func selfSignedFields() throws {
        let (_, certificate) = try Self.makeSelfSigned()
        #expect(certificate.subject.attributes.map(\.type) == ["C", "O", "OU", "UID", "CN"])
        #expect(certificate.subject.attributes.map(\.value) == Self.subject.map(\.value))
        #expect(certificate.subject["UID"] == "order.com.example.roundtrip")
        #expect(certificate.subject.attributes.first { $0.type == "UID" }?.oid == "0.9.2342.19200300.100.1.1")
        #expect(
            certificate.subject.description
                == "CN=Round Trip CA, UID=order.com.example.roundtrip, OU=TEAM123456, O=Interop Tests, C=US")
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.notBefore == Self.notBefore)
        #expect(certificate.notAfter == Self.notAfter)
        #expect(certificate.isValid(at: Date(timeIntervalSince1970: 2_000_000_000)))
        #expect(!certificate.isValid(at: Self.notAfter.addingTimeInterval(1)))
        #expect(certificate.isCertificateAuthority)
        #expect(certificate.isIssued(by: certificate))
        // 16 random bytes, first byte positive and non-zero: 16 colon-separated uppercase pairs.
        let serialParts = certificate.serialNumberHex.split(separator: ":")
        #expect(serialParts.count == 16)
        #expect(serialParts.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        let firstByte = try #require(UInt8(serialParts[0], radix: 16))
        #expect(firstByte < 0x80 && firstByte & 0x01 == 1)
    }

    @Test("PEM output parses back to an equal certificate with equal fields")
    func pemRoundTrip() throws {
        let (_, certificate) = try Self.makeSelfSigned()
        let pem = certificate.pemString
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(pem.hasSuffix("-----END CERTIFICATE-----\n"))
        let parsed = try X509Certificate.parsePEM(Array(pem.utf8))
        #expect(parsed.count == 1)
        let copy = try #require(parsed.first)
        #expect(copy == certificate)
        #expect(copy.derBytes == certificate.derBytes)
        #expect(copy.subject == certificate.subject)
        #expect(copy.serialNumberHex == certificate.serialNumberHex)
        #expect(copy.notBefore == Self.notBefore && copy.notAfter == Self.notAfter)
        #expect(copy.isCertificateAuthority)
        #expect(copy.sha256Fingerprint == SHA256.hash(certificate.derBytes))
    }

    @Test("DER output parses back to an equal certificate, and parse() tells DER from PEM")
    func derRoundTrip() throws {
        let (_, certificate) = try Self.makeSelfSigned()
        let der = certificate.derBytes
        #expect(der.first == 0x30)  // SEQUENCE
        let copy = try X509Certificate(derBytes: der)
        #expect(copy == certificate)
        #expect(copy.derBytes == der)
        #expect(copy.subject["UID"] == "order.com.example.roundtrip")
        #expect(copy.notAfter == Self.notAfter)
        #expect(try X509Certificate.parse(der).map(\.derBytes) == [der])
        #expect(try X509Certificate.parse(Array(certificate.pemString.utf8)).map(\.derBytes) == [der])
    }

    @Test("A PEM bundle with comments yields every certificate in order")
    func pemBundle() throws {
        let chain = try TestChain.get()
        let bundle = "# a comment line before the armour\n" + chain.leaf.pemString + chain.intermediate.pemString
        let parsed = try X509Certificate.parsePEM(Array(bundle.utf8))
        #expect(parsed == [chain.leaf, chain.intermediate])
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("The openssl CLI reads the same serial, subject UID and end date")
    func opensslAgrees() async throws {
        let (_, certificate) = try Self.makeSelfSigned()
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(certificate.derBytes, to: "cert.der")
        let result = try await ExternalProgram.run(
            tool: "openssl",
            [
                "x509", "-inform", "DER", "-in", file.path, "-noout", "-serial", "-enddate", "-subject", "-nameopt",
                "RFC2253",
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("serial=" + certificate.serialNumberHex.replacingOccurrences(of: ":", with: "")))
        #expect(lines.contains("notAfter=Jun 15 12:34:56 2055 GMT"))
        #expect(
            lines.contains(
                "subject=CN=Round Trip CA,UID=order.com.example.roundtrip,OU=TEAM123456,O=Interop Tests,C=US"))
    }

    @Test("An issued end-entity certificate is not a CA, names its issuer and carries its EKU")
    func issuedLeaf() throws {
        let chain = try TestChain.get()
        #expect(!chain.leaf.isCertificateAuthority)
        #expect(chain.intermediate.isCertificateAuthority)
        #expect(chain.leaf.issuer == chain.intermediate.subject)
        #expect(chain.leaf.isIssued(by: chain.intermediate))
        #expect(!chain.leaf.isIssued(by: chain.root))
        #expect(chain.intermediate.isIssued(by: chain.root))
        #expect(chain.leaf.extendedKeyUsageOIDs == ["1.2.840.113635.100.4.19"])
        #expect(chain.root.extendedKeyUsageOIDs == [])
        #expect(chain.leaf.notBefore == TestChain.leafNotBefore && chain.leaf.notAfter == TestChain.leafNotAfter)
        #expect(openSSLErrorQueueIsEmpty())
    }

    static let garbage: [(label: String, bytes: [UInt8])] = [
        ("plain text", Array("this is not a certificate".utf8)),
        ("empty", []),
        (
            "armour around bad base64",
            Array("-----BEGIN CERTIFICATE-----\n!!!not base64!!!\n-----END CERTIFICATE-----\n".utf8)
        ),
        (
            "a private key, not a certificate",
            Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)
        ),
    ]

    @Test("parsePEM of garbage throws with context and leaves no stale OpenSSL error", arguments: garbage.indices)
    func garbagePEM(index: Int) throws {
        let input = Self.garbage[index]
        let error = try #require(throws: OpenSSLError.self, "\(input.label)") {
            try X509Certificate.parsePEM(input.bytes)
        }
        #expect(error.function == "PEM_read_bio_X509")
        #expect(!error.context.isEmpty)
        #expect(error.context.contains("No PEM certificate"))
        #expect(error.description.hasPrefix("No PEM certificate"))
        #expect(openSSLErrorQueueIsEmpty())
        // The next failing call is blamed on its own reasons only, not on PEM leftovers.
        let next = try #require(throws: OpenSSLError.self) { try X509Certificate(derBytes: [0x30, 0x82, 0x7f]) }
        #expect(next.function == "d2i_X509")
        #expect(next.context == "The data is not a DER-encoded X.509 certificate")
        #expect(!next.entries.isEmpty)
        #expect(!next.entries.contains { $0.reason == "no start line" || $0.library.contains("PEM") })
        #expect(openSSLErrorQueueIsEmpty())
        // And a good call afterwards works.
        let chain = try TestChain.get()
        #expect(try X509Certificate.parsePEM(Array(chain.root.pemString.utf8)) == [chain.root])
    }

    @Test("PEM sniffing finds the armour after leading text and rejects DER")
    func pemSniffing() throws {
        let chain = try TestChain.get()
        #expect(PEMText.looksLikePEM(Array("Bag Attributes\n    friendlyName: x\n\(chain.leaf.pemString)".utf8)))
        #expect(!PEMText.looksLikePEM(chain.leaf.derBytes))
        #expect(!PEMText.looksLikePEM(Array("-----BEGIN".utf8)))
    }
}
