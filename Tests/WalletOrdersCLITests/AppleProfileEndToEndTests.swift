import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Ground truth for the Order Type ID certificate profile, from the command line: chains issued
/// by Python's `cryptography` that copy, extension for extension, a real Order Type ID
/// certificate and Apple's WWDR G4 intermediate (`apple_profile_chain.py`), and the same chains
/// with one part of Apple's profile changed. Archives are signed by `wallet-orders build` and,
/// where `build` rightly refuses, by an independent signer (`make_order_archive.py`).
@Suite("Apple's Order Type ID profile, end to end", .serialized)
struct AppleProfileEndToEndTests {
    /// The real certificate's order type: the replica carries its marker and UID unchanged.
    static let orderType = "order.com.anybill.receipt.default"
    static let key = "merchant-key-0123456789abcdef"
    static let support = Repository.tests.appendingPathComponent("WalletOrdersTests/Support", isDirectory: true)
    static let realLeaf = Repository.tests.appendingPathComponent("Fixtures/Apple/real-order-type-id-certificate.pem")
    static let appleWWDR = Repository.root.appendingPathComponent("Sources/WalletArchives/Resources/TrustAnchors/apple-wwdr-g4.pem")

    /// A chain made by `apple_profile_chain.py issue`.
    struct Chain {
        let folder: URL
        var root: URL { folder.appendingPathComponent("root.pem") }
        var wwdr: URL { folder.appendingPathComponent("wwdr.pem") }
        var leaf: URL { folder.appendingPathComponent("leaf.pem") }
        var leafKey: URL { folder.appendingPathComponent("leaf.key.pem") }
        var signingArguments: [String] { ["--cert", leaf.path, "--key", leafKey.path, "--wwdr", wwdr.path] }
    }

    /// One change to Apple's profile, the rule that must name it, and a word its hint must say.
    struct Deviation: Sendable, CustomTestStringConvertible {
        var name: String
        var flags: [String]
        var ruleID: String
        var testDescription: String { name }
    }

    static let deviations: [Deviation] = [
        .init(name: "a Pass Type ID leaf (pass EKU and pass marker)", flags: ["--pass-shaped"], ruleID: "certificate.pass-type-certificate"),
        .init(
            name: "an order-type marker naming another order type", flags: ["--marker", "order.com.other.type"],
            ruleID: "signature.signer-order-type-mismatch"),
        .init(
            name: "a leaf without the order-type marker", flags: ["--without-leaf", "1.2.840.113635.100.14.2"],
            ruleID: "certificate.leaf-order-type-marker"),
        .init(
            name: "an intermediate without Apple's WWDR marker", flags: ["--without-intermediate", "1.2.840.113635.100.6.2.1"],
            ruleID: "certificate.intermediate-marker"),
    ]

    static let folder: Result<TemporaryFolder, FixtureError> = Result { () throws(FixtureError) in
        do { return try TemporaryFolder() } catch { throw FixtureError(description: "\(error)") }
    }

    static func chain(_ name: String, _ flags: [String] = []) async throws -> Chain {
        let out = try folder.get().file(name)
        if !FileManager.default.fileExists(atPath: out.appendingPathComponent("leaf.key.pem").path) {
            let made = try await ExternalProgram.run(
                tool: "python3",
                [
                    support.appendingPathComponent("apple_profile_chain.py").path, "issue", out.path, "--leaf", realLeaf.path,
                    "--intermediate", appleWWDR.path,
                ] + flags)
            try #require(made.status == 0, "apple_profile_chain.py: \(made)")
        }
        return Chain(folder: out)
    }

    /// The shipped sample re-typed to the real certificate's order type, as a source folder.
    static func source() async throws -> URL {
        let out = try folder.get().file("source")
        if FileManager.default.fileExists(atPath: out.appendingPathComponent("order.json").path) { return out }
        let copied = try await ExternalProgram.run(tool: "cp", ["-R", Repository.shippedEcommerce.path, out.path])
        try #require(copied.status == 0, "\(copied)")
        let orderJSON = out.appendingPathComponent("order.json")
        let text = try String(contentsOf: orderJSON, encoding: .utf8)
            .replacingOccurrences(of: Repository.shippedOrderTypeIdentifier, with: orderType)
        try text.write(to: orderJSON, atomically: true, encoding: .utf8)
        return out
    }

    /// What `apple_profile_chain.py extensions` (pyca/cryptography) reads of certificates.
    static func extensions(_ certificates: [URL]) async throws -> [[String: Any]] {
        let read = try await ExternalProgram.run(
            tool: "python3", [support.appendingPathComponent("apple_profile_chain.py").path, "extensions"] + certificates.map(\.path))
        try #require(read.status == 0, "\(read)")
        return try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
    }

    static func extensionList(_ certificate: [String: Any]) -> [String] {
        ((certificate["extensions"] as? [[String: Any]]) ?? []).map(extensionText)
    }

