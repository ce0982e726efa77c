import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// The attacker's tests: every string `order.json` and `order.strings` carry, every image and
/// every barcode may be hostile. The page must stay inert (no markup, script, style or link of
/// the attacker's), its Content-Security-Policy must hold in a real browser, and rendering must
/// finish in bounded time and size.
@Suite struct HostileInputTests {
    // MARK: - Payloads

    /// What goes into every text field.
    static let textPayloads: [String] = [
        #"</style><script>console.error("pwned")</script>"#,
        #""><script>console.error("pwned")</script>"#,
        #"'><img src=x onerror=console.error("pwned")>"#,
        #"</title><script>console.error("pwned")</script><title>"#,
        #"<svg onload=console.error("pwned")></svg>"#,
        #"x" style="background:url(https://evil.example/css)" data-x=""#,
        #"</style><style>*{background:url(https://evil.example/bg)}body{width:expression(alert(1))}</style>"#,
        #"<!-- <base href="https://evil.example/"> ]]> <a href="javascript:alert(1)">x</a>"#,
        #"<meta http-equiv="refresh" content="0;url=https://evil.example/">"#,
        #"&lt;script&gt; &amp; &#x3C;script&#x3E;"#,
    ]

    /// What goes into every URL field (orderManagementURL, trackingURL, merchant url, …).
    static let urlPayloads: [String] = [
        "javascript:console.error('pwned')",
        "JaVaScRiPt:console.error('pwned')",
        " javascript:console.error('pwned')",
        "\tjava\nscript:console.error('pwned')",
        "data:text/html,<script>console.error('pwned')</script>",
        "vbscript:msgbox(1)",
        "//evil.example/x",
        #"https://ok.example/"><script>console.error("pwned")</script>"#,
        "https://ok.example/' onmouseover='console.error(1)",
    ]

    /// Keys whose values must keep their type for `order.json` to decode as an order (dates,
    /// enumerations, amounts, identifiers), so that the page is really rendered with the rest.
    static let structural: Set<String> = [
        "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "createdAt", "updatedAt", "status",
        "fulfillmentType", "shippingType", "shippedAt", "deliveredAt", "estimatedDeliveryAt", "estimatedDeliveryWindowDuration",
        "pickupAt", "pickupWindowDuration", "pickedUpAt", "dropOffBy", "returnDeadline", "currency", "amount",
        "transactionType", "format", "messageEncoding", "countryCode", "webServiceURL", "authenticationToken",
        "merchantIdentifier", "associatedApplicationIdentifiers", "fulfillmentIdentifier", "returnIdentifier",
        "transactionIdentifier", "latitude", "longitude", "changeNotifications", "initiatedAt", "returnedAt",
    ]
    static let urlKeys: Set<String> = [
        "url", "orderManagementURL", "trackingURL", "contactURL", "returnManagementURL", "returnPolicyURL", "launchURL",
    ]

