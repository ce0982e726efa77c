import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// What goes into an archive from a source folder or from memory, and what never does.
@Suite(.temporaryFolder) struct OrderSourceTests {
    static let typeIdentifier = "order.com.example.source-tests"

    @Test("An Order value plus in-memory files builds an archive that verifies clean")
    func buildFromOrderValue() throws {
        let order = try Order.decode(from: Data(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8))
        let logo = try #require(FileManager.default.contents(atPath: Repository.sample("store-pickup").appendingPathComponent("logo.png").path))
        let source = try OrderSource(order: order, files: ["logo.png": Array(logo), "en.lproj/order.strings": Array("\"A\" = \"B\";\n".utf8)])
        #expect(source.files.keys.sorted() == ["en.lproj/order.strings", "logo.png", "order.json"])
        let built = try OrderArchiveBuilder(identity: TestPKI.identity(for: Self.typeIdentifier)).build(source, signingTime: TestPKI.signingTime)
        let report = TestPKI.verifier.verify(archiveBytes: built.bytes, subject: "in-memory")
        #expect(report.diagnostics.allSatisfy { $0.ruleID == "certificate.wwdr-generation" }, "\(report.diagnostics)")
        #expect(try OrderArchive(bytes: built.bytes).order() == order)
    }

    /// Each path, and why an in-memory source leaves it out (`nil`: kept). The reason is read
    /// a path component at a time, so the edges are components, not substrings.
    static let junkPaths: [(path: String, reason: String?)] = [
        ("logo.png", nil),
        ("en.lproj/order.strings", nil),
        ("a//b.png", nil),
        ("__MACOSXy/a.png", nil),
        ("x__MACOSX/a.png", nil),
        ("__MACOSX/._order.json", "macOS resource-fork folder (__MACOSX) is not part of an order"),
        ("a/__MACOSX", "macOS resource-fork folder (__MACOSX) is not part of an order"),
        ("__MACOSX/.DS_Store", "macOS resource-fork folder (__MACOSX) is not part of an order"),
        (".DS_Store", "Finder metadata (.DS_Store) is not part of an order"),
        ("en.lproj/.DS_Store", "Finder metadata (.DS_Store) is not part of an order"),
        ("en.lproj/.gitkeep", "placeholder file (.gitkeep) is not part of an order"),
        (".DS_Store/x.png", "hidden file or folder is not part of an order"),
        (".git/config", "hidden file or folder is not part of an order"),
        ("a/.hidden/b.png", "hidden file or folder is not part of an order"),
        (".DS_Storex", "hidden file or folder is not part of an order"),
        ("manifest.json", "an old manifest.json; the builder writes a new one"),
        ("signature", "an old signature; the builder signs anew"),
    ]

    @Test("Junk is recognized by whole path components", arguments: junkPaths)
    func junkByComponent(path: String, reason: String?) {
        let source = OrderSource(files: [path: [0x00]])
        #expect(source.skippedFiles.map(\.reason) == (reason.map { [$0] } ?? []))
        #expect(source.files.keys.contains(path) == (reason == nil))
    }