    /// `OID critical value` of one extension as the script prints it (`critical` as true/false).
    static func extensionText(_ item: [String: Any]) -> String {
        "\(item["oid"] as? String ?? "") \((item["critical"] as? Bool) == true) \(item["value"] as? String ?? "")"
    }

    @Test("A chain copying a real Order Type ID certificate and Apple's WWDR G4 builds, verifies, validates, stores and uploads")
    func realProfileIsAccepted() async throws {
        let chain = try await Self.chain("apple-profile")
        // pyca/cryptography confirms the copies carry exactly Apple's extensions.
        let read = try await Self.extensions([chain.leaf, Self.realLeaf, chain.wwdr, Self.appleWWDR])
        #expect(Self.extensionList(read[0]) == Self.extensionList(read[1]), "the leaf copies every extension of the real certificate")
        #expect(Self.extensionList(read[2]) == Self.extensionList(read[3]), "the intermediate copies every extension of WWDR G4")
        #expect(read[0]["subject"] as? String == read[1]["subject"] as? String)
        #expect(Self.extensionList(read[0]).contains { $0.hasPrefix("1.2.840.113635.100.14.2 false 0c21") }, "the order-type marker, a UTF8String")

        let folder = try Self.folder.get()
        let archive = folder.file("apple-profile.order")
        let built = try await CLI.run(
            ["build", try Self.source().path, "--out", archive.path, "--signing-time", SharedFixtures.signingTimeText] + chain.signingArguments)
        #expect(built.status == 0, "\(built)")

        // openssl, not our verifier, checks the signature and chain the archive carries.
        let unpacked = folder.file("apple-profile-unpacked")
        let unzipped = try await ExternalProgram.python(
            "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", [archive.path, unpacked.path])
        #expect(unzipped.status == 0, "\(unzipped)")
        let cms = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", unpacked.appendingPathComponent("signature").path,
                "-content", unpacked.appendingPathComponent("manifest.json").path, "-CAfile", chain.root.path, "-purpose", "any",
                "-out", "/dev/null",
            ])
        #expect(cms.status == 0, "\(cms)")

        let trust = ["--trust-root", chain.root.path]
        let verified = try await CLI.run(["verify", archive.path] + trust)
        #expect(verified.status == 0, "\(verified)")
        #expect(!verified.output.contains("error["), "\(verified)")
        let validated = try await CLI.run(["validate", archive.path] + trust)
        #expect(validated.status == 0, "\(validated)")
        #expect(!validated.output.contains("error["), "\(validated)")
        let saved = try await CLI.run(["store", "save", archive.path, "--store", folder.file("saved.sqlite").path] + trust)
        #expect(saved.status == 0, "\(saved)")
        #expect(saved.output.contains("added"), "\(saved)")

        // The service: a signed upload, and a build signed by the service with the same identity.
        let signing = folder.file("signing/\(Self.orderType)")
        try FileManager.default.createDirectory(at: signing, withIntermediateDirectories: true)
        for (from, to) in await [
            (chain.leaf, "order-type.pem"), (chain.leafKey, "order-type.key.pem"), (chain.wwdr, "wwdr-intermediate.pem"),
            (try Self.source(), "template"),
        ] {
            try? FileManager.default.removeItem(at: signing.appendingPathComponent(to))
            try FileManager.default.copyItem(at: from, to: signing.appendingPathComponent(to))
        }
        try FileManager.default.removeItem(at: signing.appendingPathComponent("template/order.json"))
        let server = try await RunningServer(
            ["--store", folder.file("served.sqlite").path, "--signing-dir", folder.file("signing").path] + trust,
            environment: ["WALLET_ORDERS_API_KEYS": "\(Self.key) *"], folder: folder, name: "apple-profile-serve")
        let auth = ["Authorization": "Bearer \(Self.key)"]
        let uploaded = try await HTTPClient.request(
            "POST", "\(server.baseURL)/merchant/v1/orders", headers: auth.merging(["Content-Type": "application/vnd.apple.finance.order"]) { $1 },
            body: try Data(contentsOf: archive))
        #expect(uploaded.status == 200, "\(String(decoding: uploaded.body, as: UTF8.self))")
        #expect(uploaded.json["result"] as? String == "added")
        let orderJSON = try await String(contentsOf: try Self.source().appendingPathComponent("order.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"updatedAt\": \"2025-11-20T08:31:44Z\"", with: "\"updatedAt\": \"2025-11-22T08:31:44Z\"")
        let builtByService = try await HTTPClient.request(
            "POST", "\(server.baseURL)/merchant/v1/orders/build", headers: auth.merging(["Content-Type": "application/json"]) { $1 },
            body: Data(orderJSON.utf8))
        #expect(builtByService.status == 200, "\(String(decoding: builtByService.body, as: UTF8.self))")
        #expect(builtByService.json["result"] as? String == "added")
        #expect(try await server.stop() == 0)
    }

    @Test("A chain one change away from Apple's profile is refused by build, verify, validate, store save and the upload", arguments: deviations)
    func deviationIsRefused(_ deviation: Deviation) async throws {
        let chain = try await Self.chain(deviation.name.replacingOccurrences(of: " ", with: "-"), deviation.flags)
        let folder = try Self.folder.get()
        let source = try await Self.source()

        // build refuses before signing, with validation and without.
        for extra in [[], ["--no-validate"]] {
            let out = folder.file("refused.order")
            let built = try await CLI.run(
                ["build", source.path, "--out", out.path, "--signing-time", SharedFixtures.signingTimeText] + chain.signingArguments + extra)
            #expect(built.status != 0, "\(built)")
            #expect(built.errorOutput.contains(deviation.ruleID), "\(built)")
            #expect(built.errorOutput.contains("hint:"), "\(built)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "nothing written")
        }

        // An independent signer makes the archive build refuses to make.
        let archive = folder.file("\(deviation.name.replacingOccurrences(of: " ", with: "-")).order")
        let signed = try await ExternalProgram.run(
            tool: "python3",
            [
                Self.support.appendingPathComponent("make_order_archive.py").path, source.path, archive.path,
                "--cert", chain.leaf.path, "--key", chain.leafKey.path, "--wwdr", chain.wwdr.path,
                "--signing-time", SharedFixtures.signingTimeText,
            ])
        try #require(signed.status == 0, "make_order_archive.py: \(signed)")

        let trust = ["--trust-root", chain.root.path]
        for command in [["verify"], ["validate"]] {
            let result = try await CLI.run(command + [archive.path] + trust)
            #expect(result.status == 1, "\(result)")
            #expect(result.output.contains("error[\(deviation.ruleID)]"), "\(result)")
        }
        let saved = try await CLI.run(["store", "save", archive.path, "--store", folder.file("refused.sqlite").path, "--json"] + trust)
        #expect(saved.status == 1, "\(saved)")
        #expect(saved.output.contains(deviation.ruleID), "\(saved)")

        let server = try await RunningServer(
            ["--store", folder.file("refused-served.sqlite").path] + trust, environment: ["WALLET_ORDERS_API_KEYS": "\(Self.key) *"],
            folder: folder, name: "refused-serve")
        let uploaded = try await HTTPClient.request(
            "POST", "\(server.baseURL)/merchant/v1/orders",
            headers: ["Authorization": "Bearer \(Self.key)", "Content-Type": "application/vnd.apple.finance.order"],
            body: try Data(contentsOf: archive))
        #expect(uploaded.status == 422, "\(String(decoding: uploaded.body, as: UTF8.self))")
        #expect(String(decoding: uploaded.body, as: UTF8.self).contains(deviation.ruleID))
        #expect(try await server.stop() == 0)
    }

    @Test("dev-certs issues Apple's profile: pyca/cryptography and openssl read it back")
    func devCertsCarryApplesProfile() async throws {
        let folder = try Self.folder.get()
        let out = folder.file("dev-certs")
        let made = try await CLI.run(["dev-certs", "--order-type-id", "order.com.example.profile", "--team-id", "TEAMID0001", "--out", out.path])
        #expect(made.status == 0, "\(made)")
        let leaf = out.appendingPathComponent("order-type.pem")
        let wwdr = out.appendingPathComponent("wwdr-intermediate.pem")
        let read = try await Self.extensions([leaf, wwdr, Self.realLeaf, Self.appleWWDR])
        func byOID(_ certificate: [String: Any]) -> [String: String] {
            var found: [String: String] = [:]
            for item in (certificate["extensions"] as? [[String: Any]]) ?? [] {
                found[item["oid"] as? String ?? ""] = String(Self.extensionText(item).drop { $0 != " " }.dropFirst())
            }
            return found
        }
        let (devLeaf, devWWDR, realLeaf, realWWDR) = (byOID(read[0]), byOID(read[1]), byOID(read[2]), byOID(read[3]))
        // Exactly Apple's values where they don't depend on the order type or the keys.
        for oid in ["2.5.29.15", "2.5.29.37", "2.5.29.19", "1.2.840.113635.100.6.3.2"] {
            #expect(devLeaf[oid] == realLeaf[oid], "\(oid): \(devLeaf[oid] ?? "absent") vs Apple's \(realLeaf[oid] ?? "absent")")
        }
        let marker = Array("order.com.example.profile".utf8)
        let expectedMarker = "false " + ([0x0C, UInt8(marker.count)] + marker).map { String(format: "%02x", $0) }.joined()
        #expect(devLeaf["1.2.840.113635.100.14.2"] == expectedMarker)
        #expect(devWWDR["1.2.840.113635.100.6.2.1"] == realWWDR["1.2.840.113635.100.6.2.1"])
        // openssl names the purposes as Apple's certificate has them.
        let text = try await ExternalProgram.run(tool: "openssl", ["x509", "-in", leaf.path, "-noout", "-ext", "extendedKeyUsage,keyUsage"])
        #expect(text.output.contains("TLS Web Client Authentication, 1.2.840.113635.100.4.19"), "\(text)")
        #expect(text.output.contains("critical") && text.output.contains("Digital Signature"), "\(text)")
    }
}
