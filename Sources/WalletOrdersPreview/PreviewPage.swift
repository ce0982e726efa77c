import Foundation
import WalletOrders

/// Builds the page: the merchant's header, then the cards Wallet's order details show, in its
/// order. Every value of `order.json` that a customer reads goes through ``Localization/text(_:)``.
struct PreviewPage {
    let localization: Localization
    let formats: Formats
    let findings: FindingIndex
    let options: PreviewOptions
    var barcodeMessages: [String] = []

    init(localization: Localization, formats: Formats, findings: FindingIndex, options: PreviewOptions) {
        self.localization = localization
        self.formats = formats
        self.findings = findings
        self.options = options
    }

    func t(_ value: String) -> String { HTML.escape(localization.text(value)) }
    func w(_ key: Words.Key) -> String { localization.word(key) }

    mutating func render(_ order: Order?) -> String {
        var body = ""
        var title = "Order"
        if let order {
            title = "\(localization.text(order.merchant.displayName)) — \(w(.order)) \(order.orderNumber ?? order.orderIdentifier)"
            body += header(order)
            body += statusCard(order)
            for (index, fulfillment) in (order.fulfillments ?? []).enumerated() {
                body += fulfillmentCard(fulfillment, at: "/fulfillments/\(index)", order: order)
            }
            if let items = order.lineItems, !items.isEmpty {
                body += card("line-items", "/lineItems", title: w(.items), lineItemList(items, at: "/lineItems"))
            }
            if let payment = order.payment { body += paymentCard(payment) }
            for (index, item) in (order.returns ?? []).enumerated() { body += returnCard(item, at: "/returns/\(index)") }
            if let info = order.returnInfo { body += returnInfoCard(info) }
            if let barcode = order.barcode {
                body += card("barcode-card", "/barcode", title: w(.barcode), barcodeHTML(barcode, at: "/barcode"))
            }
            body += linksCard(order)
        } else {
            body += HTML.element("section", "card unreadable", HTML.element("h2", nil, HTML.escape(w(.notReadable))) + findings.take(under: ""))
        }
        let leftovers = findings.take(under: "")  // findings of order.json not tied to a shown place
        if !leftovers.isEmpty { body += HTML.element("section", "card", leftovers) }
        let top = addToWalletButton() + (options.showsFindings ? findingsSummary() + languageList() : "")
        var policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
        var script = ""
        if let live = options.liveReload {
            // A fresh random nonce per rendering: the page's one script, and no other, may run.
            let nonce = UUID().uuidString.filter(\.isHexDigit)
            policy += "; connect-src 'self'; script-src 'nonce-\(nonce)'"
            script = """
                <script nonce="\(nonce)">
                setInterval(async () => {
                  try {
                    const answer = await fetch(\(Self.jsString(live.versionPath)), {cache: "no-store"});
                    if (answer.ok && (await answer.text()) !== \(Self.jsString(live.version))) location.reload();
                  } catch (e) {}
                }, 1000);
                </script>

                """
        }
        return """
            <!doctype html>
            <html lang="\(HTML.escape(localization.pageLanguage))" class="\(options.appearance.cssClass)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(policy)">
            <title>\(HTML.escape(title))</title>
            <style>\(PreviewStyle.css)</style>
            </head>
            <body>
            <main class="order">
            \(top)\(body)
            </main>
            \(script)</body>
            </html>

            """
    }

    // MARK: Top of the page

    /// The "Add to Apple Wallet" button: Apple's badge when the options carry one, else a text
    /// link; on an iPhone browser other than Safari, a line saying to open the page in Safari
    /// above it (those browsers don't hand a `.order` download to Wallet). The link is a path on
    /// this server or a followable URL; never `//host` or a script.
    func addToWalletButton() -> String {
        guard let url = options.addToWalletURL,
            (url.hasPrefix("/") && !url.hasPrefix("//") && !url.contains("\\")) || HTML.isFollowable(url)
        else { return "" }
        let label = HTML.escape(w(.addToWallet))
        let button: String
        if let badge = options.addToWalletBadge {
            let image = "<img alt=\"\(label)\" src=\"data:image/svg+xml;base64,\(Data(badge.svg).base64EncodedString())\">"
            button = HTML.element("a", "add-to-wallet-badge", image, attributes: [("href", url), ("lang", badge.language)])
        } else {
            button = HTML.element("a", "add-to-wallet", label, attributes: [("href", url)])
        }
        let hint = options.viewer == .iOSOtherBrowser ? HTML.element("p", "open-in-safari", HTML.escape(w(.openInSafari))) : ""
        return hint + button
    }