    @Test("Junk in a source folder is skipped and each skipped file is reported")
    func junkIsSkipped() throws {
        let folder = try TemporaryFolder.ofTest
        _ = try folder.write(Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8), to: "order.json")
        for junk in [".DS_Store", "__MACOSX/._order.json", "en.lproj/.gitkeep", ".git/config", "manifest.json", "signature", "en.lproj/.DS_Store"] {
            _ = try folder.write([0x00], to: junk)
        }
        _ = try folder.write(Array("\"A\" = \"B\";\n".utf8), to: "en.lproj/order.strings")
        let source = try OrderSource(directory: folder.url)
        #expect(source.files.keys.sorted() == ["en.lproj/order.strings", "order.json"])
        #expect(
            source.skippedFiles.map(\.path) == [
                ".DS_Store", ".git/", "__MACOSX/", "en.lproj/.DS_Store", "en.lproj/.gitkeep", "manifest.json", "signature",
            ])
        let built = try OrderArchiveBuilder(identity: TestPKI.identity(for: Self.typeIdentifier)).build(source, signingTime: TestPKI.signingTime)
        #expect(built.diagnostics.filter { $0.ruleID == "build.skipped-file" }.count == 7)
        #expect(try OrderArchive(bytes: built.bytes).filePaths == ["en.lproj/order.strings", "manifest.json", "order.json", "signature"])
    }

    @Test("A symbolic link in a source folder is refused, naming it")
    func symlinkRefused() throws {
        let folder = try TemporaryFolder.ofTest
        _ = try folder.write(Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8), to: "order.json")
        try FileManager.default.createSymbolicLink(atPath: folder.file("logo.png").path, withDestinationPath: "/etc/hostname")
        let error = try #require(throws: WalletOrdersError.self) { try OrderSource(directory: folder.url) }
        #expect(error.code == .invalidSource)
        #expect(error.message == "'logo.png' in the source folder is a symbolic link; orders may only contain regular files.")
        #expect(error.hint?.contains("cp -L") == true)
    }

    @Test("A named pipe in a source folder is refused as a special file")
    func specialFileRefused() throws {
        let folder = try TemporaryFolder.ofTest
        _ = try folder.write(Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8), to: "order.json")
        #expect(mkfifo(folder.file("pipe").path, 0o600) == 0)
        let error = try #require(throws: WalletOrdersError.self) { try OrderSource(directory: folder.url) }
        #expect(error.code == .invalidSource)
        #expect(error.message.contains("'pipe'") && error.message.contains("special file"))
    }

    @Test("A folder without order.json at its root is refused")
    func missingOrderJSON() throws {
        let folder = try TemporaryFolder.ofTest
        _ = try folder.write(Array("{}".utf8), to: "MyOrder/order.json")
        let error = try #require(throws: WalletOrdersError.self) { try OrderSource(directory: folder.url) }
        #expect(error.code == .invalidSource)
        #expect(error.message.contains("no order.json at its top level"))
    }

    /// order.json texts the builder refuses, and what its message says.
    static let unpackageable: [(label: String, json: String, message: String)] = [
        ("not JSON", #"{"orderTypeIdentifier": "#, "order.json is not valid JSON"),
        ("an array", #"[1, 2]"#, "order.json is not a JSON object."),
        ("no orderIdentifier", #"{"orderTypeIdentifier": "order.com.example"}"#, "order.json has no orderIdentifier."),
        (
            "a numeric orderIdentifier", #"{"orderTypeIdentifier": "order.com.example", "orderIdentifier": 7}"#,
            "order.json's orderIdentifier at 1:65 is not a non-empty string."
        ),
        (
            "a duplicate key", #"{"orderTypeIdentifier": "a", "orderTypeIdentifier": "b", "orderIdentifier": "1"}"#,
            "order.json is not valid JSON: "
        ),
    ]

    @Test("The builder refuses order.json it can't package, with invalidOrder and the place", arguments: unpackageable.indices)
    func unpackageableOrder(index: Int) throws {
        let (label, json, message) = Self.unpackageable[index]
        let builder = OrderArchiveBuilder(identity: TestPKI.identity(for: Self.typeIdentifier))
        let error = try #require(throws: WalletOrdersError.self, "\(label)") {
            try builder.build(OrderSource(files: ["order.json": Array(json.utf8)]), signingTime: TestPKI.signingTime)
        }
        #expect(error.code == .invalidOrder, "\(label)")
        #expect(error.message.hasPrefix(message), "\(label): \(error.message)")
        #expect(error.hint?.contains("validating the source") == true)
    }

    @Test("The builder packages what validation would refuse; order() and the validator then say why")
    func builderLeavesValidationToTheValidator() throws {
        var json = minimalOrderJSON(typeIdentifier: Self.typeIdentifier)
        json = json.replacingOccurrences(of: #""status""#, with: #""status": 12, "statusWas""#)
        let source = OrderSource(files: ["order.json": Array(json.utf8)])
        let built = try OrderArchiveBuilder(identity: TestPKI.identity(for: Self.typeIdentifier)).build(source, signingTime: TestPKI.signingTime)
        #expect(built.orderIdentifier.orderTypeIdentifier == Self.typeIdentifier)
        let error = try #require(throws: WalletOrdersError.self) { try built.order() }
        #expect(error.code == .invalidOrder)
        let report = try OrderValidator(verifier: TestPKI.verifier).validate(source, subject: "order")
        #expect(!report.isValid)
    }

    @Test("An order of 5 MB or more is refused, naming the largest files")
    func bundleTooLarge() throws {
        var files: [String: [UInt8]] = ["order.json": Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8)]
        files["return-label.pdf"] = [UInt8](repeating: 0x25, count: 3_000_000)
        files["receipt.pdf"] = [UInt8](repeating: 0x25, count: 1_999_000)
        files["logo.png"] = [UInt8](repeating: 0x89, count: 2_000)
        let builder = OrderArchiveBuilder(identity: TestPKI.identity(for: Self.typeIdentifier))
        let error = try #require(throws: WalletOrdersError.self) {
            try builder.build(OrderSource(files: files), signingTime: TestPKI.signingTime)
        }
        #expect(error.code == .bundleTooLarge)
        #expect(error.message.contains("Largest files: return-label.pdf (3.00 MB), receipt.pdf (2.00 MB), logo.png (2.0 kB)"), "\(error.message)")
        // Just under the limit (files + manifest + signature < 5,000,000 bytes) builds.
        files["receipt.pdf"] = [UInt8](repeating: 0x25, count: 1_990_000)
        #expect(try builder.build(OrderSource(files: files), signingTime: TestPKI.signingTime).bytes.count > 0)
    }

    @Test("Validating a source of 5 MB or more reports bundle.too-large, as validating its archive does")
    func sourceBundleTooLarge() throws {
        let validator = try OrderValidator(verifier: TestPKI.verifier)
        var files: [String: [UInt8]] = ["order.json": Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8)]
        files["a.bin"] = [UInt8](repeating: 0x25, count: 2_600_000)
        files["b.bin"] = [UInt8](repeating: 0x25, count: 2_500_000)
        let report = validator.validate(OrderSource(files: files), subject: "big")
        let finding = try #require(report.diagnostics(ruleID: "bundle.too-large").first, "\(report.diagnostics)")
        #expect(report.diagnostics(ruleID: "bundle.too-large").count == 1)
        #expect(finding.severity == .error)
        #expect(finding.message.contains("Largest: a.bin (2.60 MB), b.bin (2.50 MB), order.json"), "\(finding.message)")
        // The intake's way through (validate, then sign) reports it too, before anything is signed.
        let identity = TestPKI.identity(for: Self.typeIdentifier)
        let beforeSigning = validator.validate(OrderSource(files: files), signedBy: identity, at: TestPKI.signingTime, subject: "big")
        #expect(beforeSigning.report.diagnostics(ruleID: "bundle.too-large").map(\.message) == [finding.message])
        // Under the limit: no finding.
        files["b.bin"] = [UInt8](repeating: 0x25, count: 2_000_000)
        #expect(!validator.validate(OrderSource(files: files), subject: "small").contains(ruleID: "bundle.too-large"))
    }

    @Test("A signature whose signing time falls after the certificate expired is an error at signing time")
    func expiredAtSigning() throws {
        let built = try SampleBuilds.build("store-pickup")
        let certificate = TestPKI.certificate(for: built.orderIdentifier.orderTypeIdentifier)
        let signer = try X509Certificate.parsePEM(Array(certificate.certificatePEM.utf8))[0]
        let key = try PrivateKey(bytes: Array(try certificate.privateKeyPEM().utf8), passphrase: nil)
        let intermediate = try X509Certificate.parsePEM(Array(TestPKI.authority.intermediateCertificatePEM.utf8))[0]
        let late = try CMSSigner.signDetached(
            built.manifestBytes, certificate: signer, privateKey: key, additionalCertificates: [intermediate],
            signingTime: signer.notAfter.addingTimeInterval(86_400))
        let tampered = try ArchiveSurgery.rewrite(built.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == "signature" })
            files[index].bytes = late
        }
        let report = TestPKI.verifier.verify(archiveBytes: tampered, subject: "late")
        #expect(report.errors.map(\.ruleID) == ["certificate.expired-at-signing"], "\(report.diagnostics)")
        #expect(report.errors.first?.message.contains("Order Type ID: \(built.orderIdentifier.orderTypeIdentifier)") == true)
    }
}
