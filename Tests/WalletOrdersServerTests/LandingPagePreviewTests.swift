import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("The Add to Apple Wallet page shows the order's preview")
struct LandingPagePreviewTests {
    @Test(
        "The link's page is the preview: the order's line items and barcode under the button, the viewer's appearance, no findings; Accept-Language picks the words"
    )
    func preview() async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.run { client in
            let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
            let path = try #require(answer.json["path"] as? String)
            let page = try await client.execute(uri: path, method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.init("Content-Security-Policy")!] == LandingPageHostileTests.policy)
            let html = String(buffer: page.body)
            #expect(html.contains(#"<html lang="en" class="auto">"#))
            #expect(html.contains(#"href="\#(path)/order">Add to Apple Wallet</a>"#))
            #expect(html.contains("Trailhead 28L Daypack"))
            #expect(html.contains(#"<svg class="barcode qr""#))
            #expect(html.contains("data:image/png;base64,"))
            #expect(!html.contains("class=\"card findings-list\"") && !html.contains("class=\"findings-none\"") && !html.contains("class=\"finding "))
            #expect(!html.contains("<script"))

            let french = try await client.execute(uri: path, method: .get, headers: [.acceptLanguage: "fr-FR, fr;q=0.9, en;q=0.5"])
            let frenchHTML = String(buffer: french.body)
            #expect(frenchHTML.contains(#"<html lang="fr-FR""#))
            #expect(frenchHTML.contains("Gérer la commande"))
            #expect(frenchHTML.contains(#"href="\#(path)/order">Ajouter à Apple Wallet</a>"#))
            #expect(frenchHTML.contains("192,93"))
        }
    }

    @Test("The customer's page is rendered from the stored archive alone: the preview's page, without validating it again")
    func storedArchiveNotValidatedAgain() throws {
        let archive = try OrderArchive(bytes: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        // A validator that trusts only Apple's roots would refuse this test-signed archive: the
        // stored render never asks it.
        let previewer = OrderPreviewer(validator: try OrderValidator())
        let options = PreviewOptions.customer(language: "fr")
        let stored = previewer.render(stored: archive, options: options)
        #expect(stored.report.diagnostics.isEmpty)
        let validated = previewer.preview(archive, subject: "stored", options: options)
        #expect(validated.report.diagnostics.contains { $0.severity == .error }, "the full preview does validate")
        #expect(stored.html == validated.html)
        #expect(stored.barcodeMessages == validated.barcodeMessages && !stored.barcodeMessages.isEmpty)
    }
}

/// The landing page's button and hints in Chromium at 390 px, light and dark, on the live service.
@Suite("The Add to Apple Wallet page in a browser: Apple's badge by language, the Safari hint, HEAD (live HTTP)", .serialized)
struct LandingPageBrowserTests {
    static let schemes = ["light", "dark"]
    static let iPhoneSafari =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    static let iPhoneChrome =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1"
    static let desktopChrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

    /// The button as the browser shows it: Apple's badge (its language, whether the image loaded)
    /// or the text link; and the Safari hint's text.
    static let probes = [
        "badge": """
        (() => { const a = document.querySelector('a.add-to-wallet-badge'); if (!a) return null; const i = a.querySelector('img');
          return {lang: a.lang, loaded: i.complete && i.naturalWidth > 0, width: i.getBoundingClientRect().width, href: a.getAttribute('href')}; })()
        """,
        "textLink": "document.querySelector('a.add-to-wallet')?.innerText ?? null",
        "hint": "document.querySelector('.open-in-safari')?.innerText ?? null",
    ]

