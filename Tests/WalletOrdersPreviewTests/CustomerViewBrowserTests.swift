import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// The page as a customer sees it, in Chromium at 390 px in both appearances, on orders that
/// show each thing a merchant would not ship: findings on the page, notes run together, a wide
/// logo cropped, an image-only localization turning the dates Japanese, a tracking number broken
/// in two, a delivery estimate with a time Wallet doesn't show.
@Suite(.serialized, .temporaryFolder) struct CustomerViewBrowserTests {
    static let appearances: [PreviewOptions.Appearance] = [.light, .dark]

    static func options(_ appearance: PreviewOptions.Appearance, language: String? = nil, findings: Bool = true) -> PreviewOptions {
        PreviewOptions(language: language, appearance: appearance, showsFindings: findings)
    }

    @Test("Notes keep their paragraphs, full width and left-aligned", arguments: appearances)
    func notesParagraphs(_ appearance: PreviewOptions.Appearance) async throws {
        let notes = "Leave the parcel at the side door.\n\nIf nobody answers, the driver calls 555-0100 and tries again the next day."
        let files = try Previews.filesWithFulfillment("shipped-ecommerce", changed: { $0["notes"] = notes })
        let page = Previews.page(files: files, options: Self.options(appearance, findings: false))
        let report = try await BrowserTests.check(
            page.html,
            probes: [
                "notes": """
                [...document.querySelectorAll('.prose')].map(e => ({text: e.innerText, align: getComputedStyle(e).textAlign,
                  width: e.getBoundingClientRect().width, card: e.closest('.card').getBoundingClientRect().width}))
                """
            ])
        let found = try #require(report.probe("notes") as? [[String: Any]])
        let shown = try #require(found.first { ($0["text"] as? String)?.contains("side door") == true })
        let text = try #require(shown["text"] as? String)
        #expect(text.contains("side door.\n\nIf nobody answers"), "the paragraphs ran together: \(text.debugDescription)")
        #expect(shown["align"] as? String == "left")
        let width = try #require(shown["width"] as? Double)
        let card = try #require(shown["card"] as? Double)
        #expect(width >= card - 32 - 1, "the notes are \(width) px in a card of \(card) px")
        #expect(report.scrollWidth <= report.clientWidth)
    }

