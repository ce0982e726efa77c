import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct BuildEndToEndTests {
    @Test("build then store save keeps the archive byte for byte as the builder made it; store get gives it back")
    func buildThenSaveIsByteIdentical() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("shipped.order")
        let built = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", out.path, "--signing-time", SharedFixtures.signingTimeText]
                + certs.signingArguments)
        #expect(built.status == 0, "\(built)")
        let identity = try SigningIdentity.load(
            certificateFile: certs.certificate, privateKeyFile: certs.key, intermediateFile: certs.wwdr,
            validAt: SharedFixtures.signingTime)
        let expected = try OrderArchiveBuilder(identity: identity)
            .build(OrderSource(directory: Repository.shippedEcommerce), signingTime: SharedFixtures.signingTime).bytes
        #expect(Array(try Data(contentsOf: out)) == expected)

        let store = folder.file("orders.sqlite").path
        let saved = try await CLI.run(["store", "save", out.path, "--store", store, "--trust-root", certs.rootCA.path])
        #expect(saved.status == 0, "\(saved)")
        let fetched = folder.file("fetched.order")
        let get = try await CLI.run(
            ["store", "get", Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier, "--out", fetched.path, "--store", store])
        #expect(get.status == 0, "\(get)")
        #expect(Array(try Data(contentsOf: fetched)) == expected)
    }

    @Test("build signs the shipped-ecommerce sample into a zip and says so")
    func build() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("shipped.order")
        let result = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", out.path] + certs.signingArguments)
        #expect(result.status == 0, "\(result)")
        let bytes = try Data(contentsOf: out)
        #expect(bytes.starts(with: Array("PK".utf8)))
        #expect(
            result.output
                == "built \(out.path): \(bytes.count) bytes, 7 files, order \(Repository.shippedOrderTypeIdentifier)/\(Repository.shippedOrderIdentifier), signed by Order Type ID: \(Repository.shippedOrderTypeIdentifier)\n"
        )
        #expect(!result.errorOutput.contains("error:"))
    }

    @Test("build --json prints a summary with the order identifier and the manifest")
    func buildJSON() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("shipped.order")
        let result = try await CLI.run(
            [
                "build", Repository.shippedEcommerce.path, "--out", out.path, "--json", "--signing-time",
                SharedFixtures.signingTimeText,
            ]
                + certs.signingArguments)
        #expect(result.status == 0, "\(result)")
        let summary = try #require(try parseJSON(result.standardOutput) as? [String: Any])
        #expect(summary["orderIdentifier"] as? String == Repository.shippedOrderIdentifier)
        #expect(summary["orderTypeIdentifier"] as? String == Repository.shippedOrderTypeIdentifier)
        #expect(summary["path"] as? String == out.path)
        #expect(summary["files"] as? Int == 7)
        #expect(summary["bytes"] as? Int == (try Data(contentsOf: out)).count)
        #expect(summary["signingTime"] as? String == SharedFixtures.signingTimeText)
        let manifest = try #require(summary["manifest"] as? [String: String])
        #expect(manifest.keys.sorted() == ["backpack.png", "bottle.png", "logo.png", "order.json", "socks.png"])
        let hashed = try await ExternalProgram.python(
            "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest(), end='')",
            [Repository.shippedEcommerce.appendingPathComponent("order.json").path])
        #expect(hashed.status == 0)
        let hash = hashed.output
        #expect(hash.count == 64 && manifest["order.json"] == hash)
        #expect((summary["diagnostics"] as? [Any])?.count == 0)
    }

    @Test("The same --signing-time twice gives byte-identical archives")
    func reproducible() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        var outputs: [Data] = []
        for name in ["first.order", "second.order"] {
            let out = folder.file(name)
            let result = try await CLI.run(
                [
                    "build", Repository.shippedEcommerce.path, "--out", out.path, "--signing-time",
                    SharedFixtures.signingTimeText,
                ]
                    + certs.signingArguments)
            #expect(result.status == 0, "\(result)")
            outputs.append(try Data(contentsOf: out))
        }
        #expect(outputs[0].count > 1_000)
        #expect(outputs[0] == outputs[1])
    }

    @Test("--compression store writes every entry stored, and the archive still verifies")
    func storeCompression() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("stored.order")
        let result = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", out.path, "--compression", "store"] + certs.signingArguments)
        #expect(result.status == 0, "\(result)")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                print(sorted({i.compress_type for i in z.infolist()}))
            """
        let python = try await ExternalProgram.python(script, [out.path])
        #expect(python.status == 0, "\(python.errorOutput)")
        #expect(String(decoding: python.standardOutput, as: UTF8.self) == "[0]\n")
    }

    @Test("SOURCE_DATE_EPOCH gives the same archive as the equivalent --signing-time")
    func sourceDateEpoch() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let viaOption = folder.file("option.order")
        let viaEnvironment = folder.file("environment.order")
        let viaSeconds = folder.file("seconds.order")
        let epoch = String(Int(SharedFixtures.signingTime.timeIntervalSince1970))
        let first = try await CLI.run(
            [
                "build", Repository.shippedEcommerce.path, "--out", viaOption.path, "--signing-time",
                SharedFixtures.signingTimeText,
            ]
                + certs.signingArguments)
        let second = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", viaEnvironment.path] + certs.signingArguments,
            environment: ["SOURCE_DATE_EPOCH": epoch])
        let third = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", viaSeconds.path, "--signing-time", epoch]
                + certs.signingArguments,
            environment: ["SOURCE_DATE_EPOCH": "12345"])  // the option wins over the variable
        #expect(first.status == 0, "\(first)")
        #expect(second.status == 0, "\(second)")
        #expect(third.status == 0, "\(third)")
        let reference = try Data(contentsOf: viaOption)
        #expect(try Data(contentsOf: viaEnvironment) == reference)
        #expect(try Data(contentsOf: viaSeconds) == reference)
    }

    @Test("build with the .p12 and its (empty) passphrase gives the same archive as --cert/--key")
    func buildWithPKCS12() async throws {
        let certs = try await SharedFixtures.certs.get()
        let reference = try await SharedFixtures.archive.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("p12.order")
        let result = try await CLI.run(
            [
                "build", Repository.shippedEcommerce.path, "--out", out.path, "--signing-time",
                SharedFixtures.signingTimeText,
                "--p12", certs.p12.path, "--passphrase-env", "EMPTY_PASS",
            ], environment: ["EMPTY_PASS": ""])
        #expect(result.status == 0, "\(result)")
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: reference)))
    }

    @Test("A bad SOURCE_DATE_EPOCH is a usage error")
    func badSourceDateEpoch() async throws {
        let certs = try await SharedFixtures.certs.get()
        let folder = try TemporaryFolder.ofTest
        let out = folder.file("x.order")
        let result = try await CLI.run(
            ["build", Repository.shippedEcommerce.path, "--out", out.path] + certs.signingArguments,
            environment: ["SOURCE_DATE_EPOCH": "last tuesday"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.contains("SOURCE_DATE_EPOCH 'last tuesday' is not a whole number of seconds."))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