    /// Two stand-ins for Apple's badges (the project can't ship Apple's artwork): SVGs that say
    /// which language they are.
    static func badgeFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("badges")
        for (language, words) in [("en", "Add to Apple Wallet"), ("fr", "Ajouter à Apple Wallet")] {
            let svg = """
                <?xml version="1.0" encoding="UTF-8"?>
                <svg xmlns="http://www.w3.org/2000/svg" width="110" height="35" viewBox="0 0 110 35">
                <rect width="110" height="35" rx="6" fill="#000"/><text x="8" y="22" font-size="10" fill="#fff">\(words)</text></svg>
                """
            _ = try folder.write(Array(svg.utf8), to: "\(language).svg")
        }
        return folder
    }

    static func link(_ client: any TestClientProtocol) async throws -> String {
        let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
        return try #require(answer.json["path"] as? String)
    }

    @Test("Apple's badge in the visitor's language, else English's; without badges the text link", arguments: schemes)
    func badgeByLanguage(_ scheme: String) async throws {
        let folder = try Self.badgeFolder()
        defer { folder.remove() }
        let service = try ServiceUnderTest(walletBadges: try WalletBadges(directory: folder.url))
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.runLive { client in
            let path = try await Self.link(client)
            let url = "http://127.0.0.1:\(try #require(client.port))\(path)"
            // Every language case in light; dark shows the badge once (Chromium launches are the suite's cost).
            let cases = [("fr-CA, fr;q=0.9, en;q=0.5", "fr"), ("de-DE, de;q=0.9", "en"), ("fr;q=0, ja", "en"), ("en-GB", "en")]
            for (accept, expected) in scheme == "light" ? cases : Array(cases.prefix(1)) {
                let report = try await BrowserCheck.run(
                    url, probes: Self.probes, userAgent: Self.iPhoneSafari, acceptLanguage: accept, colorScheme: scheme)
                let badge = try #require(report.probe("badge") as? [String: Any], "no badge for \(accept)")
                #expect(badge["lang"] as? String == expected, "Accept-Language \(accept)")
                #expect(badge["loaded"] as? Bool == true)
                #expect(badge["href"] as? String == path + "/order")
                #expect(report.probe("textLink") == nil && report.probe("hint") == nil)
                #expect(report.console.isEmpty && report.requests.isEmpty && report.brokenImages == 0)
                #expect(report.scrollWidth <= report.clientWidth)
            }
        }

        let plain = try ServiceUnderTest()
        _ = try await plain.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await plain.runLive { client in
            let url = "http://127.0.0.1:\(try #require(client.port))\(try await Self.link(client))"
            let report = try await BrowserCheck.run(url, probes: Self.probes, userAgent: Self.iPhoneSafari, acceptLanguage: "fr", colorScheme: scheme)
            #expect(report.probe("badge") == nil)
            #expect(report.probe("textLink") as? String == "Ajouter à Apple Wallet")
        }
    }

    @Test("An iPhone's Chrome is told to open the page in Safari; Safari and a desktop browser are not", arguments: schemes)
    func safariHint(_ scheme: String) async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.runLive { client in
            let url = "http://127.0.0.1:\(try #require(client.port))\(try await Self.link(client))"
            let agents = [(Self.iPhoneChrome, true), (Self.iPhoneSafari, false), (Self.desktopChrome, false)]
            for (agent, hinted) in scheme == "light" ? agents : Array(agents.prefix(1)) {
                let report = try await BrowserCheck.run(url, probes: Self.probes, userAgent: agent, acceptLanguage: "en-US", colorScheme: scheme)
                let hint = report.probe("hint") as? String
                if hinted {
                    #expect(hint == "To add this order to Apple Wallet, open this page in Safari.", "\(agent)")
                } else {
                    #expect(hint == nil, "\(agent)")
                }
                #expect(report.probe("textLink") as? String == "Add to Apple Wallet")
                #expect(report.scrollWidth <= report.clientWidth)
            }
        }
    }

    @Test("The page and its archive answer HEAD as GET, without the body")
    func head() async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        try await service.run { client in
            let path = try await Self.link(client)
            for uri in [path, path + "/order"] {
                let get = try await client.execute(uri: uri, method: .get)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(get.status == .ok && head.status == .ok, "\(uri)")
                #expect(head.body.readableBytes == 0)
                #expect(head.headers[.contentType] == get.headers[.contentType])
                #expect(head.headers[.contentLength] == "\(get.body.readableBytes)")
            }
            var wrong = path
            wrong.removeLast()
            wrong += path.hasSuffix("A") ? "B" : "A"
            #expect(try await client.execute(uri: wrong, method: .head).status == .notFound)
        }
    }
}
