import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders init`: a new source folder that validates clean, signs with `dev-certs`
/// certificates and validates clean again as an archive; and the README's "Your first order",
/// run as written.
@Suite(.temporaryFolder) struct InitEndToEndTests {
    /// Whether `result` printed a warning (a finding or a message), not counting "0 warnings".
    static func hasWarning(_ result: ProgramResult) -> Bool {
        (result.output + result.errorOutput).contains("warning[") || (result.output + result.errorOutput).contains("warning:")
    }

    /// The findings-free verdict of `validate` for `path`.
    static func expectClean(_ result: ProgramResult, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(result.output.contains("\(path): OK (0 errors, 0 warnings)"), "\(result)", sourceLocation: sourceLocation)
        #expect(!hasWarning(result), "\(result)", sourceLocation: sourceLocation)
    }

    @Test(
        "init writes a source that validates clean, builds with dev-certs and validates clean as an archive",
        arguments: ["ecommerce", "pickup"])
    func initBuildsClean(type: String) async throws {
        let folder = try TemporaryFolder.ofTest
        let source = folder.file("my-order").path
        let made = try await CLI.run(["init", source, "--order-type-id", "order.com.example.shop", "--type", type])
        #expect(made.status == 0, "\(made)")
        #expect(made.output.hasPrefix("wrote an order source (\(type)) for order.com.example.shop/ORDER-1 to \(source)/:\n"), "\(made)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: source).sorted() == ["item.png", "logo.png", "order.json"])
        let order = try #require(try parseJSON(Data(contentsOf: folder.file("my-order/order.json"))) as? [String: Any])
        #expect(order["orderTypeIdentifier"] as? String == "order.com.example.shop")
        let fulfillment = try #require((order["fulfillments"] as? [[String: Any]])?.first)
        #expect(fulfillment["fulfillmentType"] as? String == (type == "pickup" ? "pickup" : "shipping"))

        Self.expectClean(try await CLI.run(["validate", source]), source)

        let certs = folder.file("certs")
        let madeCerts = try await CLI.run(["dev-certs", "--order-type-id", source, "--team-id", "ABCDE12345", "--out", certs.path])
        try #require(madeCerts.status == 0, "\(madeCerts)")
        let archive = folder.file("my-order.order").path
        let built = try await CLI.run(["build", source, "--out", archive] + DevCertsFolder(directory: certs).signingArguments)
        #expect(built.status == 0, "\(built)")
        #expect(!Self.hasWarning(built), "\(built)")
        Self.expectClean(
            try await CLI.run(["validate", archive, "--trust-root", certs.appendingPathComponent("root-ca.pem").path]), archive)
    }

    @Test("init refuses a folder that isn't empty (and a file), writing nothing; an empty folder is fine")
    func refusesNonEmptyFolder() async throws {
        let folder = try TemporaryFolder.ofTest
        let existing = folder.file("existing")
        _ = try folder.write(Array("mine".utf8), to: "existing/notes.txt")
        let refused = try await CLI.run(["init", existing.path, "--order-type-id", "order.com.example.shop"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.output == "")
        #expect(
            refused.errorOutput == """
                error: '\(existing.path)' is not empty (it holds notes.txt); init writes only into a new or empty folder.
                hint: Give init a new folder (it is made), or an empty one.

                """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: existing.path) == ["notes.txt"])

        let file = existing.appendingPathComponent("notes.txt").path
        let onFile = try await CLI.run(["init", file, "--order-type-id", "order.com.example.shop"])
        #expect(onFile.status == 1, "\(onFile)")
        #expect(onFile.errorOutput.hasPrefix("error: '\(file)' exists and is not a folder.\nhint: "), "\(onFile)")

        let empty = folder.file("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        let made = try await CLI.run(["init", empty.path, "--order-type-id", "order.com.example.shop", "--type", "pickup"])
        #expect(made.status == 0, "\(made)")

        let unknownType = try await CLI.run(["init", folder.file("x").path, "--order-type-id", "order.com.example.shop", "--type", "instore"])
        #expect(unknownType.status == 64, "\(unknownType)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x").path))
    }

    @Test(
        "init writes an order that can be updated: a webServiceURL and a fresh random authenticationToken; without one, validate and store devices say why no device registers"
    )
    func initWritesAnUpdatableOrder() async throws {
        let folder = try TemporaryFolder.ofTest
        func order(_ name: String) async throws -> [String: Any] {
            try #require(try parseJSON(Data(contentsOf: folder.file("\(name)/order.json"))) as? [String: Any])
        }
        let first = try await CLI.run(["init", folder.file("a").path, "--order-type-id", "order.com.example.shop"])
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("webServiceURL is the placeholder https://orders.example.com: set it"), "\(first)")
        _ = try await CLI.run(["init", folder.file("b").path, "--order-type-id", "order.com.example.shop"])
        let (a, b) = await (try order("a"), try order("b"))
        #expect(a["webServiceURL"] as? String == "https://orders.example.com")
        let token = try #require(a["authenticationToken"] as? String)
        #expect(token.count == 32 && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, "\(token)")
        #expect(b["authenticationToken"] as? String != token, "each init draws its own token")

        // --web-service-url: published without a trailing slash; anything but https:// is refused, writing nothing.
        let given = try await CLI.run(
            ["init", folder.file("c").path, "--order-type-id", "order.com.example.shop", "--web-service-url", "https://orders.example.net/wallet/"])
        #expect(given.status == 0, "\(given)")
        #expect(try await order("c")["webServiceURL"] as? String == "https://orders.example.net/wallet")
        Self.expectClean(try await CLI.run(["validate", folder.file("c").path]), folder.file("c").path)
        for refused in ["http://orders.example.net", "HTTPS://orders.example.net", "https://", "https://orders.example.net/?a=b"] {
            let result = try await CLI.run(["init", folder.file("d").path, "--order-type-id", "order.com.example.shop", "--web-service-url", refused])
            #expect(result.status == 64, "\(refused): \(result)")
            #expect(result.errorOutput.contains("--web-service-url"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("d").path))
        }

        // Without webServiceURL (and its token): an info finding, still OK; store devices says why no device registers.
        let source = folder.file("a")
        var stripped = a
        stripped["webServiceURL"] = nil
        stripped["authenticationToken"] = nil
        try JSONSerialization.data(withJSONObject: stripped, options: [.prettyPrinted, .sortedKeys]).write(
            to: source.appendingPathComponent("order.json"))
        let validated = try await CLI.run(["validate", source.path])
        #expect(validated.status == 0, "\(validated)")
        #expect(validated.output.contains("info[order.no-web-service]"), "\(validated)")
        #expect(validated.output.contains("Wallet won't ask any service for updates to this order"), "\(validated)")

        let certs = folder.file("certs")
        try #require(try await CLI.run(["dev-certs", "--order-type-id", source.path, "--team-id", "ABCDE12345", "--out", certs.path]).status == 0)
        let archive = folder.file("a.order").path
        let built = try await CLI.run(["build", source.path, "--out", archive] + DevCertsFolder(directory: certs).signingArguments)
        try #require(built.status == 0, "\(built)")
        let store = folder.file("orders.sqlite").path
        let trust = ["--trust-root", certs.appendingPathComponent("root-ca.pem").path]
        let saved = try await CLI.run(["store", "save", archive, "--store", store] + trust)
        try #require(saved.status == 0, "\(saved)")
        // A new store is said to be new (a misspelt --store would otherwise fill a new file without a word); an existing one isn't.
        #expect(saved.errorOutput.contains("note: there was no store at \(store); a new one was created there."), "\(saved)")
        let again = try await CLI.run(["store", "save", archive, "--store", store] + trust)
        #expect(again.status == 0 && !again.errorOutput.contains("a new one was created"), "\(again)")
        let devices = try await CLI.run(["store", "devices", "--store", store, "order.com.example.shop/ORDER-1"])
        #expect(devices.status == 0, "\(devices)")
        #expect(devices.output.contains("No device has registered for it.\nNo device can: the stored order.json has no webServiceURL"), "\(devices)")
    }

    /// The first `sh` block of the README's "Your first order" section.
    static func firstOrderCommands() throws -> String {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## Your first order\n"))
        let start = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test("The README's \"Your first order\" runs as written in a fresh folder: init, validate, dev-certs, build, validate, all clean")
    func readmeFirstOrderRuns() async throws {
        let commands = try Self.firstOrderCommands()
        #expect(commands.hasPrefix("wallet-orders init "), "the section starts with init:\n\(commands)")
        let folder = try TemporaryFolder.ofTest
        // `wallet-orders` is the built binary: its folder goes first on PATH, as `make install` would put it.
        let binary = try WalletOrdersBinary.url()
        var environment = CLI.environment([:])
        environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try await ExternalProgram.run(
            tool: "bash", ["-euo", "pipefail", "-c", commands], environment: environment, in: folder.url)
        #expect(result.status == 0, "\(result)")
        #expect(!Self.hasWarning(result), "\(result)")
        #expect(result.output.contains("my-order: OK (0 errors, 0 warnings)"), "\(result)")
        #expect(result.output.contains("my-order.order: OK (0 errors, 0 warnings)"), "\(result)")
        #expect(FileManager.default.fileExists(atPath: folder.file("my-order.order").path))
    }
}
