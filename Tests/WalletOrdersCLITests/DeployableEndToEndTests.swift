import Foundation
import Testing
import WalletOrdersTestSupport

/// The binary as it is deployed: alone in a folder with no build folder's resources to fall back
/// on, and installed by `make install-files` with its man page and shell completions.
@Suite(.temporaryFolder) struct DeployableEndToEndTests {
    /// Resource bundles SwiftPM put next to the built binary (none since the schemas and
    /// certificates are compiled in; a stale one from an older build may still be there).
    static func resourceBundles(besides binary: URL) -> [URL] {
        let folder = binary.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") }
            .map { folder.appendingPathComponent($0) }
    }

    @Test("The binary copied into an empty folder with its runtime libraries only, resource bundles moved away, validates a sample and an archive")
    func binaryRunsAlone() async throws {
        let original = try WalletOrdersBinary.url()
        let folder = try TemporaryFolder.ofTest
        let alone = folder.file("bin/wallet-orders")
        try FileManager.default.createDirectory(at: alone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: original, to: alone)
        // The Swift runtime it loads, where `make install` puts it (lib/wallet-orders beside bin/).
        let runtime = try await ExternalProgram.run(
            tool: "bash", [".ci/runtime", "copy", original.path, folder.file("lib/wallet-orders").path], in: Repository.root)
        #expect(runtime.status == 0, "\(runtime)")
        var moved: [(URL, URL)] = []
        defer { for (from, to) in moved { try? FileManager.default.moveItem(at: to, to: from) } }
        for bundle in Self.resourceBundles(besides: original) {
            let away = folder.file("moved-" + bundle.lastPathComponent)
            try FileManager.default.moveItem(at: bundle, to: away)
            moved.append((bundle, away))
        }
        let sample = folder.file("shipped-ecommerce")
        try FileManager.default.copyItem(at: Repository.shippedEcommerce, to: sample)
        let archive = try await SharedFixtures.archive.get()
        let certs = try await SharedFixtures.certs.get()

        let result = try await ExternalProgram.run(
            alone, ["validate", "shipped-ecommerce", archive.path, "--trust-root", certs.rootCA.path],
            environment: CLI.environment([:]), in: folder.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("shipped-ecommerce: OK (0 errors, 0 warnings)"), "\(result.output)")
        #expect(result.output.contains("shipped-ecommerce.order: OK (0 errors, 0 warnings)"), "\(result.output)")
        // Without --trust-root only the built-in Apple Root CA is trusted: the test chain isn't.
        let untrusted = try await ExternalProgram.run(
            alone, ["verify", archive.path], environment: CLI.environment([:]), in: folder.url)
        #expect(untrusted.status == 1, "\(untrusted)")
        #expect(untrusted.errorOutput.contains("Apple") || untrusted.output.contains("Apple"), "\(untrusted)")
    }

    @Test("A program on the core library and the store (the server example) doesn't link libzint; the tool, which previews, does")
    func coreDoesNotLinkLibzint() async throws {
        let tool = try WalletOrdersBinary.url()
        let example = tool.deletingLastPathComponent().appendingPathComponent("wallet-orders-server-example")
        try #require(FileManager.default.fileExists(atPath: example.path), "the tests' build builds \(example.path)")
        func needed(_ binary: URL) async throws -> [String] {
            let dynamic = try await ExternalProgram.run(tool: "readelf", ["--dynamic", "--wide", binary.path])
            try #require(dynamic.status == 0, "\(dynamic)")
            return dynamic.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map(String.init)
        }
        let exampleLibraries = try await needed(example)
        #expect(exampleLibraries.contains { $0.contains("libzip") }, "\(exampleLibraries)")
        #expect(!exampleLibraries.contains { $0.contains("libzint") }, "\(exampleLibraries)")
        #expect(try await needed(tool).contains { $0.contains("libzint") })
    }

    @Test("make install-files PREFIX=… installs the binary stripped, a man page groff renders, and bash/zsh/fish completions")
    func installIntoTemporaryPrefix() async throws {
        let binary = try WalletOrdersBinary.url()
        let folder = try TemporaryFolder.ofTest
        let prefix = folder.file("prefix")
        let make = try await ExternalProgram.run(
            tool: "make", ["--no-print-directory", "install-files", "PREFIX=\(prefix.path)", "BINARY=\(binary.path)"],
            in: Repository.root)
        try #require(make.status == 0, "\(make)")

        let installed = prefix.appendingPathComponent("bin/wallet-orders")
        let help = try await ExternalProgram.run(installed, ["--help"], environment: CLI.environment([:]))
        #expect(help.status == 0 && help.output.contains("SUBCOMMANDS"), "\(help)")
        // The installed copy is stripped (`install -s`); the build it came from keeps its symbols.
        let sections = try await ExternalProgram.run(tool: "readelf", ["-S", "-W", installed.path])
        #expect(sections.status == 0 && !sections.output.contains(".symtab"), "\(sections.output.suffix(2000))")
        let original = try await ExternalProgram.run(tool: "readelf", ["-S", "-W", binary.path])
        #expect(original.output.contains(".symtab"), "install-files stripped \(binary.path) itself")

        let manPage = prefix.appendingPathComponent("share/man/man1/wallet-orders.1")
        let rendered = try await ExternalProgram.run(
            tool: "groff", ["-mandoc", "-Tutf8", "-ww", "-z", manPage.path], environment: CLI.environment([:]))
        #expect(rendered.status == 0 && rendered.errorOutput.isEmpty, "groff warns: \(rendered)")
        let text = try await ExternalProgram.run(
            tool: "groff", ["-mandoc", "-Tascii", "-P-cbou", manPage.path], environment: CLI.environment([:]))
        for expected in ["wallet-orders build", "wallet-orders validate", "wallet-orders store save", "--trust-root"] {
            #expect(text.output.contains(expected), "the man page lacks '\(expected)'")
        }

        let bash = prefix.appendingPathComponent("share/bash-completion/completions/wallet-orders")
        let syntax = try await ExternalProgram.run(tool: "bash", ["-n", bash.path])
        #expect(syntax.status == 0, "\(syntax)")
        #expect(
            try String(contentsOf: bash, encoding: .utf8).contains("complete -o filenames -F _wallet-orders wallet-orders")
                || String(contentsOf: bash, encoding: .utf8).contains("_wallet-orders"))
        let zsh = try String(contentsOf: prefix.appendingPathComponent("share/zsh/site-functions/_wallet-orders"), encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef wallet-orders"), "\(zsh.prefix(80))")
        let fish = try String(
            contentsOf: prefix.appendingPathComponent("share/fish/vendor_completions.d/wallet-orders.fish"), encoding: .utf8)
        #expect(fish.contains("complete -c 'wallet-orders'") || fish.contains("complete -c wallet-orders"), "\(fish.prefix(200))")
    }
}