    /// `value` with every string replaced: URL keys by `url`, other non-structural keys by `text`.
    static func poison(_ value: Any, key: String?, text: String, url: String) -> Any {
        switch value {
        case let object as [String: Any]:
            return Dictionary(uniqueKeysWithValues: object.map { ($0.key, poison($0.value, key: $0.key, text: text, url: url)) })
        case let array as [Any]:
            return array.map { poison($0, key: key, text: text, url: url) }
        case is String:
            guard let key, !structural.contains(key) else { return value }
            return urlKeys.contains(key) ? url : text
        default:
            return value
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var sample: String
        var text: String
        var url: String
        var testDescription: String { "\(sample): \(text.debugDescription) / \(url.debugDescription)" }
    }

    static let cases: [Case] = Repository.sampleNames.flatMap { sample in
        textPayloads.indices.map { index in
            Case(sample: sample, text: textPayloads[index], url: urlPayloads[index % urlPayloads.count])
        }
    }

    // MARK: - What an inert page is

    static func matches(_ pattern: String, in html: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap {
            Range($0.range(at: 1), in: html).map { String(html[$0]) }
        }
    }

    /// The page's markup is only ours: one style element, no script, no event handler, no inline
    /// style but the barcodes' aspect ratio, and every `href`/`src` of an allowed kind.
    static func expectInert(_ html: String, live: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.components(separatedBy: "<script").count - 1 == (live ? 1 : 0), sourceLocation: sourceLocation)
        #expect(html.components(separatedBy: "<style").count - 1 == 1, sourceLocation: sourceLocation)
        #expect(html.components(separatedBy: "</style").count - 1 == 1, sourceLocation: sourceLocation)
        #expect(html.components(separatedBy: "<meta").count - 1 == 3, sourceLocation: sourceLocation)
        #expect(html.components(separatedBy: "<title").count - 1 == 1, sourceLocation: sourceLocation)
        #expect(!html.contains("<base") && !html.contains("<img src=x") && !html.contains("<!--"), sourceLocation: sourceLocation)
        // Outside the style element, every `<` starts one of our tags: a name, then attributes
        // each `name` or `name="value"` (no quote inside), nothing else; none is an event handler.
        let styleStart = html.range(of: "<style>")?.upperBound ?? html.startIndex
        let styleEnd = html.range(of: "</style>")?.lowerBound ?? html.startIndex
        let markup = String(html[..<styleStart]) + String(html[styleEnd...])
        let tag = /<(?:!doctype html|\/[a-z0-9]+|[a-z][a-z0-9]*((?:\s+[a-zA-Z:-]+(?:="[^"<>]*")?)*)\s*\/?)>/
        var attributeNames: [String] = []
        var rest = Substring(markup)
        while let open = rest.firstIndex(of: "<") {
            guard let found = rest[open...].prefixMatch(of: tag) else {
                Issue.record("not one of our tags: \(rest[open...].prefix(120))", sourceLocation: sourceLocation)
                break
            }
            if let attributes = found.output.1 {
                attributeNames += attributes.matches(of: /\s+([a-zA-Z:-]+)(?:="[^"]*")?/).map { String($0.output.1) }
            }
            rest = rest[found.range.upperBound...]
        }
        let handlers = attributeNames.filter { $0.lowercased().hasPrefix("on") }
        #expect(handlers.isEmpty, "event handler attributes: \(handlers)", sourceLocation: sourceLocation)
        for style in matches(#"\sstyle="([^"]*)""#, in: html) {
            #expect(style.wholeMatch(of: /aspect-ratio: [0-9.]+ \/ [0-9.]+/) != nil, "inline style \(style)", sourceLocation: sourceLocation)
        }
        let allowedLinks = [
            "https://", "http://", "mailto:", "tel:", "#finding-", "data:application/pdf;base64,", "data:image/png;base64,",
            "data:image/jpeg;base64,", "/orders/",
        ]
        for href in matches(#"\shref="([^"]*)""#, in: html) {
            #expect(allowedLinks.contains { href.hasPrefix($0) }, "href \(href.prefix(80))", sourceLocation: sourceLocation)
            #expect(!href.hasPrefix("//"), sourceLocation: sourceLocation)
        }
        for src in matches(#"\ssrc="([^"]*)""#, in: html) {
            #expect(
                src.hasPrefix("data:image/png;base64,") || src.hasPrefix("data:image/jpeg;base64,"), "src \(src.prefix(80))",
                sourceLocation: sourceLocation)
        }
        // Attributes are quoted and their values escaped: a quote never opens a second attribute.
        let download = matches(#"\sdownload="([^"]*)""#, in: html)
        for name in download {
            #expect(
                !name.contains("/") && (name.hasSuffix(".pdf") || name.hasSuffix(".png") || name.hasSuffix(".jpg")), "download name \(name)",
                sourceLocation: sourceLocation)
        }
        #expect(html.contains(#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; "#), sourceLocation: sourceLocation)
        let bidi = html.unicodeScalars.filter { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }
        #expect(bidi.isEmpty, "bidi controls in the page: \(bidi.map { String($0.value, radix: 16) })", sourceLocation: sourceLocation)
    }

    // MARK: - 1. Injection through every string of order.json

    @Test(
        "Every text and URL field of order.json carrying markup, script, CSS or a hostile URL stays text; links stay http(s)/mailto/tel",
        arguments: cases)
    func everyField(_ item: Case) throws {
        let files = try Previews.files(item.sample) { object in
            object = Self.poison(object, key: nil, text: item.text, url: item.url) as! [String: Any]
        }
        let preview = Previews.page(files: files)
        Self.expectInert(preview.html)
        // The order was read (not the unreadable page) and the payload is shown as text.
        #expect(!preview.html.contains("card unreadable"))
        #expect(Previews.text(preview.html).contains(item.text), "the payload is not shown as text")
    }

    @Test("Hostile translations in order.strings stay text", arguments: textPayloads)
    func hostileStrings(_ payload: String) throws {
        var files = try Previews.source("localized").files
        let keys = try localizedStrings("localized", "fr").keys
        let escaped = payload.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        files["fr.lproj/order.strings"] = Array(keys.map { "\"\($0)\" = \"\(escaped)\";\n" }.joined().utf8)
        let preview = Previews.page(files: files, language: "fr")
        #expect(preview.language == "fr")
        Self.expectInert(preview.html)
        #expect(Previews.text(preview.html).contains(payload))
    }

    @Test("Unicode bidi overrides and isolates are removed from shown text (no reversed-text spoofing), marks kept")
    func bidiControls() throws {
        let spoof = "Apple\u{202E}moc.live\u{202C} Store\u{2066}x\u{2069}\u{200F}"
        let files = try Previews.files("shipped-ecommerce") { object in
            var merchant = object["merchant"] as! [String: Any]
            merchant["displayName"] = spoof
            object["merchant"] = merchant
            object["statusDescription"] = "\u{202B}\u{202D}text"
        }
        let preview = Previews.page(files: files)
        Self.expectInert(preview.html)
        #expect(preview.html.contains("Applemoc.live Storex\u{200F}"))
    }

    @Test("A CLI language or Accept-Language that is markup stays an attribute value")
    func hostileLanguage() throws {
        let preview = Previews.page(files: try Previews.source("localized").files, language: #"en"><script>console.error(1)</script>"#)
        Self.expectInert(preview.html)
    }

    // MARK: - 1b. In a real browser

    /// One page with a payload in every field (each field a different payload).
    static func hostilePage() throws -> String {
        var counter = 0
        func next(_ value: Any, key: String?) -> Any {
            switch value {
            case let object as [String: Any]:
                return Dictionary(uniqueKeysWithValues: object.sorted { $0.key < $1.key }.map { ($0.key, next($0.value, key: $0.key)) })
            case let array as [Any]:
                return array.map { next($0, key: key) }
            case is String:
                guard let key, !structural.contains(key) else { return value }
                counter += 1
                return urlKeys.contains(key) ? urlPayloads[counter % urlPayloads.count] : textPayloads[counter % textPayloads.count]
            default:
                return value
            }
        }
        let files = try Previews.files("returns-and-transactions") { object in object = next(object, key: nil) as! [String: Any] }
        return Previews.page(files: files).html
    }

    @Test("Chromium: the hostile page runs no script, logs nothing, requests nothing")
    func hostilePageInBrowser() async throws {
        let html = try Self.hostilePage()
        Self.expectInert(html)
        let report = try await BrowserTests.check(html)
        #expect(report.console.isEmpty, "console: \(report.console)")
        #expect(report.requests.isEmpty, "requests: \(report.requests)")
        #expect(report.text.contains("<script>"))
    }

    @Test("Chromium: the page's CSP holds even if markup got through (script, remote image, stylesheet, inline handler, base, refresh)")
    func policyHolds() async throws {
        let page = try Previews.page("shipped-ecommerce").html
        let injected = #"""
            <base href="https://evil.example/"><script>console.error("pwned-script")</script>
            <img src="https://evil.example/img.png" onerror="console.error('pwned-handler')">
            <link rel="stylesheet" href="https://evil.example/style.css">
            <div style="background:url(https://evil.example/bg.png)">x</div>
            <iframe src="data:text/html,<script>parent.console.error('pwned-frame')</script>"></iframe>
            <form action="https://evil.example/form"><button id="b">b</button></form>
            """#
        let html = page.replacingOccurrences(of: "<body>", with: "<body>" + injected)
        let report = try await BrowserTests.check(html)
        #expect(!report.console.contains { $0.contains("pwned") }, "a script ran: \(report.console)")
        #expect(report.console.contains { $0.contains("Content Security Policy") }, "\(report.console)")
        #expect(!report.text.isEmpty)
        // Every outside load the injected markup asked for was refused by the policy itself.
        let blocked = Set((report.blocked ?? []).filter { $0.hasSuffix(" csp") }.map { String($0.dropLast(4)) })
        for url in ["https://evil.example/img.png", "https://evil.example/style.css"] {
            #expect(blocked.contains(url), "\(url) was not blocked by the CSP: \(report.blocked ?? [])")
        }
        #expect(report.requests.allSatisfy { blocked.contains($0) }, "requests: \(report.requests), blocked: \(report.blocked ?? [])")
    }

    // MARK: - 2. Images

    static let png1x1: [UInt8] = Array(
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!)
    /// SOI, APP0 (JFIF), SOF0 of 1×1, EOI: the header only.
    static let jpeg: [UInt8] =
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF, 0xD9]
    /// The same JPEG claiming 65535×65535.
    static let hugeJPEG: [UInt8] = {
        var bytes = jpeg
        bytes[25...28] = [0xFF, 0xFF, 0xFF, 0xFF]
        return bytes
    }()

    /// A PNG whose header claims `width`×`height` (valid signature, IHDR, CRC; no pixels).
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let ihdr = Array("IHDR".utf8) + be(width) + be(height) + [8, 6, 0, 0, 0]
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in ihdr {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + ihdr + be(~crc) + be(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    struct ImageCase: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        var bytes: [UInt8]
        /// The data: URI's type expected on the page, nil when the image must not be embedded.
        var mime: String?
        var testDescription: String { name }
    }

    static let imageCases: [ImageCase] = [
        .init(
            name: "SVG with script named .png", file: "logo.png",
            bytes: Array(
                #"<svg xmlns="http://www.w3.org/2000/svg" onload="console.error('pwned')"><script>console.error('pwned')</script></svg>"#.utf8),
            mime: nil),
        .init(name: "HTML named .png", file: "logo.png", bytes: Array("<!doctype html><script>console.error('pwned')</script>".utf8), mime: nil),
        .init(name: "GIF named .png", file: "logo.png", bytes: Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0], mime: nil),
        .init(name: "empty file", file: "logo.png", bytes: [], mime: nil),
        .init(name: "JPEG named .png: typed by content", file: "logo.png", bytes: jpeg, mime: "image/jpeg"),
        .init(name: "PNG named .svg: typed by content", file: "logo.svg", bytes: png1x1, mime: "image/png"),
        .init(name: "PNG named .html: typed by content", file: "logo.html", bytes: png1x1, mime: "image/png"),
        .init(name: "PNG header claiming 100000×100000", file: "logo.png", bytes: pngHeader(width: 100_000, height: 100_000), mime: nil),
        .init(name: "JPEG header claiming 65535×65535", file: "logo.png", bytes: hugeJPEG, mime: nil),
        .init(name: "PNG header claiming 0×0", file: "logo.png", bytes: pngHeader(width: 0, height: 0), mime: nil),
        .init(name: "PNG signature alone", file: "logo.png", bytes: [0x89, 0x50, 0x4E, 0x47], mime: nil),
        .init(name: "a real 1×1 PNG", file: "logo.png", bytes: png1x1, mime: "image/png"),
    ]

    @Test("An image's data: type comes from its sniffed content (PNG/JPEG with a sane header only), never from its name", arguments: imageCases)
    func images(_ item: ImageCase) throws {
        var files = try Previews.files("shipped-ecommerce") { object in
            var merchant = object["merchant"] as! [String: Any]
            merchant["logo"] = item.file
            object["merchant"] = merchant
        }
        files[item.file] = item.bytes
        let started = TestTiming.threadCPUTime()
        let html = Previews.page(files: files).html
        #expect(TestTiming.threadCPUTime() - started < .seconds(5 * TestTiming.scale))
        Self.expectInert(html)
        let logo = Self.matches(#"<img class="logo" [^>]*src="data:([a-z/]+);base64,"#, in: html)
        if let mime = item.mime {
            #expect(logo == [mime])
        } else {
            #expect(logo.isEmpty)
            #expect(html.contains(#"<span class="logo missing""#))
        }
        #expect(!html.contains("data:image/svg") && !html.contains("data:text/html") && !html.contains("data:image/gif"))
    }

    @Test("A receipt that is really HTML is not offered as a download; a PDF's download name is cleaned and ends in .pdf")
    func documents() throws {
        var files = try Previews.files("returns-and-transactions") { object in
            var payment = object["payment"] as! [String: Any]
            var transactions = payment["transactions"] as! [[String: Any]]
            transactions[0]["receipt"] = "receipt.html"
            if transactions.count > 1 { transactions[1]["receipt"] = "../../x\".pdf.html" }
            payment["transactions"] = transactions
            object["payment"] = payment
        }
        files["receipt.html"] = Array("<!doctype html><script>console.error('pwned')</script>".utf8)
        files["../../x\".pdf.html"] = Array("%PDF-1.4\n%%EOF\n".utf8)
        let html = Previews.page(files: files).html
        Self.expectInert(html)
        #expect(!html.contains(#"download="receipt.html""#))
        #expect(!Self.matches(#"download="([^"]*)""#, in: html).contains { $0.hasSuffix(".html") })
    }

    // MARK: - 3. Barcodes

    struct BarcodeCase: CustomTestStringConvertible, Sendable {
        var format: String
        var message: String
        var encoding = "iso-8859-1"
        var drawn: Bool
        var testDescription: String { "\(format), \(message.utf8.count) bytes \(message.prefix(12).debugDescription)" }
    }

    static let barcodeCases: [BarcodeCase] =
        ["qr", "pdf417", "aztec", "code128"].flatMap { format in
            [
                BarcodeCase(format: format, message: String(repeating: "A", count: 10_000), drawn: false),
                BarcodeCase(format: format, message: String(repeating: "é漢\u{0}\u{7F}", count: 2_500), encoding: "utf-8", drawn: false),
                BarcodeCase(format: format, message: "", drawn: false),
                BarcodeCase(format: format, message: "\u{0}\u{1}\u{1B}\u{7F}ÿ", drawn: true),
                BarcodeCase(format: format, message: #"</svg><script>console.error("pwned")</script>"#, drawn: true),
            ]
        } + [
            BarcodeCase(format: "code128", message: "漢字 emoji 🎉", encoding: "utf-8", drawn: true),
            BarcodeCase(format: "ean13", message: "1234567890128", drawn: false),
            // The largest symbols that still encode: thousands of rectangles, still fast.
            BarcodeCase(format: "qr", message: String(repeating: "A1", count: 2_000), drawn: true),
            BarcodeCase(format: "aztec", message: String(repeating: "7", count: 3_500), drawn: true),
            BarcodeCase(format: "<script>", message: "x", drawn: false),
        ]

    @Test(
        "A hostile barcode (10 kB, invalid bytes, empty, unknown format) gives a drawing or zint's clear reason, fast, never a crash",
        arguments: barcodeCases)
    func barcodes(_ item: BarcodeCase) throws {
        let files = try Previews.files("shipped-ecommerce") { object in
            object["barcode"] = ["format": item.format, "message": item.message, "messageEncoding": item.encoding]
        }
        let started = TestTiming.threadCPUTime()
        let preview = Previews.page(files: files)
        let elapsed = TestTiming.threadCPUTime() - started
        #expect(elapsed < .seconds(3 * TestTiming.scale), "took \(elapsed)")
        Self.expectInert(preview.html)
        #expect(!preview.html.contains("card unreadable"))
        let card = try #require(preview.html.range(of: #"data-pointer="/barcode""#), "no barcode card")
        let cardHTML = String(preview.html[card.lowerBound...].prefix(4_000 + item.message.utf8.count * 6))
        if item.drawn {
            #expect(cardHTML.contains("<svg class=\"barcode"), "\(cardHTML.prefix(600))")
            #expect(preview.barcodeMessages == [item.message])
        } else {
            #expect(!cardHTML.contains("<svg class=\"barcode"))
            #expect(preview.barcodeMessages.isEmpty)
            let reason = Self.matches(#"<p class="finding error">([^<]*)</p>"#, in: cardHTML)
            #expect(reason.count == 1 && !(reason.first ?? "").isEmpty, "no reason shown: \(cardHTML.prefix(600))")
            #expect(reason.allSatisfy { $0.count < 400 }, "the reason is not short: \(reason)")
        }
    }

    // MARK: - 4. Size and time

    @Test("5,000 line items (each with a missing image, so 5,000 findings) render in under 10 s and under 40 MB of HTML")
    func manyLineItems() throws {
        let files = try Previews.files("shipped-ecommerce") { object in
            let item = (object["lineItems"] as! [[String: Any]])[0]
            object["lineItems"] = (0..<5_000).map { index -> [String: Any] in
                var copy = item
                copy["title"] = "Item \(index) <b>"
                copy["image"] = "missing-\(index).png"
                return copy
            }
        }
        #expect(files["order.json"]!.count < 5_000_000)
        let started = TestTiming.threadCPUTime()
        let report = Previews.previewer.validator.validate(OrderSource(files: files), subject: "5000")
        let validated = TestTiming.threadCPUTime()
        let preview = Previews.previewer.render(files: files, report: report, options: PreviewOptions())
        let rendered = TestTiming.threadCPUTime()
        #expect(
            rendered - started < .seconds(10 * TestTiming.scale), "5,000 line items: validation \(validated - started), page \(rendered - validated)")
        #expect(rendered - validated < .seconds(3 * TestTiming.scale), "5,000 line items: page \(rendered - validated)")
        print("5,000 line items: validation \(validated - started), page \(rendered - validated), \(report.diagnostics.count) findings")
        #expect(preview.html.utf8.count < 40_000_000)
        #expect(preview.html.contains("Item 4999 &lt;b&gt;"))
        Self.expectInert(preview.html)
    }

    @Test(
        "A 1 MB string in every text field of one card renders in under 5 s, the page under 20 MB",
        arguments: ["displayName", "notes", "statusDescription", "message"])
    func hugeString(_ field: String) throws {
        let big = String(repeating: "<&\"'é", count: 200_000)  // 1.2 MB of UTF-8, 4.8 MB escaped
        let files = try Previews.files("shipped-ecommerce") { object in
            switch field {
            case "displayName":
                var merchant = object["merchant"] as! [String: Any]
                merchant["displayName"] = big
                object["merchant"] = merchant
            case "notes":
                var fulfillments = object["fulfillments"] as! [[String: Any]]
                fulfillments[0]["notes"] = big
                object["fulfillments"] = fulfillments
            case "message":
                object["barcode"] = ["format": "qr", "message": big, "messageEncoding": "utf-8"]
            default:
                object[field] = big
            }
        }
        #expect(files["order.json"]!.count < 5_000_000)
        let started = TestTiming.threadCPUTime()
        let preview = Previews.page(files: files)
        let elapsed = TestTiming.threadCPUTime() - started
        #expect(elapsed < .seconds(5 * TestTiming.scale), "took \(elapsed)")
        #expect(preview.html.utf8.count < 20_000_000, "\(preview.html.utf8.count) bytes")
        Self.expectInert(preview.html)
    }

    @Test("Localization folder names that are markup are listed as text, and never chosen by a markup language")
    func hostileFolderNames() throws {
        var files = try Previews.source("localized").files
        let name = #"x"><img src=x onerror=console.error(1)>‮"#  // no slash: it is one folder
        files["\(name).lproj/order.strings"] = Array(#""MERCHANT_NAME" = "<b>bold</b>";"#.utf8)
        let preview = Previews.page(files: files, language: name)
        Self.expectInert(preview.html)
        #expect(preview.languages.contains(name))
    }

    @Test("An order.strings of 200,000 entries (about 5 MB) is validated and the page rendered in seconds, not minutes")
    func hugeStringsFile() throws {
        var files = try Previews.source("localized").files
        var text = ""
        for index in 0..<200_000 { text += "\"KEY_\(index)\" = \"<value \(index)>\";\n" }
        text += #""MERCHANT_NAME" = "</style><script>console.error(1)</script>";"#
        files["fr.lproj/order.strings"] = Array(text.utf8)
        let started = TestTiming.threadCPUTime()
        let report = Previews.previewer.validator.validate(OrderSource(files: files), subject: "strings")
        let validated = TestTiming.threadCPUTime()
        let preview = Previews.previewer.render(files: files, report: report, options: PreviewOptions(language: "fr"))
        let rendered = TestTiming.threadCPUTime()
        print("200,000 strings: validation \(validated - started), page \(rendered - validated)")
        // The thread's CPU time (debug build): validation about 4 s, the page under 1 s. Quadratic
        // work would take minutes.
        #expect(rendered - started < .seconds(30 * TestTiming.scale), "validation \(validated - started), page \(rendered - validated)")
        #expect(rendered - validated < .seconds(12 * TestTiming.scale), "page \(rendered - validated)")
        Self.expectInert(preview.html)
    }

    @Test(
        "order.json nested 100,000 deep, or 5 MB of one string, gives the unreadable page or a page, no crash, in under 10 s",
        arguments: ["nested", "string"])
    func pathologicalJSON(_ kind: String) throws {
        var files = try Previews.source("shipped-ecommerce").files
        files["order.json"] =
            kind == "nested"
            ? Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
            : Array(("\"" + String(repeating: "<script>", count: 600_000) + "\"").utf8)
        let started = TestTiming.threadCPUTime()
        let preview = Previews.page(files: files)
        #expect(TestTiming.threadCPUTime() - started < .seconds(10 * TestTiming.scale))
        Self.expectInert(preview.html)
        #expect(preview.html.contains("card unreadable"))
        #expect(preview.html.utf8.count < 1_000_000)
    }

    @Test(
        "Durations of any size the schema allows are read without trapping: too long for a window is none",
        arguments: ["P999999999999999D", "PT99999999999999999999S", "P9999999999999999999W", "PT1e400S"])
    func enormousDurations(_ text: String) {
        #expect(Formats.seconds(ofDuration: text) == nil)
    }

    @Test("An enormous window duration in a stored order renders the page", arguments: ["store-pickup"])
    func enormousWindowRenders(_ sample: String) throws {
        let files = try Previews.files(sample) { object in
            var fulfillments = object["fulfillments"] as! [[String: Any]]
            fulfillments[0]["pickupWindowDuration"] = "P999999999999999D"
            object["fulfillments"] = fulfillments
        }
        let preview = Previews.page(files: files)
        #expect(!preview.html.contains("card unreadable"), "the order was not read")
    }

    @Test(
        "Enumeration values Wallet doesn't know (status, fulfillmentType, shippingType, currency, duration) are shown as escaped text",
        arguments: ["returns-and-transactions", "store-pickup"])
    func hostileEnumerations(_ sample: String) throws {
        let payload = #"</style><img src=x onerror=console.error(1)>‮"#
        let files = try Previews.files(sample) { object in
            func walk(_ value: Any, key: String?) -> Any {
                switch value {
                case let object as [String: Any]:
                    return Dictionary(uniqueKeysWithValues: object.map { ($0.key, walk($0.value, key: $0.key)) })
                case let array as [Any]:
                    return array.map { walk($0, key: key) }
                case is String:
                    let enumerations: Set<String> = [
                        "status", "shippingType", "currency", "estimatedDeliveryWindowDuration", "pickupWindowDuration", "transactionType",
                        "messageEncoding",
                    ]
                    return enumerations.contains(key ?? "") ? payload : value
                default:
                    return value
                }
            }
            object = walk(object, key: nil) as! [String: Any]
            var fulfillments = object["fulfillments"] as! [[String: Any]]
            fulfillments.append(["fulfillmentType": payload, "fulfillmentIdentifier": "x", "status": payload])
            object["fulfillments"] = fulfillments
        }
        let preview = Previews.page(files: files)
        Self.expectInert(preview.html)
        #expect(!preview.html.contains("card unreadable"), "the order was not read")
    }

    @Test("--png's measuring copy allows its own script by nonce only, never 'unsafe-inline', and adds it once at the end")
    func measuringPage() throws {
        let html = try Self.hostilePage()
        let page = HeadlessChromium.measuringPage(html, nonce: "abc123")
        #expect(!page.contains("'unsafe-inline'; script-src 'unsafe-inline'") && !page.contains("script-src 'unsafe-inline'"))
        #expect(page.contains("script-src 'nonce-abc123'"))
        #expect(page.components(separatedBy: "<script").count == 2)
        #expect(
            page.hasSuffix("<script nonce=\"abc123\">document.title = 'height:' + document.documentElement.scrollHeight;</script></body>\n</html>\n"))
        #expect(HeadlessChromium.maximumHeight == 16_384)
    }

    @Test(
        "The Add to Apple Wallet link is a path on this server or a followable URL, else no button",
        arguments: [
            ("/orders/a/b/KEY/order", true), ("https://shop.example/o.order", true), ("//evil.example/o", false),
            ("javascript:alert(1)", false), ("/\\evil.example/o", false), (" /orders/x", false),
        ])
    func addToWalletURL(_ url: String, _ shown: Bool) throws {
        let preview = Previews.previewer.render(
            files: try Previews.source("shipped-ecommerce").files, report: ValidationReport(subject: "x"),
            options: PreviewOptions(showsFindings: false, addToWalletURL: url))
        Self.expectInert(preview.html)
        #expect(preview.html.contains("class=\"add-to-wallet\"") == shown)
    }
}
