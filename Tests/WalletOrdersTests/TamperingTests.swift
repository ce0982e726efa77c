import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Every kind of change to a signed archive is caught, with the right rule and file.
@Suite(.temporaryFolder) struct TamperingTests {
    static let original: BuiltOrderArchive = try! SampleBuilds.build("localized")
    static let paths: [String] = try! ArchiveSurgery.files(of: original.bytes).map(\.path)

    func verify(_ bytes: [UInt8]) -> ValidationReport {
        TestPKI.verifier.verify(archiveBytes: bytes, subject: "tampered")
    }

    @Test("Changing one byte of any file is reported against that file", arguments: paths)
    func oneByteChanged(path: String) throws {
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == path })
            let middle = files[index].bytes.count / 2
            files[index].bytes[middle] ^= 0x01
        }
        let report = verify(tampered)
        #expect(!report.isValid)
        switch path {
        case "manifest.json":
            // The manifest's own change breaks the signature's message digest (and maybe its JSON).
            #expect(report.contains(ruleID: "signature.digest-mismatch"), "\(report.diagnostics)")
        case "signature":
            let signatureFindings = report.diagnostics.filter { $0.location.file == "signature" && $0.severity == .error }
            #expect(!signatureFindings.isEmpty, "\(report.diagnostics)")
            #expect(!report.contains(ruleID: "manifest.hash-mismatch"))
        default:
            let mismatches = report.diagnostics(ruleID: "manifest.hash-mismatch")
            #expect(mismatches.map(\.location.file) == [path], "\(report.diagnostics)")
            #expect(mismatches.first?.severity == .error)
        }
    }

    @Test("A file added after signing is reported as missing from the manifest")
    func fileAdded() throws {
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            files.append(("coupon.png", [0x89, 0x50, 0x4e, 0x47]))
        }
        let report = verify(tampered)
        let findings = report.diagnostics(ruleID: "manifest.missing-entry")
        #expect(findings.map(\.location.file) == ["coupon.png"])
        #expect(report.errors.count == 1, "\(report.diagnostics)")
    }

    @Test("A file removed after signing is reported as listed but absent")
    func fileRemoved() throws {
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            files.removeAll { $0.path == "fr.lproj/logo@2x.png" }
        }
        let report = verify(tampered)
        let findings = report.diagnostics(ruleID: "manifest.extra-entry")
        #expect(findings.map(\.location.jsonPointer) == ["/fr.lproj~1logo@2x.png"])
        #expect(findings.first?.message.contains("fr.lproj/logo@2x.png") == true)
        #expect(report.errors.count == 1, "\(report.diagnostics)")
    }

    @Test("A signature taken from another archive does not cover this manifest")
    func signatureReplaced() throws {
        let other = try SampleBuilds.build("store-pickup")
        let otherSignature = try #require(try OrderArchive(bytes: other.bytes).contents(of: "signature"))
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = otherSignature
        }
        let report = verify(tampered)
        #expect(report.diagnostics(ruleID: "signature.digest-mismatch").map(\.location.file) == ["signature"])
        // The foreign signer's order-type marker no longer matches this order's orderTypeIdentifier.
        #expect(report.contains(ruleID: "signature.signer-order-type-mismatch"))
    }

    @Test("Re-signing with a key from another authority is untrusted")
    func resignedWithAnotherKey() throws {
        let source = try SampleBuilds.source("localized")
        let foreign = try TestPKI.otherAuthority.issueOrderTypeCertificate(
            orderTypeIdentifier: try SampleBuilds.orderTypeIdentifier(of: source), teamIdentifier: "EVILTEAM00")
        let resigned = try OrderArchiveBuilder(identity: try foreign.signingIdentity())
            .build(source, signingTime: TestPKI.signingTime)
        let report = verify(resigned.bytes)
        #expect(report.errors.map(\.ruleID) == ["certificate.untrusted"], "\(report.diagnostics)")
        #expect(report.errors.first?.hint?.contains("trusted explicitly") == true)
    }

    @Test("A signature without signed attributes (openssl -noattr) is refused for its missing signing time")
    func noSignedAttributes() async throws {
        let folder = try TemporaryFolder.ofTest
        let certificate = TestPKI.certificate(for: "order.com.maisonlumiere.boutique")
        let certPath = try folder.write(Array(certificate.certificatePEM.utf8), to: "cert.pem")
        let keyPath = try folder.write(Array(try certificate.privateKeyPEM().utf8), to: "key.pem")
        let manifestPath = try folder.write(Self.original.manifestBytes, to: "manifest.json")
        let signaturePath = folder.file("signature")
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "cms", "-sign", "-binary", "-noattr", "-md", "sha256", "-signer", certPath.path, "-inkey", keyPath.path,
                "-in", manifestPath.path, "-outform", "DER", "-out", signaturePath.path,
            ])
        try #require(result.status == 0, "\(result.errorOutput)")
        let unsigned = try #require(FileManager.default.contents(atPath: signaturePath.path))
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = Array(unsigned)
        }
        let report = verify(tampered)
        #expect(report.contains(ruleID: "signature.missing-signed-attributes"))
        #expect(report.contains(ruleID: "signature.intermediate-missing"), "openssl was not given -certfile")
    }

    /// Signs the original manifest with the `openssl` CLI (an independent signer), with `extra` arguments.
    static func opensslSignature(_ extra: [String]) async throws -> [UInt8] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let certificate = TestPKI.certificate(for: "order.com.maisonlumiere.boutique")
        let certPath = try folder.write(Array(certificate.certificatePEM.utf8), to: "cert.pem")
        let keyPath = try folder.write(Array(try certificate.privateKeyPEM().utf8), to: "key.pem")
        let chainPath = try folder.write(Array(TestPKI.authority.intermediateCertificatePEM.utf8), to: "wwdr.pem")
        let manifestPath = try folder.write(Self.original.manifestBytes, to: "manifest.json")
        let signaturePath = folder.file("signature")
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            ["cms", "-sign", "-binary", "-md", "sha256", "-signer", certPath.path, "-inkey", keyPath.path, "-certfile", chainPath.path]
                + extra + ["-in", manifestPath.path, "-outform", "DER", "-out", signaturePath.path])
        try #require(result.status == 0, "\(result.errorOutput)")
        return Array(try #require(FileManager.default.contents(atPath: signaturePath.path)))
    }

    static func withSignature(_ signature: [UInt8]) throws -> [UInt8] {
        try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = signature
        }
    }

    @Test("openssl's own DER signature of the manifest verifies (the control for the BER and trailing-bytes cases)")
    func opensslDERSignatureVerifies() async throws {
        let report = verify(try Self.withSignature(try await Self.opensslSignature([])))
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    @Test("A BER signature (openssl cms -stream) gets the report of its DER twin plus one signature.ber-encoding warning naming the offset")
    func berSignature() async throws {
        let ber = try await Self.opensslSignature(["-stream"])
        #expect(ber[1] == 0x80, "openssl -stream writes an indefinite length right after the first tag")
        // openssl -stream also embeds the manifest: its DER twin is the -nodetach signature.
        let der = try await Self.opensslSignature(["-nodetach"])
        #expect(DERReader.violation(in: der) == nil)
        let report = verify(try Self.withSignature(ber))
        let finding = try #require(report.diagnostics(ruleID: "signature.ber-encoding").first, "\(report.diagnostics)")
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("indefinite length") && finding.message.contains("at byte 1"), "\(finding.message)")
        #expect(finding.message.contains("DER"), "\(finding.message)")
        #expect(finding.hint?.contains("-stream") == true && finding.hint?.contains(#"getEncoded("DER")"#) == true, "\(finding.hint ?? "")")
        #expect(!report.contains(ruleID: "signature.not-der"))
        #expect(report.contains(ruleID: "signature.not-detached"), "the embedded manifest is still reported")
        let twin = verify(try Self.withSignature(der))
        #expect(
            report.diagnostics.filter { $0.ruleID != "signature.ber-encoding" } == twin.diagnostics,
            "BER \(report.diagnostics) / DER \(twin.diagnostics)")
    }

    /// `der` re-encoded as BouncyCastle's `CMSSignedData.getEncoded()` (what jpasskit ships) lays
    /// a signature out: indefinite lengths on the ContentInfo, its `[0]`, the SignedData and the
    /// certificates' `[0]`, each closed by an end-of-contents marker; everything inside as it was.
    static func bouncyCastleLayout(_ der: [UInt8]) throws -> [UInt8] {
        struct NotSignedData: Error {}
        var top = DERReader(der)
        guard let contentInfo = top.next(tag: 0x30) else { throw NotSignedData() }
        var info = top.children(of: contentInfo)
        guard let type = info.next(tag: 0x06), let wrapper = info.next(tag: 0xA0) else { throw NotSignedData() }
        var explicit = info.children(of: wrapper)
        guard let signedDataElement = explicit.next(tag: 0x30) else { throw NotSignedData() }
        var fields = explicit.children(of: signedDataElement)
        var signedData: [UInt8] = []
        while let field = fields.next() {
            signedData += field.tag == 0xA0 ? [0xA0, 0x80] + der[field.content] + [0, 0] : Array(der[field.whole])
        }
        return [0x30, 0x80] + der[type.whole] + [0xA0, 0x80, 0x30, 0x80] + signedData + [0, 0, 0, 0, 0, 0]
    }

    @Test("A detached BER signature laid out as BouncyCastle writes it passes with the DER report plus one warning, and is still verified")
    func bouncyCastleBERSignature() async throws {
        let der = try #require(try OrderArchive(bytes: Self.original.bytes).contents(of: "signature"))
        let ber = try Self.bouncyCastleLayout(der)
        // OpenSSL, which shares no code with the verifier's reading of the structure, verifies it.
        let folder = try TemporaryFolder.ofTest
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", try folder.write(ber, to: "signature").path, "-content",
                try folder.write(Self.original.manifestBytes, to: "manifest.json").path, "-purpose", "any", "-CAfile",
                try folder.write(Array(TestPKI.authority.rootCertificatePEM.utf8), to: "root.pem").path, "-out", "/dev/null",
            ])
        #expect(result.status == 0, "\(result)")

        let report = verify(try Self.withSignature(ber))
        #expect(report.errors.isEmpty, "\(report.errors)")
        let finding = try #require(report.diagnostics(ruleID: "signature.ber-encoding").first, "\(report.diagnostics)")
        #expect(finding.severity == .warning && finding.message.contains("at byte 1"), "\(finding)")
        #expect(report.diagnostics.filter { $0.ruleID != "signature.ber-encoding" } == verify(Self.original.bytes).diagnostics)
        // The signature is still checked: one bit of its RSA value (the end, before the six zero bytes) fails it.
        var altered = ber
        altered[ber.count - 26] ^= 0x01
        #expect(verify(try Self.withSignature(altered)).contains(ruleID: "signature.invalid"))
        // Bytes after the BER structure are still an error.
        let trailing = verify(try Self.withSignature(ber + [0x00]))
        let notDER = try #require(trailing.diagnostics(ruleID: "signature.not-der").first, "\(trailing.diagnostics)")
        #expect(notDER.severity == .error && notDER.message.contains("1 byte(s) after the end") && notDER.message.contains("at byte \(ber.count)"))
        #expect(!trailing.isValid)
    }

    @Test("Bytes after a valid DER signature are refused, naming where they start", arguments: [1, 7, 4096])
    func trailingBytesAfterSignature(count: Int) throws {
        let signature = try #require(try OrderArchive(bytes: Self.original.bytes).contents(of: "signature"))
        let report = verify(try Self.withSignature(signature + [UInt8](repeating: 0x00, count: count)))
        let finding = try #require(report.diagnostics(ruleID: "signature.not-der").first, "\(report.diagnostics)")
        #expect(
            finding.message.contains("\(count) byte(s) after the end") && finding.message.contains("at byte \(signature.count)"), "\(finding.message)"
        )
        #expect(!report.isValid)
    }

    /// Found by fuzzing (`Tests/Fuzz/Regressions/der/certificate-not-der`): the fast path read the
    /// certificates without looking inside them, and OpenSSL takes a certificate with a BER length
    /// (its signature covers only the TBS part), so this archive used to verify.
    @Test("A certificate with a BER length inside a DER-shaped signature is refused as not DER")
    func certificateWithBERLength() throws {
        let signature = try #require(try OrderArchive(bytes: Self.original.bytes).contents(of: "signature"))
        // ContentInfo / [0] / SignedData / certificates [0] / first certificate / signatureAlgorithm.
        let ber = Self.rewriting(signature, at: [0, 1, 0, 3, 0, 1]) { bytes, element in
            [element.tag, 0x81, UInt8(element.content.count)] + bytes[element.content]
        }
        let certificate = try #require(Self.element(of: ber, at: [0, 1, 0, 3, 0]), "the rewritten signature keeps its shape")
        #expect(try X509Certificate.parse(Array(ber[certificate.whole])).count == 1, "OpenSSL reads the BER certificate")
        #expect(DERReader.violation(in: ber) != nil)
        let report = verify(try Self.withSignature(ber))
        let finding = try #require(report.diagnostics(ruleID: "signature.not-der").first, "\(report.diagnostics)")
        #expect(finding.message.contains("long-form length"), "\(finding.message)")
        #expect(!report.isValid)
    }

    /// The DER element at `path` (child indices, from the top).
    static func element(of bytes: [UInt8], at path: [Int]) -> DERReader.Element? {
        var range = 0..<bytes.count
        var found: DERReader.Element?
        for index in path {
            var reader = DERReader(bytes, range: range)
            for _ in 0..<index { _ = reader.next() }
            guard let element = reader.next() else { return nil }
            found = element
            range = element.content
        }
        return found
    }

    /// `bytes` with the DER element at `path` (child indices, from the top) replaced by `change`'s
    /// encoding of it, and the lengths of the elements around it fixed.
    static func rewriting(
        _ bytes: [UInt8], at path: [Int], range: Range<Int>? = nil, _ change: ([UInt8], DERReader.Element) -> [UInt8]
    ) -> [UInt8] {
        var reader = DERReader(bytes, range: range)
        var out: [UInt8] = []
        var index = 0
        while let element = reader.next() {
            if index != path[0] {
                out += bytes[element.whole]
            } else if path.count == 1 {
                out += change(bytes, element)
            } else {
                let content = rewriting(bytes, at: Array(path.dropFirst()), range: element.content, change)
                let count = content.count
                let length: [UInt8] =
                    count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
                out += [element.tag] + length + content
            }
            index += 1
        }
        return out
    }

    @Test("A PEM signature is named as the wrong encoding")
    func pemSignature() throws {
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = Array("-----BEGIN PKCS7-----\nMIIB\n-----END PKCS7-----\n".utf8)
        }
        let finding = try #require(verify(tampered).diagnostics(ruleID: "signature.invalid-encoding").first)
        #expect(finding.message.contains("PEM"))
        #expect(finding.hint?.contains("DER") == true)
    }

    @Test("A SHA-1 manifest (Apple's example, ueman/passkit) is named as such")
    func sha1Manifest() throws {
        let tampered = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "manifest.json" })
            files[index].bytes = Array(#"{"order.json":"0123456789abcdef0123456789abcdef01234567"}"#.utf8)
        }
        let report = verify(tampered)
        #expect(report.diagnostics(ruleID: "manifest.sha1-hash").map(\.location.jsonPointer) == ["/order.json"])
        #expect(report.contains(ruleID: "signature.digest-mismatch"))
    }

    @Test("Missing required files are each reported, with a hint when they sit in a wrapper folder")
    func missingFilesAndWrapperFolder() throws {
        let wrapped = try ArchiveSurgery.rewrite(Self.original.bytes) { files in
            files = files.map { ("MyOrder/" + $0.path, $0.bytes) }
        }
        let report = verify(wrapped)
        let missing = report.diagnostics(ruleID: "archive.missing-file")
        #expect(missing.map(\.location.file) == ["order.json", "manifest.json", "signature"])
        #expect(missing.first?.hint?.contains("MyOrder/order.json") == true)
    }

    @Test("Data that is not a zip gives one zip.unreadable finding")
    func notAZip() {
        let report = verify(Array("%PDF-1.4 not a zip".utf8))
        #expect(report.diagnostics.map(\.ruleID) == ["zip.unreadable"])
    }
}