    @Test("A wide logo is shown whole: its box has the image's proportions, nothing cropped", arguments: appearances)
    func wideLogo(_ appearance: PreviewOptions.Appearance) async throws {
        let folder = try TemporaryFolder.ofTest
        let logo = folder.file("luma.png")
        // A 400 × 100 logo, bars at both ends and LUMA between them (drawn by Pillow, not by us).
        let drawn = try await ExternalProgram.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import sys; from PIL import Image, ImageDraw
                image = Image.new("RGB", (400, 100), "white"); draw = ImageDraw.Draw(image)
                draw.rectangle((0, 0, 40, 99), fill="black"); draw.rectangle((360, 0, 399, 99), fill="black")
                draw.text((180, 45), "LUMA", fill="black"); image.save(sys.argv[1])
                """,
                logo.path,
            ])
        try #require(drawn.status == 0, "\(drawn)")
        var files = try Previews.source("shipped-ecommerce").files
        files["logo.png"] = Array(try Data(contentsOf: logo))
        let page = Previews.page(files: files, options: Self.options(appearance, findings: false))
        let report = try await BrowserTests.check(
            page.html,
            probes: [
                "logo": """
                (() => { const i = document.querySelector('img.logo'); const r = i.getBoundingClientRect();
                  return {width: r.width, height: r.height, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
                    fit: getComputedStyle(i).objectFit}; })()
                """
            ])
        let logoBox = try #require(report.probe("logo") as? [String: Any])
        #expect(logoBox["naturalWidth"] as? Int == 400 && logoBox["naturalHeight"] as? Int == 100)
        let width = try #require(logoBox["width"] as? Double)
        let height = try #require(logoBox["height"] as? Double)
        #expect(abs(width / height - 4) < 0.05, "the logo is shown \(width) × \(height): cropped or squeezed")
        #expect(logoBox["fit"] as? String != "cover")
        #expect(report.brokenImages == 0)
        #expect(report.scrollWidth <= report.clientWidth)
    }

    @Test("A localization of images only doesn't change the page's language; a requested language has its words", arguments: appearances)
    func localeFallback(_ appearance: PreviewOptions.Appearance) async throws {
        var files = try Previews.source("shipped-ecommerce").files
        let logo = files.removeValue(forKey: "logo.png")
        try #require(logo != nil)
        files["ja.lproj/logo.png"] = logo
        let page = Previews.page(files: files, options: Self.options(appearance, findings: false))
        #expect(page.language == "ja")
        #expect(page.pageLanguage == "en")
        let report = try await BrowserTests.check(
            page.html, probes: ["lang": "document.documentElement.lang", "logo": "!!document.querySelector('img.logo')"])
        #expect(report.probe("lang") as? String == "en")
        #expect(report.probe("logo") as? Bool == true, "the logo of ja.lproj is shown")
        #expect(report.brokenImages == 0)
        #expect(report.text.contains("Payment") && report.text.contains("Nov 20, 2025"), "English words and English dates")
        #expect(!report.text.contains("2025年"))

        let japanese = Previews.page(files: files, options: Self.options(appearance, language: "ja", findings: false))
        #expect(japanese.pageLanguage == "ja")
        let shown = try await BrowserTests.check(japanese.html)
        #expect(shown.text.contains("支払い") && shown.text.contains("2025年"), "Japanese words and Japanese dates")
        #expect(!shown.text.contains("Payment"))
    }

    @Test("The customer's page has no findings; with findings each rule is counted at the top and shown once in place", arguments: appearances)
    func customerMode(_ appearance: PreviewOptions.Appearance) async throws {
        // Every amount a JSON number: one money.amount-number warning per amount.
        let files = try Previews.files(
            "shipped-ecommerce",
            changing: { order in
                func numbers(_ value: Any) -> Any {
                    if var object = value as? [String: Any] {
                        for (key, inner) in object { object[key] = key == "amount" ? (Double(inner as? String ?? "") ?? inner) : numbers(inner) }
                        return object
                    }
                    if let array = value as? [Any] { return array.map(numbers) }
                    return value
                }
                for (key, value) in order { order[key] = numbers(value) }
            })
        let withFindings = Previews.page(files: files, options: Self.options(appearance))
        let warnings = withFindings.report.diagnostics.filter { $0.ruleID == "money.amount-number" }.count
        try #require(warnings >= 4, "the order should have a warning per amount")

        let customer = Previews.page(files: files, options: .customer(appearance: appearance))
        #expect(!customer.html.contains("class=\"finding") && !customer.html.contains("class=\"card findings-list"))
        let quiet = try await BrowserTests.check(customer.html, probes: ["height": "document.documentElement.scrollHeight"])
        #expect(!quiet.text.contains("money.amount-number") && !quiet.text.contains("Validation findings"))
        #expect(!quiet.text.contains("Languages"))

        let loud = try await BrowserTests.check(
            withFindings.html,
            probes: [
                "height": "document.documentElement.scrollHeight",
                "listed": "[...document.querySelectorAll('.findings-list li')].map(e => e.innerText)",
                "inPlace": "document.querySelectorAll('p.finding').length",
            ])
        let listed = try #require(loud.probe("listed") as? [String])
        #expect(listed.filter { $0.contains("money.amount-number") }.count == 1, "the rule is listed once: \(listed)")
        #expect(listed.contains { $0.contains("money.amount-number") && $0.contains("× \(warnings)") })
        #expect((loud.probe("inPlace") as? Int ?? 0) >= warnings)
        let quietHeight = try #require(quiet.probe("height") as? Double)
        let loudHeight = try #require(loud.probe("height") as? Double)
        #expect(loudHeight < quietHeight * 1.6, "the findings make the page \(loudHeight) px against \(quietHeight) px")
    }

    @Test("A long tracking number stays on one line; an estimate without a window shows its date only", arguments: appearances)
    func trackingAndEstimate(_ appearance: PreviewOptions.Appearance) async throws {
        let files = try Previews.filesWithFulfillment(
            "shipped-ecommerce",
            changed: { fulfillment in
                fulfillment["trackingNumber"] = "9400111899223344556677889900"
                fulfillment["estimatedDeliveryAt"] = "2025-11-24T17:30:00Z"
                fulfillment.removeValue(forKey: "estimatedDeliveryWindowDuration")
            })
        let page = Previews.page(files: files, options: Self.options(appearance, findings: false))
        let report = try await BrowserTests.check(
            page.html,
            probes: [
                "lines": """
                (() => { const e = document.querySelector('.code-value'); const r = document.createRange(); r.selectNodeContents(e);
                  return r.getClientRects().length; })()
                """
            ])
        #expect(report.probe("lines") as? Int == 1, "the tracking number is broken over lines")
        #expect(report.text.contains("9400111899223344556677889900"))
        #expect(report.text.contains("Nov 24, 2025"))
        #expect(!report.text.contains("5:30"), "Wallet shows no time without a window")
        #expect(report.scrollWidth <= report.clientWidth)

        let windowed = try Previews.source("shipped-ecommerce").files
        #expect(Previews.text(Previews.page(files: windowed, options: Self.options(appearance)).html).contains("4:00"), "a window shows its times")
    }

    @Test("A rule repeated with the same message is one short line after its first, linking to it; the top counts it once")
    func repeatedFinding() throws {
        let files = try Previews.source("shipped-ecommerce").files
        let message = "Wallet shows this amount as given."
        let report = ValidationReport(
            subject: "repeated",
            diagnostics: (0..<3).map {
                Diagnostic("money.example", .warning, message, at: .init(file: "order.json", jsonPointer: "/lineItems/\($0)/price"))
            })
        let html = Previews.previewer.render(files: files, report: report, options: PreviewOptions()).html
        #expect(html.components(separatedBy: message).count - 1 == 2, "once in place and once at the top")
        #expect(html.components(separatedBy: "class=\"finding warning repeated\"").count - 1 == 2)
        #expect(html.contains(##"<a href="#finding-1">again</a>"##))
        #expect(html.contains("× 3"))
    }
}
