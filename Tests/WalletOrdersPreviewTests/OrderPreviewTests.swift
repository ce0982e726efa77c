import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// The page for every sample, read as text: what the customer must be able to read on it.
@Suite struct OrderPreviewTests {
    /// A sample, the language shown, and amounts as the page must write them in that language
    /// (digits and separators; currency signs vary by platform data, so they are checked apart).
    struct Expectation: CustomTestStringConvertible, Sendable {
        var sample: String
        var language: String
        var total: String
        var testDescription: String { "\(sample) in \(language)" }
    }

    static let expectations: [Expectation] = [
        .init(sample: "localized", language: "en", total: "106.90"),
        .init(sample: "localized", language: "fr", total: "106,90"),
        .init(sample: "returns-and-transactions", language: "en", total: "183.95"),
        .init(sample: "returns-and-transactions", language: "fr", total: "183,95"),
        .init(sample: "shipped-ecommerce", language: "en", total: "192.93"),
        .init(sample: "shipped-ecommerce", language: "fr", total: "192,93"),
        .init(sample: "store-pickup", language: "en", total: "13,640"),
        .init(sample: "store-pickup", language: "fr", total: "13 640"),
    ]

    @Test("Every sample is covered by the table")
    func everySampleCovered() {
        #expect(Set(Self.expectations.map(\.sample)) == Set(Repository.sampleNames))
    }

