import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// Every sample's page in a real browser: Debian's headless Chromium, driven over the DevTools
/// protocol by `browser_check.py` (``BrowserCheck``), at an iPhone's 390 px width. The barcodes are read
/// back from screenshots by ZXing-C++ (all four formats) and, for QR and Code 128, also by
/// zbarimg: decoders that share no code with zint, which drew them. (Debian's zbar is built
/// without its unfinished PDF417 decoder and has no Aztec decoder, so those two rest on ZXing.)
///
/// Chromium, zbar-tools, python3-zxing-cpp and python3-pil are installed by `.ci/setup`; when one
/// is missing these tests fail (they never pass without having run the browser).
@Suite(.serialized) struct BrowserTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var sample: String
        var appearance: PreviewOptions.Appearance
        var language: String
        var testDescription: String { "\(sample), \(appearance.rawValue), \(language)" }
    }

    static let cases: [Case] = Repository.sampleNames.flatMap { sample in
        [PreviewOptions.Appearance.light, .dark].flatMap { appearance in
            ["en", "fr"].map { Case(sample: sample, appearance: appearance, language: $0) }
        }
    }

    /// The formats Debian's zbarimg decodes.
    static func zbarReads(_ format: String) -> Bool { format == "qr" || format == "code128" }

    /// The page in Chromium (``BrowserCheck``), its barcodes read back; Chromium is awaited.
    static func check(_ html: String, width: Int = 390, probes: [String: String] = [:]) async throws -> BrowserCheck.Report {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"), "zbarimg is missing: run .ci/setup (zbar-tools)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let page = try folder.write(Array(html.utf8), to: "page.html")
        let barcodes = folder.file("barcodes").path
        return try await BrowserCheck.run(page.path, width: width, probes: probes, barcodeFolder: barcodes)
    }

    @Test("Chromium loads the page with no console error and no load, fits 390 px, shows the order, and every barcode reads back", arguments: cases)
    func samplePage(_ item: Case) async throws {
        let preview = try Previews.page(item.sample, language: item.language, appearance: item.appearance)
        let report = try await Self.check(preview.html)
        #expect(report.console.isEmpty, "console: \(report.console)")
        #expect(report.requests.isEmpty, "requests: \(report.requests)")
        #expect(report.failed.isEmpty, "failed loads: \(report.failed)")
        #expect(report.brokenImages == 0)
        #expect(report.scrollWidth <= report.clientWidth, "overflows: \(report.scrollWidth) > \(report.clientWidth)")
        #expect(report.clientWidth == 390)

        let order = try Order.decode(from: Data(try Previews.source(item.sample).orderJSON ?? []))
        let strings = preview.language.flatMap { try? localizedStrings(item.sample, $0) } ?? [:]
        let text = report.text.replacingOccurrences(of: "\u{202F}", with: " ").replacingOccurrences(of: "\u{A0}", with: " ")
        #expect(text.contains(strings[order.merchant.displayName] ?? order.merchant.displayName))
        for lineItem in order.lineItems ?? [] { #expect(text.contains(strings[lineItem.title] ?? lineItem.title)) }
        let total = try #require(order.payment?.total)
        let digits = total.amount.text.split(separator: ".").first.map(String.init) ?? total.amount.text
        #expect(text.contains(String(digits.suffix(2))), "total \(total.amount) not visible")
        #expect(text.contains(item.language == "fr" ? "Paiement" : "Payment"))

        #expect(report.barcodes.count == preview.barcodeMessages.count)
        for (barcode, message) in zip(report.barcodes, preview.barcodeMessages) {
            #expect(barcode.zxing.contains(message), "ZXing read \(barcode.zxing) from the \(barcode.format) barcode")
            if Self.zbarReads(barcode.format) {
                #expect(barcode.zbar.contains(message), "zbarimg read \(barcode.zbar) from the \(barcode.format) barcode")
            }
        }
    }

    @Test("Each of Wallet's four barcode formats reads back to its message in the browser", arguments: ["qr", "pdf417", "aztec", "code128"])
    func barcodeFormat(_ format: String) async throws {
        let message = format == "code128" ? "NW-118734" : "https://www.northwindoutfitters.example/o/NW-118734"
        let files = try Previews.files("shipped-ecommerce") { order in
            order["barcode"] = ["format": format, "message": message, "messageEncoding": "iso-8859-1", "altText": "NW-118734"]
        }
        let report = try await Self.check(Previews.page(files: files).html)
        let barcode = try #require(report.barcodes.first)
        #expect(barcode.format == format)
        #expect(barcode.zxing == [message])
        if Self.zbarReads(format) { #expect(barcode.zbar == [message]) }
        #expect(report.text.contains("NW-118734"))
    }
}
