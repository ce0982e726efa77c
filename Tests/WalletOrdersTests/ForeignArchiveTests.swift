import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Archives written by other tools (Python's zipfile + cryptography's PKCS #7 builder) verify too.
@Suite(.temporaryFolder) struct ForeignArchiveTests {
    struct Variant: Sendable, CustomTestStringConvertible {
        var name: String
        var flags: [String]
        var testDescription: String { name }
    }

    static let variants = [
        Variant(name: "deflated, no directory entries", flags: []),
        Variant(name: "explicit directory entries", flags: ["--directory-entries"]),
        Variant(name: "every entry stored", flags: ["--stored"]),
        Variant(name: "images stored, the rest deflated", flags: ["--mixed-compression"]),
        Variant(name: "manifest keys written with \\/", flags: ["--escape-slashes"]),
        Variant(name: "all of the above", flags: ["--directory-entries", "--mixed-compression", "--escape-slashes"]),
    ]

    @Test("A Python-made archive of the localized sample verifies with no findings", arguments: variants)
    func pythonArchiveVerifies(variant: Variant) async throws {
        let folder = try TemporaryFolder.ofTest
        let certificate = TestPKI.certificate(for: "order.com.maisonlumiere.boutique")
        let cert = try folder.write(Array(certificate.certificatePEM.utf8), to: "cert.pem")
        let key = try folder.write(Array(try certificate.privateKeyPEM().utf8), to: "key.pem")
        let wwdr = try folder.write(Array(TestPKI.authority.intermediateCertificatePEM.utf8), to: "wwdr.pem")
        let out = folder.file("python.order")
        let signingTime = ISO8601DateFormatter().string(from: TestPKI.signingTime)
        let result = try await ExternalProgram.run(
            tool: "python3",
            [
                Repository.support.appendingPathComponent("make_order_archive.py").path,
                Repository.sample("localized").path, out.path, "--cert", cert.path, "--key", key.path, "--wwdr", wwdr.path,
                "--signing-time", signingTime,
            ] + variant.flags)
        try #require(result.status == 0, "make_order_archive.py: \(result.errorOutput)")
        let bytes = Array(try #require(FileManager.default.contents(atPath: out.path)))
        let report = TestPKI.verifier.verify(archiveBytes: bytes, subject: variant.name)
        #expect(report.diagnostics.allSatisfy { $0.ruleID == "certificate.wwdr-generation" }, "\(report.diagnostics.map(\.description))")

        let archive = try OrderArchive(bytes: bytes)
        #expect(archive.entries.contains { $0.isDirectory } == variant.flags.contains("--directory-entries"))
        if variant.flags.contains("--stored") {
            #expect(archive.entries.filter { !$0.isDirectory }.allSatisfy { $0.compression == .stored })
        }
        if variant.flags.contains("--escape-slashes") {
            #expect(String(decoding: try #require(archive.contents(of: "manifest.json")), as: UTF8.self).contains(#"\/"#))
        }
        // cryptography adds smimeCapabilities; our reader reports it without complaint.
        #expect(try archive.signatureInfo().signedAttributes.contains("signingTime"))
        #expect(try archive.signatureInfo().signingTime == TestPKI.signingTime)
    }
}
