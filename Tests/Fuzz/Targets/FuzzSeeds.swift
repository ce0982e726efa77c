public import Foundation
import WalletOrders
import WalletOrdersJSON
import WalletPasses

/// The seed corpus of every target, written into a folder per target (`make fuzz-seeds`):
/// files from `Samples/`, the test fixtures and `../shared/conformance/`, plus what only the
/// library can make: archives built from the samples and signed with a development PKI (valid at
/// ``FuzzTarget/now``), their signatures, and that PKI's certificates, keys and `.p12` files.
public enum FuzzSeeds {
    /// The package root, found from this file (`Tests/Fuzz/Targets/`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Writes the seeds into `folder/TARGET/` and returns how many each target got.
    public static func write(to folder: URL) throws -> [FuzzTarget: Int] {
        var seeds: [FuzzTarget: [(name: String, bytes: [UInt8])]] = [:]
        func add(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) { seeds[target, default: []].append((name, bytes)) }

        // Text: order.json files, fixtures, schemas, the conformance suites.
        let samples = root.appendingPathComponent("Samples")
        let conformance = root.deletingLastPathComponent().appendingPathComponent("shared/conformance")
        for file in files(under: samples, extension: "json") + files(under: root.appendingPathComponent("Tests"), extension: "json") {
            let name = flatName(file)
            add(.json, name, file.bytes)
            if file.path.contains("/Samples/") || file.path.contains("/Fixtures/") { add(.schema, name, file.bytes) }
        }
        for file in files(under: root.appendingPathComponent("Schemas"), extension: "json") { add(.json, flatName(file), file.bytes) }
        for file in files(under: conformance.appendingPathComponent("json-parsing-test-suite"), extension: "json")
            + files(under: conformance.appendingPathComponent("json-schema-test-suite"), extension: "json")
        {
            add(.json, flatName(file), file.bytes)
        }
        for file in files(under: samples, extension: "strings") {
            let name = flatName(file)
            add(.strings, name, file.bytes)
            add(.strings, name + ".bom", [0xEF, 0xBB, 0xBF] + file.bytes)
            let units = Array(String(decoding: file.bytes, as: UTF8.self).utf16)
            add(.strings, name + ".utf16le", [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            add(.strings, name + ".utf16be", [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        }

        // Signed archives, signatures and identities from a development PKI valid at `now`.
        let validFrom = FuzzTarget.now.addingTimeInterval(-86_400)
        let authority = try DevelopmentCertificateAuthority(validFrom: validFrom)
        add(.der, "root.pem.der", derOfPEM(authority.rootCertificatePEM))
        let passphrase = IdentityFuzzing.passphrase
        for name in sampleNames(samples) {
            let source = try OrderSource(directory: samples.appendingPathComponent(name))
            guard let order = source.files[OrderArchive.orderPath], let typeID = orderTypeIdentifier(order) else { continue }
            let certificate = try authority.issueOrderTypeCertificate(
                orderTypeIdentifier: typeID, teamIdentifier: "FUZZTEAM01", validFrom: validFrom)
            let identity = try certificate.signingIdentity(validAt: FuzzTarget.now)
            for compression in [ArchiveCompression.deflate, .store] {
                let built = try OrderArchiveBuilder(identity: identity, compression: compression).build(source, signingTime: FuzzTarget.now)
                let archiveName = "\(name)-\(compression).order"
                for target in [FuzzTarget.zip, .validate, .store] { add(target, archiveName, built.bytes) }
                if compression == .store, let signature = try OrderArchive(bytes: built.bytes).contents(of: OrderArchive.signaturePath) {
                    add(.der, "\(name).signature", signature)
                }
            }
            let certificatePEM = Array(certificate.certificatePEM.utf8)
            let chainPEM = certificatePEM + Array(authority.intermediateCertificatePEM.utf8)
            add(.der, "\(name).certificate.der", derOfPEM(certificate.certificatePEM))
            add(.identity, "\(name).pem", [0] + chainPEM + Array(try certificate.privateKeyPEM().utf8))
            add(.identity, "\(name).encrypted.pem", [1] + chainPEM + Array(try certificate.privateKeyPEM(passphrase: passphrase).utf8))
            add(.identity, "\(name).p12", [2] + (try certificate.pkcs12(passphrase: passphrase)))
            add(.identity, "\(name).legacy.p12", [2] + (try certificate.pkcs12(passphrase: passphrase, legacyEncryption: true)))
        }

        // Passes: the real ones beside the repository (../shared/reference/real-passes), their
        // pass.json files and sources, and bundles; and a pass built from Apple's sample with the
        // development PKI.
        let realPasses = root.deletingLastPathComponent().appendingPathComponent("shared/reference/real-passes")
        for file in files(under: realPasses, extension: "pkpass") { add(.pass, flatName(file), file.bytes) }
        for file in files(under: realPasses, extension: "pkpasses") { add(.pkpasses, flatName(file), file.bytes) }
        for file in files(under: realPasses.appendingPathComponent("sources"), extension: "json") where file.path.hasSuffix("/pass.json") {
            add(.passJSON, flatName(file), file.bytes)
        }
        for file in files(under: realPasses.appendingPathComponent("sources"), extension: "strings") {
            add(.strings, flatName(file), file.bytes)
            add(.passStrings, flatName(file), file.bytes)
        }
        let sample = realPasses.appendingPathComponent("sources/apple-devpubs-boardingpass.pass")
        if FileManager.default.fileExists(atPath: sample.path) {
            let source = try PassSource(directory: sample)
            if let json = source.passJSON, let identity = try? PassArchive.identity(of: json), let type = identity.passTypeIdentifier {
                let certificate = try authority.issuePassTypeCertificate(
                    passTypeIdentifier: type, teamIdentifier: identity.teamIdentifier ?? "FUZZTEAM01", validFrom: validFrom)
                let built = try PassArchiveBuilder(identity: try certificate.signingIdentity(validAt: FuzzTarget.now))
                    .build(source, signingTime: FuzzTarget.now)
                add(.pass, "built-boardingpass.pkpass", built.bytes)
            }
        }

        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try schemaDictionary().write(to: folder.appendingPathComponent("order-schema.dict"), atomically: true, encoding: .utf8)

        var counts: [FuzzTarget: Int] = [:]
        for target in FuzzTarget.allCases {
            let targetFolder = folder.appendingPathComponent(target.rawValue, isDirectory: true)
            try FileManager.default.createDirectory(at: targetFolder, withIntermediateDirectories: true)
            for seed in seeds[target] ?? [] {
                try Data(seed.bytes).write(to: targetFolder.appendingPathComponent(seed.name))
            }
            counts[target] = seeds[target]?.count ?? 0
        }
        return counts
    }

    /// A libFuzzer dictionary for order.json: `Dictionaries/json.dict`, then every property name
    /// (quoted, as it appears in JSON) and string value of `Schemas/order.schema.json`.
    static func schemaDictionary() throws -> String {
        var text = try String(contentsOf: root.appendingPathComponent("Tests/Fuzz/Dictionaries/json.dict"), encoding: .utf8)
        text += "# Property names and string values of Schemas/order.schema.json.\n"
        let schema = try Data(contentsOf: root.appendingPathComponent("Schemas/order.schema.json"))
        var words: Set<String> = []
        var pending = JSONParser.parse(Array(schema)).root.map { [$0] } ?? []
        while let node = pending.popLast() {
            switch node.value {
            case .object(let members):
                for member in members {
                    words.insert("\"\(member.key)\":")
                    pending.append(member.value)
                }
            case .array(let elements): pending += elements
            case .string(let value): words.insert("\"\(value)\"")
            default: break
            }
        }
        for word in words.sorted() where word.utf8.count <= 64 {
            let escaped = word.utf8.map { byte in
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): "\\" + String(UnicodeScalar(byte))
                case 0x20..<0x7F: String(UnicodeScalar(byte))
                default: "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }
            }.joined()
            text += "\"\(escaped)\"\n"
        }
        return text
    }

    private struct File {
        var path: String
        var bytes: [UInt8]
    }

    /// Every file under `folder` whose name ends with `.extension`, sorted by path (none when
    /// the folder is missing, as `../shared/conformance` may be).
    private static func files(under folder: URL, extension suffix: String) -> [File] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [File] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix("." + suffix), !relative.contains(".build") else { continue }
            let path = folder.appendingPathComponent(relative).path
            if let data = FileManager.default.contents(atPath: path) { found.append(File(path: path, bytes: Array(data))) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// A file name for `file`'s path relative to the package's parent: `/` becomes `_`.
    private static func flatName(_ file: File) -> String {
        let base = root.deletingLastPathComponent().path + "/"
        let relative = file.path.hasPrefix(base) ? String(file.path.dropFirst(base.count)) : file.path
        return relative.replacingOccurrences(of: "/", with: "_")
    }

    private static func sampleNames(_ samples: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []
        return names.sorted().filter { FileManager.default.fileExists(atPath: samples.appendingPathComponent("\($0)/order.json").path) }
    }

    private static func orderTypeIdentifier(_ order: [UInt8]) -> String? {
        guard let member = JSONParser.parse(order).root?.members?.first(where: { $0.key == "orderTypeIdentifier" }),
            case .string(let value) = member.value.value
        else { return nil }
        return value
    }

    /// The DER bytes of the first PEM block in `pem`.
    private static func derOfPEM(_ pem: String) -> [UInt8] {
        let body = pem.split(separator: "\n").drop { !$0.hasPrefix("-----BEGIN") }.dropFirst().prefix { !$0.hasPrefix("-----END") }
        return Array(Data(base64Encoded: body.joined()) ?? Data())
    }
}
