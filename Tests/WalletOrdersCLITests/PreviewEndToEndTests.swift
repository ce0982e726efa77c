import Foundation
import Testing
import WalletOrdersTestSupport

/// `wallet-orders preview`, run as a user would run it.
@Suite(.temporaryFolder) struct PreviewEndToEndTests {
    @Test("preview --lang fr --out writes the French page and lists the order's languages")
    func frenchPage() async throws {
        let folder = try TemporaryFolder.ofTest
        let page = folder.file("page.html")
        let result = try await CLI.run(["preview", Repository.sample("localized").path, "--lang", "fr", "--out", page.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("languages: en, fr, zh-Hans (showing fr)"))
        #expect(result.output.contains("findings: 0 errors"))
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("Maison Lumière"))
        #expect(html.contains("Gérer la commande"))
    }

    @Test("preview of a signed archive shows its page with no findings when its root is trusted")
    func archive() async throws {
        let certs = try await SharedFixtures.certs.get()
        let result = try await CLI.run(["preview", try await SharedFixtures.archive.get().path, "--trust-root", certs.rootCA.path])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("<!doctype html>"))
        #expect(result.output.contains("Northwind Outfitters"))
        #expect(result.errorOutput.contains("findings: 0 errors, 0 warnings"))
    }

    @Test("preview --customer says its findings are left off the page, and the validate it names takes the same --trust-root")
    func customerClosingLine() async throws {
        let folder = try TemporaryFolder.ofTest
        let certs = try await SharedFixtures.certs.get()
        // A sample with info findings, and a trust root whose path needs quoting.
        let root = folder.file("my roots/root-ca.pem")
        try FileManager.default.createDirectory(at: root.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: certs.rootCA, to: root)
        let sample = Repository.sample("returns-and-transactions").path
        let page = folder.file("page.html")
        let result = try await CLI.run(["preview", sample, "--customer", "--trust-root", root.path, "--out", page.path])
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains("listed at the top of the page"), "\(result)")
        #expect(
            result.output.contains(
                "(left off the page, as a customer sees it; `wallet-orders validate \(sample) --trust-root '\(root.path)'` lists them)"),
            "\(result)")
        let shown = try await CLI.run(["preview", sample, "--trust-root", root.path, "--out", page.path])
        #expect(
            shown.output.contains("(listed at the top of the page; `wallet-orders validate \(sample) --trust-root '\(root.path)'` explains them)"),
            "\(shown)")
    }

    @Test("preview of an archive whose root is not trusted lists validate's chain finding at the top")
    func untrustedArchive() async throws {
        let result = try await CLI.run(["preview", try await SharedFixtures.archive.get().path])
        #expect(result.status == 0, "\(result)")
        let validate = try await CLI.run(["validate", try await SharedFixtures.archive.get().path, "--format", "json"])
        let report = try parseJSON(validate.standardOutput) as? [String: Any]
        let reports = (report?["reports"] as? [[String: Any]]) ?? []
        let ruleIDs = reports.flatMap { ($0["diagnostics"] as? [[String: Any]]) ?? [] }.compactMap { $0["ruleID"] as? String }
        #expect(!ruleIDs.isEmpty, "\(validate.output)")
        for ruleID in ruleIDs { #expect(result.output.contains("[\(ruleID)]"), "\(ruleID)") }
    }

    @Test("preview --png without Chromium says how to install it and fails")
    func pngWithoutChromium() async throws {
        let folder = try TemporaryFolder.ofTest
        let result = try await CLI.run(
            ["preview", Repository.sample("store-pickup").path, "--png", folder.file("page.png").path],
            environment: ["PATH": folder.url.path, "CHROMIUM": ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("error: Chromium is not installed"))
        #expect(result.errorOutput.contains("hint: Install it (Debian/Ubuntu: sudo apt-get install chromium"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("page.png").path))
    }

    @Test("preview --png renders the page with Chromium: a PNG 780 px wide (390 at 2x)")
    func png() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "Chromium is not installed: run .ci/setup")
        let folder = try TemporaryFolder.ofTest
        let png = folder.file("page.png")
        let result = try await CLI.run(
            ["preview", Repository.sample("shipped-ecommerce").path, "--appearance", "dark", "--png", png.path], timeout: 120)
        #expect(result.status == 0, "\(result)")
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 780)
        #expect(height > 1600, "the whole page, not one screen: \(height) px")
    }

    @Test("preview of a path that doesn't exist fails with the reason; a bad --appearance is a usage error")
    func mistakes() async throws {
        let missing = try await CLI.run(["preview", "no-such-folder"])
        #expect(missing.status == 1)
        #expect(missing.errorOutput.contains("error: 'no-such-folder' does not exist."))
        let usage = try await CLI.run(["preview", Repository.sample("localized").path, "--appearance", "sepia"])
        #expect(usage.status == 64, "\(usage)")
    }
}