    /// The counts, then each rule once: how many times it was found, its first message, and a
    /// link to its first place on the page (each finding is shown once, in its place). Findings
    /// with no place on the page (another file, the signature) are listed in full.
    func findingsSummary() -> String {
        let entries = findings.entries
        guard !entries.isEmpty else {
            return HTML.element("p", "findings-none", "✓ " + HTML.escape(w(.noFindings)))
        }
        let errors = entries.filter { $0.diagnostic.severity == .error }.count
        let warnings = entries.filter { $0.diagnostic.severity == .warning }.count
        let infos = entries.count - errors - warnings
        var counts = ["\(errors) error\(errors == 1 ? "" : "s")", "\(warnings) warning\(warnings == 1 ? "" : "s")"]
        if infos > 0 { counts.append("\(infos) info") }
        var list = ""
        var listedRules = Set<String>()
        for entry in entries {
            let d = entry.diagnostic
            let rule = "\(d.severity.rawValue)[\(HTML.escape(d.ruleID))]"
            guard entry.shown else {
                list +=
                    "<li class=\"\(d.severity.rawValue)\">\(rule) <span class=\"where\">\(HTML.escape(d.location.description))</span> \(HTML.escape(d.message))</li>"
                continue
            }
            guard listedRules.insert(d.severity.rawValue + " " + d.ruleID).inserted else { continue }
            let times = findings.shownCount(of: d)
            let count = times > 1 ? " <span class=\"count\">× \(times)</span>" : ""
            list += "<li class=\"\(d.severity.rawValue)\"><a href=\"#finding-\(entry.number)\">\(rule)</a>\(count) \(HTML.escape(d.message))</li>"
        }
        // Open when something is wrong; notes alone stay folded (a click shows them).
        let open = errors + warnings > 0 ? " open" : ""
        return "<details class=\"card findings-list\"\(open)><summary><strong>\(HTML.escape(w(.findings)))</strong> "
            + "<span class=\"secondary\">\(counts.joined(separator: ", "))</span></summary>"
            + HTML.element("ol", nil, list) + "</details>"
    }

    func languageList() -> String {
        guard !localization.languages.isEmpty else { return "" }
        let items = localization.languages.map { language in
            language == localization.language ? "<b>\(HTML.escape(language))</b>" : HTML.escape(language)
        }
        return HTML.element("p", "languages", HTML.escape(w(.languages)) + ": " + items.joined(separator: " · "))
    }

    // MARK: Pieces

    /// An image of the order inlined as a `data:` URI, or a marked place where it is missing
    /// (the finding that says so is shown by the enclosing item or card).
    func image(_ name: String, at pointer: String, className: String, alt: String) -> String {
        guard let found = localization.image(named: name), let mime = FileContent.sniff(found.bytes).displayableImageType else {
            return "<span class=\"\(className) missing\" data-missing=\"\(HTML.escape(name))\" data-pointer=\"\(pointer)\">"
                + "<span>\(HTML.escape(w(.missingImage)))<br><code>\(HTML.escape(name))</code></span></span>"
        }
        return "<img class=\"\(className)\" alt=\"\(HTML.escape(alt))\" src=\"data:\(mime);base64,\(Data(found.bytes).base64EncodedString())\">"
    }

    /// A receipt or return label as a download link: PDF, PNG or JPEG by its content (anything
    /// else, HTML or SVG above all, is not offered), under a file name of safe characters whose
    /// extension is the content's.
    func document(_ name: String, at pointer: String, label: String) -> String {
        let own = findings.take(at: pointer)
        guard let bytes = localization.document(named: name), let kind = Self.documentType(bytes) else {
            return HTML.element("p", "missing-document", "\(HTML.escape(label)): <code>\(HTML.escape(name))</code>") + own
        }
        let file = Self.downloadName(name, extension: kind.fileExtension)
        return
            "<a class=\"link document\" download=\"\(HTML.escape(file))\" href=\"data:\(kind.mime);base64,\(Data(bytes).base64EncodedString())\">\(HTML.escape(label)) · \(HTML.escape(name))</a>"
            + own
    }

    /// The last path component of `name`, letters, digits, `-`, `_` and `.` only (others become
    /// `_`), at most 100 characters, ending in `.ext`.
    static func downloadName(_ name: String, extension ext: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var stem = String(
            last.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == ".")
                    ? Character(scalar) : "_"
            }.prefix(100))
        while stem.hasPrefix(".") { stem.removeFirst() }
        if stem.lowercased().hasSuffix("." + ext) { stem.removeLast(ext.count + 1) }
        return (stem.isEmpty ? "document" : stem) + "." + ext
    }

    /// PDF, or a PNG or JPEG that may be shown (``FileContent/displayableImageType``), by content.
    static func documentType(_ bytes: [UInt8]) -> (mime: String, fileExtension: String)? {
        let content = FileContent.sniff(bytes)
        if content == .pdf { return ("application/pdf", "pdf") }
        switch content.displayableImageType {
        case "image/png": return ("image/png", "png")
        case "image/jpeg": return ("image/jpeg", "jpg")
        default: return nil
        }
    }

    /// The address as its country writes it (``AddressFormat``), then the country's name in the
    /// page's language.
    func addressLines(_ address: Address?) -> [String] {
        guard let address else { return [] }
        var lines = AddressFormat.of(address).lines(of: address)
        if let country = address.countryCode, let name = formats.locale.localizedString(forRegionCode: country) { lines.append(name) }
        return lines
    }

    /// A JavaScript string literal (JSON's escaping, `<` escaped so it can't close the script).
    static func jsString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func host(_ url: String) -> String {
        URL(string: url)?.host ?? url
    }
}

extension PreviewOptions.Appearance {
    var cssClass: String {
        switch self {
        case .light: "light"
        case .dark: "dark"
        case .automatic: "auto"
        }
    }
}