    @Test("The page shows the merchant, statusDescription, each line item's title and the total", arguments: expectations)
    func readableText(_ expectation: Expectation) throws {
        let preview = try Previews.page(expectation.sample, language: expectation.language)
        let order = try Order.decode(from: Data(try Previews.source(expectation.sample).orderJSON ?? []))
        let strings = preview.language.flatMap { try? localizedStrings(expectation.sample, $0) } ?? [:]
        let shown = { (value: String) in strings[value] ?? value }
        let text = Previews.text(preview.html).replacingOccurrences(of: "\u{202F}", with: " ").replacingOccurrences(of: "\u{A0}", with: " ")
        #expect(text.contains(shown(order.merchant.displayName)))
        if let description = order.statusDescription { #expect(text.contains(shown(description))) }
        for item in order.lineItems ?? [] { #expect(text.contains(shown(item.title)), "\(item.title)") }
        #expect(text.contains(expectation.total), "total \(expectation.total) not in: \(text)")
        for fulfillment in order.fulfillments ?? [] {
            if case .shipping(let shipping) = fulfillment, let number = shipping.trackingNumber { #expect(text.contains(number)) }
        }
        if let barcode = order.barcode { #expect(text.contains(barcode.message) || text.contains(shown(barcode.altText ?? ""))) }
    }

    @Test("The page loads nothing: no script, no stylesheet link, no remote image, a CSP of data: images only", arguments: Repository.sampleNames)
    func selfContained(_ sample: String) throws {
        let html = try Previews.page(sample).html
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
        #expect(!html.contains("src=\"http"))
        #expect(html.contains("default-src 'none'; img-src data:"))
        #expect(!html.contains("@font-face"))
    }

    @Test("French shows the fr.lproj strings, French words and the language list with fr chosen")
    func frenchStrings() throws {
        let preview = try Previews.page("localized", language: "fr")
        #expect(preview.languages == ["en", "fr", "zh-Hans"])
        #expect(preview.language == "fr")
        let french = try localizedStrings("localized", "fr")
        let text = Previews.text(preview.html)
        #expect(text.contains(try #require(french["ITEM_1_TITLE"])))
        #expect(text.contains(try #require(french["MERCHANT_NAME"])))
        #expect(text.contains("Gérer la commande"))
        #expect(!text.contains("ITEM_1_TITLE"))
        #expect(preview.html.contains("Langues: en · <b>fr</b> · zh-Hans"))
        #expect(preview.html.contains("<html lang=\"fr\""))
    }

    @Test("A localized image is the chosen language's (@3x when there is one)")
    func localizedImages() throws {
        for language in ["en", "fr", "zh-Hans"] {
            let logo = try Data(contentsOf: Repository.sample("localized").appendingPathComponent("\(language).lproj/logo@3x.png"))
            let html = try Previews.page("localized", language: language).html
            #expect(html.contains("data:image/png;base64,\(logo.base64EncodedString())"), "\(language)")
        }
    }

    @Test("A language the order lacks keeps its default strings but formats for that locale")
    func missingLanguage() throws {
        let preview = try Previews.page("localized", language: "de")
        #expect(preview.language == "en")
        #expect(preview.pageLanguage == "de")
        #expect(Previews.text(preview.html).contains("106,90"))
    }

    @Test("Dates are written for the locale, in the order's own UTC offset")
    func dates() throws {
        // shipped-ecommerce: createdAt 2025-11-18T16:42:10Z.
        #expect(Previews.text(try Previews.page("shipped-ecommerce", language: "en").html).contains("Nov 18, 2025"))
        #expect(Previews.text(try Previews.page("shipped-ecommerce", language: "fr").html).contains("18 nov. 2025"))
        // localized: createdAt 2025-10-06T10:15:00+02:00: 10:15 there, not 08:15.
        #expect(Previews.text(try Previews.page("localized", language: "fr").html).contains("10:15"))
    }

    @Test(
        "Addresses are written as their country writes them, a missing part dropped with its punctuation",
        arguments: [
            (
                Address(addressLines: ["1 E Main St"], administrativeArea: "WI", countryCode: "US", locality: "Madison", postalCode: "53703"),
                ["1 E Main St", "Madison, WI 53703"]
            ),
            (Address(addressLines: ["1 E Main St"], administrativeArea: "WI", countryCode: "us", postalCode: "53703"), ["1 E Main St", "WI 53703"]),
            (
                Address(addressLines: ["18 rue des Archives"], countryCode: "FR", locality: "Paris", postalCode: "75004"),
                ["18 rue des Archives", "75004 Paris"]
            ),
            (
                Address(
                    addressLines: ["14 Rowan Crescent"], administrativeArea: "Avon", countryCode: "GB", locality: "Bristol", postalCode: "BS6 7QA"),
                ["14 Rowan Crescent", "Bristol", "BS6 7QA"]
            ),
            (
                Address(addressLines: ["Via Roma 1"], administrativeArea: "RM", countryCode: "IT", locality: "Roma", postalCode: "00184"),
                ["Via Roma 1", "00184 Roma RM"]
            ),
            (
                Address(addressLines: ["100 Queen St W"], administrativeArea: "ON", countryCode: "CA", locality: "Toronto", postalCode: "M5H 2N2"),
                ["100 Queen St W", "Toronto ON M5H 2N2"]
            ),
            (
                Address(addressLines: ["銀座4-6-16"], administrativeArea: "東京都", countryCode: "JP", locality: "中央区", postalCode: "104-0061"),
                ["〒104-0061", "東京都中央区", "銀座4-6-16"]
            ),
            (
                Address(
                    addressLines: ["4-6-16 Ginza"], administrativeArea: "Tokyo", countryCode: "JP", locality: "Chuo City", postalCode: "104-0061"),
                ["4-6-16 Ginza", "Chuo City, Tokyo 104-0061"]
            ),
            (
                Address(addressLines: ["Unter den Linden 1"], countryCode: "DE", locality: "Berlin", postalCode: "10117"),
                ["Unter den Linden 1", "10117 Berlin"]
            ),
        ])
    func addressFormats(_ address: Address, _ expected: [String]) {
        #expect(AddressFormat.of(address).lines(of: address) == expected)
    }

    @Test("The page writes a US address as the US does, and every time with the offset it is shown in")
    func addressAndZoneOnThePage() throws {
        let english = Previews.text(try Previews.page("shipped-ecommerce", language: "en").html)
        #expect(english.contains("Denver, CO 80205"), "\(english)")
        #expect(!english.contains("80205 Denver"), "\(english)")
        // createdAt 2025-11-18T16:42:10Z: labelled GMT; localized's +02:00 labelled so.
        #expect(english.contains("Nov 18, 2025 at 4:42 PM GMT") || english.contains("Nov 18, 2025, 4:42 PM GMT"), "\(english)")
        let french = Previews.text(try Previews.page("localized", language: "fr").html)
        #expect(french.contains("10:15 UTC+2"), "\(french)")
    }

    @Test("A missing image is marked in its place with validate's finding, inline and at the top")
    func missingImage() throws {
        var files = try Previews.source("shipped-ecommerce").files
        files["logo.png"] = nil
        let preview = Previews.page(files: files)
        let finding = try #require(preview.report.diagnostics.first { $0.location.jsonPointer == "/merchant/logo" })
        #expect(finding.ruleID == "files.missing-reference")
        let header = try #require(preview.html.components(separatedBy: "<header").last?.components(separatedBy: "</header>").first)
        #expect(header.contains("data-missing=\"logo.png\""))
        #expect(header.contains("[files.missing-reference]"))
        let top = try #require(preview.html.components(separatedBy: "<header").first)
        #expect(top.contains("findings-list"))
        #expect(top.contains("<a href=\"#finding-"))
    }

    @Test("A bad value is flagged in its card with the rule id validate gives it")
    func badValue() throws {
        let files = try Previews.files("shipped-ecommerce") { order in
            var fulfillments = order["fulfillments"] as! [[String: Any]]
            fulfillments[0]["status"] = "OnTheWay"
            order["fulfillments"] = fulfillments
        }
        let preview = Previews.page(files: files)
        let expected = OrderPreviewer(validator: Previews.previewer.validator).validator.validate(OrderSource(files: files), subject: "x")
        #expect(preview.report.diagnostics.map(\.ruleID) == expected.diagnostics.map(\.ruleID))
        let finding = try #require(preview.report.diagnostics.first { $0.location.jsonPointer == "/fulfillments/0/status" })
        let card = try #require(
            preview.html.components(separatedBy: "data-pointer=\"/fulfillments/0\"").dropFirst().first?.components(separatedBy: "</section>").first)
        #expect(card.contains("[\(finding.ruleID)]"))
        #expect(card.contains("OnTheWay"))
    }

    @Test("An order.json that isn't an order still gives a page, with the findings")
    func unreadableOrder() {
        let files: [String: [UInt8]] = ["order.json": Array("{\"schemaVersion\": 1}".utf8)]
        let preview = Previews.page(files: files)
        #expect(preview.html.contains("order.json could not be read as an order"))
        #expect(preview.html.contains("[schema.required]"))
    }

    @Test("Each barcode format is drawn as an SVG whose aria-label carries the message", arguments: ["qr", "pdf417", "aztec", "code128"])
    func barcodeFormats(_ format: String) throws {
        let files = try Previews.files("shipped-ecommerce") { order in
            order["barcode"] = ["format": format, "message": "NW-118734", "messageEncoding": "iso-8859-1"]
        }
        let preview = Previews.page(files: files)
        #expect(preview.barcodeMessages == ["NW-118734"])
        #expect(preview.html.contains("<svg class=\"barcode \(format)\""))
        #expect(preview.html.contains("NW-118734\" xmlns"))
    }

    @Test("Dark appearance sets the dark class; light the light one", arguments: PreviewOptions.Appearance.allCases)
    func appearance(_ appearance: PreviewOptions.Appearance) throws {
        let html = try Previews.page("store-pickup", appearance: appearance).html
        let expected = ["light": "light", "dark": "dark", "automatic": "auto"][appearance.rawValue]!
        #expect(html.contains("<html lang=\"en\" class=\"\(expected)\">"))
    }
}