/// `wallet-orders preview --serve`: the page on loopback, rendered again when the folder changes.
@Suite(.temporaryFolder) struct PreviewServeEndToEndTests {
    @Test("preview --serve answers on 127.0.0.1 with the page; editing order.json changes /version and the page")
    func serve() async throws {
        let folder = try TemporaryFolder.ofTest
        let source = folder.file("src")
        try FileManager.default.copyItem(at: Repository.sample("store-pickup"), to: source)
        let child = try await BackgroundProgram.tool(["preview", source.path, "--serve", "--port", "0"], outputIn: folder, name: "preview")
        defer { if child.isRunning { child.kill() } }
        let base = try await child.waitUntil("the page's address", timeout: 60 * TestTiming.scale) { printed in
            printed.output.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression).map { String(printed.output[$0]) }
        }
        let page = try await HTTPClient.request("GET", base)
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("Komorebi Stationery"))
        #expect(html.contains("fetch(\"/version\""))
        let version = String(decoding: try await HTTPClient.request("GET", base + "version").body, as: UTF8.self)
        #expect(html.contains("!== \"\(version)\""))

        let orderJSON = source.appendingPathComponent("order.json")
        let edited = try String(contentsOf: orderJSON, encoding: .utf8).replacingOccurrences(of: "Komorebi Stationery", with: "Komorebi Paper")
        try Data(edited.utf8).write(to: orderJSON)
        let newVersion = String(decoding: try await HTTPClient.request("GET", base + "version").body, as: UTF8.self)
        #expect(newVersion != version)
        let newPage = String(decoding: try await HTTPClient.request("GET", base).body, as: UTF8.self)
        #expect(newPage.contains("Komorebi Paper"))
        #expect(!newPage.contains("Komorebi Stationery"))
        child.send(SIGTERM)
        #expect(try await child.wait(timeout: 30) == 0)
    }

    @Test("In Chromium, the served page shows no console error, loads nothing from elsewhere, and reloads itself after an edit")
    func serveInBrowser() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "Chromium is not installed: run .ci/setup")
        let folder = try TemporaryFolder.ofTest
        let source = folder.file("src")
        try FileManager.default.copyItem(at: Repository.sample("shipped-ecommerce"), to: source)
        let child = try await BackgroundProgram.tool(
            ["preview", source.path, "--serve", "--port", "0", "--appearance", "dark"], outputIn: folder, name: "preview")
        defer { if child.isRunning { child.kill() } }
        let base = try await child.waitUntil("the page's address", timeout: 60 * TestTiming.scale) { printed in
            printed.output.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression).map { String(printed.output[$0]) }
        }
        let script = BrowserCheck.script
        let result = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [script.path, base, "--edit", source.appendingPathComponent("order.json").path, "Northwind Outfitters", "Northwind Trading"],
            timeout: 120)
        try #require(result.status == 0, "\(result)")
        let report = try #require(try parseJSON(result.standardOutput) as? [String: Any])
        #expect((report["console"] as? [String]) == [], "\(report["console"] ?? "")")
        #expect((report["requests"] as? [String]) == [], "\(report["requests"] ?? "")")
        #expect((report["failed"] as? [String]) == [])
        #expect((report["text"] as? String)?.contains("Northwind Outfitters") == true)
        #expect((report["editedText"] as? String)?.contains("Northwind Trading") == true, "the page did not reload with the edit")
    }

    @Test("--serve takes neither --out nor --png; --port needs --serve")
    func serveUsage() async throws {
        let result = try await CLI.run(["preview", Repository.sample("store-pickup").path, "--serve", "--out", "x.html"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorOutput.contains("--serve shows the page in a browser; it takes neither --out nor --png."))
        let port = try await CLI.run(["preview", Repository.sample("store-pickup").path, "--port", "8081"])
        #expect(port.status == 64, "\(port)")
        #expect(port.errorOutput.contains("--port applies to --serve only."))
    }

    @Test("--customer leaves the findings and the language list out; a bad --base-language is a usage error")
    func customerPage() async throws {
        let sample = Repository.sample("localized").path
        let withFindings = try await CLI.run(["preview", sample])
        #expect(withFindings.status == 0, "\(withFindings)")
        #expect(withFindings.output.contains("class=\"languages\""))
        let customer = try await CLI.run(["preview", sample, "--customer"])
        #expect(customer.status == 0, "\(customer)")
        #expect(!customer.output.contains("class=\"languages\"") && !customer.output.contains("class=\"card findings-list"))
        #expect(!customer.output.contains("class=\"findings-none\"") && !customer.output.contains("class=\"finding "))
        let bad = try await CLI.run(["preview", sample, "--base-language", "en us"])
        #expect(bad.status == 64, "\(bad)")
    }
}
