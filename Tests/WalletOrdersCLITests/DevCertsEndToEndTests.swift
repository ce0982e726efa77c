import Foundation
import Testing
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct DevCertsEndToEndTests {
    static let fileNames = [
        "root-ca.pem", "wwdr-intermediate.pem", "order-type.pem", "order-type.key.pem", "order-type.p12", "README.txt",
    ]

    @Test("dev-certs writes the six files, marked TEST ONLY, with the key readable by its owner only")
    func writesFiles() async throws {
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("certs")
        let result = try await CLI.run([
            "dev-certs", "--order-type-id", "order.com.example.shop", "--team-id", "ABCDE12345", "--out", out.path,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.output.hasPrefix(
                "wrote TEST-ONLY certificates for order.com.example.shop (team ABCDE12345) to \(out.path)/:\n"))
        for name in Self.fileNames {
            #expect(result.output.contains("\n  \(name)\n"), "\(name) not listed")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == Self.fileNames.sorted())

        for name in ["root-ca.pem", "wwdr-intermediate.pem", "order-type.pem"] {
            let text = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            #expect(text.hasPrefix("# TEST ONLY: made by `wallet-orders dev-certs`."), "\(name)")
            #expect(text.contains("-----BEGIN CERTIFICATE-----"), "\(name)")
        }
        let readme = try String(contentsOf: out.appendingPathComponent("README.txt"), encoding: .utf8)
        #expect(readme.hasPrefix("TEST ONLY."))
        let subjectLine = try #require(readme.split(separator: "\n").first { $0.hasPrefix("Signing certificate: ") })
        for part in ["UID=order.com.example.shop", "CN=Order Type ID: order.com.example.shop", "OU=ABCDE12345", "C=US"] {
            #expect(subjectLine.contains(part), "\(subjectLine)")
        }
        let key = try String(contentsOf: out.appendingPathComponent("order-type.key.pem"), encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))

        func mode(_ name: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(name).path)
            return try #require(attributes[.posixPermissions] as? Int) & 0o777
        }
        #expect(try mode("order-type.key.pem") == 0o600)
        #expect(try mode("order-type.p12") == 0o600)
        #expect(try mode("root-ca.pem") == 0o644)
        #expect(try mode("order-type.pem") == 0o644)
    }

    @Test("dev-certs refuses to overwrite without --force and replaces with it")
    func refusesToOverwrite() async throws {
        let folder = try TemporaryFolder.ofTest
        let arguments = [
            "dev-certs", "--order-type-id", "order.com.example.shop", "--team-id", "ABCDE12345", "--out", folder.url.path,
        ]
        let first = try await CLI.run(arguments)
        #expect(first.status == 0, "\(first)")
        let root = folder.file("root-ca.pem")
        let original = try Data(contentsOf: root)

        let again = try await CLI.run(arguments)
        #expect(again.status == 1, "\(again)")
        #expect(again.output == "")
        let lines = again.errorOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "error: '\(folder.url.path)' already holds \(Self.fileNames.joined(separator: ", ")).")
        #expect(lines.last == "hint: Choose another --out folder, or pass --force to replace them.")
        #expect(try Data(contentsOf: root) == original)

        let forced = try await CLI.run(arguments + ["--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(try Data(contentsOf: root) != original)  // a new root key, so a new certificate
    }

    @Test("The .p12 is encrypted with the passphrase from --p12-passphrase-env")
    func p12Passphrase() async throws {
        let folder = try TemporaryFolder.ofTest
        let made = try await CLI.run(
            [
                "dev-certs", "--order-type-id", "order.com.example.shop", "--team-id", "ABCDE12345", "--out",
                folder.url.path,
                "--p12-passphrase-env", "DEV_P12_PASS",
            ], environment: ["DEV_P12_PASS": "s3cret phrase"])
        #expect(made.status == 0, "\(made)")
        let p12 = folder.file("order-type.p12").path
        let wrong = try await ExternalProgram.run(tool: "openssl", ["pkcs12", "-in", p12, "-noout", "-passin", "pass:"])
        #expect(wrong.status != 0)
        let right = try await ExternalProgram.run(
            tool: "openssl", ["pkcs12", "-in", p12, "-noout", "-passin", "pass:s3cret phrase"])
        #expect(right.status == 0, "\(right.errorOutput)")
    }
}
