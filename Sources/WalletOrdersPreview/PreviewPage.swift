import Foundation
import WalletOrders

/// Builds the page: the merchant's header, then the cards Wallet's order details show, in its
/// order. Every value of `order.json` that a customer reads goes through ``Localization/text(_:)``.
struct PreviewPage {
    let localization: Localization
    let formats: Formats
    let findings: FindingIndex
    let options: PreviewOptions
    private(set) var barcodeMessages: [String] = []

    init(localization: Localization, formats: Formats, findings: FindingIndex, options: PreviewOptions) {
        self.localization = localization
        self.formats = formats
        self.findings = findings
        self.options = options
    }

    private func t(_ value: String) -> String { HTML.escape(localization.text(value)) }
    private func w(_ key: Words.Key) -> String { localization.word(key) }

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
        var top = options.showsFindings ? findingsSummary() + languageList() : ""
        // The button's link: a path on this server, or a followable URL; never `//host` or a script.
        if let url = options.addToWalletURL, (url.hasPrefix("/") && !url.hasPrefix("//") && !url.contains("\\")) || HTML.isFollowable(url) {
            top = HTML.element("a", "add-to-wallet", HTML.escape(w(.addToWallet)), attributes: [("href", url)]) + top
        }
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

    private func findingsSummary() -> String {
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
        for entry in entries {
            let d = entry.diagnostic
            let rule = "\(d.severity.rawValue)[\(HTML.escape(d.ruleID))]"
            let ruleHTML = entry.shown ? "<a href=\"#finding-\(entry.number)\">\(rule)</a>" : rule
            list += "<li class=\"\(d.severity.rawValue)\">\(ruleHTML) <span class=\"where\">\(HTML.escape(d.location.description))</span> \(HTML.escape(d.message))</li>"
        }
        // Open when something is wrong; notes alone stay folded (a click shows them).
        let open = errors + warnings > 0 ? " open" : ""
        return "<details class=\"card findings-list\"\(open)><summary><strong>\(HTML.escape(w(.findings)))</strong> "
            + "<span class=\"secondary\">\(counts.joined(separator: ", "))</span></summary>"
            + HTML.element("ol", nil, list) + "</details>"
    }

    private func languageList() -> String {
        guard !localization.languages.isEmpty else { return "" }
        let items = localization.languages.map { language in
            language == localization.language ? "<b>\(HTML.escape(language))</b>" : HTML.escape(language)
        }
        return HTML.element("p", "languages", HTML.escape(w(.languages)) + ": " + items.joined(separator: " · "))
    }

    // MARK: Cards

    private func card(_ className: String, _ pointer: String, title: String?, _ content: String) -> String {
        let leftovers = findings.take(under: pointer)
        let heading = title.map { HTML.element("h2", nil, HTML.escape($0)) } ?? ""
        return HTML.element("section", "card \(className)", heading + content + leftovers, attributes: [("data-pointer", pointer)])
    }

    private func header(_ order: Order) -> String {
        var html = ""
        if let logo = order.merchant.logo {
            html += image(logo, at: "/merchant/logo", className: "logo", alt: localization.text(order.merchant.displayName))
        }
        html += HTML.element("h1", "merchant-name", t(order.merchant.displayName))
        html += findings.take(at: "/merchant/displayName")
        var facts: [String] = []
        if let number = order.orderNumber { facts.append("\(HTML.escape(w(.order))) \(HTML.escape(number))") }
        facts.append("\(HTML.escape(w(.ordered))) \(HTML.escape(formats.dateTime(order.createdAt)))")
        html += HTML.element("p", "order-facts secondary", facts.joined(separator: " · "))
        html += findings.take(at: "/orderNumber") + findings.take(at: "/createdAt")
        return HTML.element("header", "merchant", html + findings.take(under: "/merchant"))
    }

    private func statusCard(_ order: Order) -> String {
        let (label, tone): (Words.Key, String) =
            switch order.status {
            case .completed: (.orderCompleted, "done")
            case .cancelled: (.orderCancelled, "bad")
            default: (.orderOpen, "active")
            }
        var html = HTML.element("p", "status \(tone)", order.status.isKnown ? HTML.escape(w(label)) : HTML.escape(order.status.rawValue))
        html += findings.take(at: "/status")
        if let description = order.statusDescription {
            html += HTML.element("p", "status-description", t(description)) + findings.take(at: "/statusDescription")
        }
        html += HTML.element("p", "secondary small", "\(HTML.escape(w(.updated))) \(HTML.escape(formats.dateTime(order.updatedAt)))")
        html += findings.take(at: "/updatedAt")
        html += HTML.link(order.orderManagementURL, w(.manageOrder), className: "button")
        html += findings.take(at: "/orderManagementURL")
        return card("order-status", "/status", title: nil, html)
    }

    private struct Step {
        var label: String
        var date: String?
    }

    private func progress(_ steps: [Step], reached: Int, tone: String) -> String {
        var bar = ""
        var list = ""
        for (index, step) in steps.enumerated() {
            let state = index <= reached ? "done" : "todo"
            bar += "<span class=\"\(state)\"></span>"
            let date = step.date.map { HTML.element("span", "step-date", HTML.escape($0)) } ?? ""
            list += "<li class=\"\(state)\(index == reached ? " current" : "")\">"
                + HTML.element("span", "step-label", HTML.escape(step.label)) + date + "</li>"
        }
        return HTML.element("div", "progress \(tone)", bar) + HTML.element("ol", "steps", list)
    }

    private mutating func fulfillmentCard(_ fulfillment: Fulfillment, at pointer: String, order: Order) -> String {
        switch fulfillment {
        case .shipping(let shipping): shippingCard(shipping, at: pointer, order: order)
        case .pickup(let pickup): pickupCard(pickup, at: pointer, order: order)
        case .unknown(let unknown):
            card("fulfillment", pointer, title: unknown.fulfillmentType ?? "Fulfillment", "")
        }
    }

    private func shippingCard(_ shipping: ShippingFulfillment, at pointer: String, order: Order) -> String {
        let statusKey: Words.Key? =
            switch shipping.status {
            case .open: .placed
            case .processing: .processing
            case .shipped: .shipped
            case .onTheWay: .onTheWay
            case .outForDelivery: .outForDelivery
            case .delivered: .delivered
            case .issue: .issue
            case .cancelled: .cancelled
            default: nil
            }
        let reached: Int =
            switch shipping.status {
            case .open, .processing: 0
            case .shipped: 1
            case .onTheWay: 2
            case .outForDelivery: 3
            case .delivered: 4
            default: shipping.deliveredAt != nil ? 4 : shipping.shippedAt != nil ? 1 : 0
            }
        let tone = shipping.status == .issue || shipping.status == .cancelled ? "bad" : shipping.status == .delivered ? "done" : "active"
        var html = HTML.element("p", "status \(tone)", HTML.escape(statusKey.map(w) ?? shipping.status.rawValue))
        html += findings.take(at: pointer + "/status")
        if let description = shipping.statusDescription {
            html += HTML.element("p", "status-description", t(description))
        }
        let expected = shipping.estimatedDeliveryAt.map { formats.window($0, duration: shipping.estimatedDeliveryWindowDuration) }
        let steps = [
            Step(label: w(.placed), date: formats.date(order.createdAt)),
            Step(label: w(.shipped), date: shipping.shippedAt.map(formats.dateTime)),
            Step(label: w(.onTheWay), date: nil),
            Step(label: w(.outForDelivery), date: nil),
            Step(label: w(.delivered), date: shipping.deliveredAt.map(formats.dateTime) ?? expected.map { "\(w(.expected)) \($0)" }),
        ]
        html += progress(steps, reached: reached, tone: tone)
        var rows = ""
        if let carrier = shipping.carrier { rows += HTML.row(w(.carrier), HTML.escape(carrier)) }
        if let number = shipping.trackingNumber { rows += HTML.row(w(.trackingNumber), HTML.element("span", "mono", HTML.escape(number))) }
        if let recipient = shipping.recipient {
            let name = [recipient.givenName, recipient.familyName].compactMap { $0 }.joined(separator: " ")
            let lines = ([name, recipient.organizationName ?? ""].filter { !$0.isEmpty }) + addressLines(recipient.address)
            rows += HTML.row(w(.shipTo), lines.map(HTML.escape).joined(separator: "<br>"))
        }
        if let notes = shipping.notes { rows += HTML.row(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let url = shipping.trackingURL {
            html += HTML.link(url, w(.trackShipment), className: "button") + findings.take(at: pointer + "/trackingURL")
        }
        if let items = shipping.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        let title = shipping.shippingType == .delivery ? w(.delivery) : w(.shipment)
        return card("fulfillment shipping", pointer, title: title, html)
    }

    private mutating func pickupCard(_ pickup: PickupFulfillment, at pointer: String, order: Order) -> String {
        let statusKey: Words.Key? =
            switch pickup.status {
            case .open: .placed
            case .processing: .preparing
            case .readyForPickup: .readyForPickup
            case .pickedUp: .pickedUp
            case .issue: .issue
            case .cancelled: .cancelled
            default: nil
            }
        let reached: Int =
            switch pickup.status {
            case .open: 0
            case .processing: 1
            case .readyForPickup: 2
            case .pickedUp: 3
            default: pickup.pickedUpAt != nil ? 3 : 0
            }
        let tone = pickup.status == .issue || pickup.status == .cancelled ? "bad" : pickup.status == .pickedUp ? "done" : "active"
        var html = HTML.element("p", "status \(tone)", HTML.escape(statusKey.map(w) ?? pickup.status.rawValue))
        html += findings.take(at: pointer + "/status")
        if let description = pickup.statusDescription { html += HTML.element("p", "status-description", t(description)) }
        let window = pickup.pickupAt.map { formats.window($0, duration: pickup.pickupWindowDuration) }
        let steps = [
            Step(label: w(.placed), date: formats.date(order.createdAt)),
            Step(label: w(.preparing), date: nil),
            Step(label: w(.readyForPickup), date: window),
            Step(label: w(.pickedUp), date: pickup.pickedUpAt.map(formats.dateTime)),
        ]
        html += progress(steps, reached: reached, tone: tone)
        var rows = HTML.row(w(.pickupAt), ([localization.text(pickup.displayName)] + addressLines(pickup.address)).map(HTML.escape).joined(separator: "<br>"))
        if let window { rows += HTML.row(w(.pickupWindow), HTML.escape(window)) }
        if let notes = pickup.notes { rows += HTML.row(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let location = pickup.location {
            let url = "https://maps.apple.com/?ll=\(location.latitude),\(location.longitude)&q=\(localization.text(pickup.displayName).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            html += HTML.link(url, w(.directions), className: "button secondary-button")
        }
        if let barcode = pickup.barcode {
            html += HTML.element("h3", nil, HTML.escape(w(.pickupCode))) + barcodeHTML(barcode, at: pointer + "/barcode")
        }
        if let items = pickup.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        return card("fulfillment pickup", pointer, title: w(.pickup), html)
    }

    private func lineItemList(_ items: [LineItem], at pointer: String) -> String {
        var html = ""
        for (index, item) in items.enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let picture = item.image.map { image($0, at: itemPointer + "/image", className: "item-image", alt: localization.text(item.title)) } ?? "<span class=\"item-image none\"></span>"
            var text = HTML.element("div", "item-title", t(item.title))
            if let subtitle = item.subtitle { text += HTML.element("div", "item-subtitle secondary", t(subtitle)) }
            text += HTML.element("div", "item-quantity secondary", "\(HTML.escape(w(.quantity))) \(HTML.escape(formats.number(item.quantity)))")
            let price = item.price.map { HTML.element("div", "item-price", HTML.escape(formats.money($0))) } ?? ""
            let own = findings.take(under: itemPointer)
            html += "<li class=\"item\" data-pointer=\"\(itemPointer)\">\(picture)\(HTML.element("div", "item-text", text + own))\(price)</li>"
        }
        return HTML.element("ul", "items", html)
    }

    /// A fulfillment's or a return's items as Wallet shows them there: small pictures and a count.
    private func thumbnails(_ items: [LineItem], at pointer: String) -> String {
        var html = ""
        for (index, item) in items.enumerated() {
            let title = localization.text(item.title)
            html += item.image.map { image($0, at: "\(pointer)/\(index)/image", className: "thumb", alt: title) }
                ?? "<span class=\"thumb none\" title=\"\(HTML.escape(title))\"></span>"
        }
        let count = items.reduce(0) { $0 + $1.quantity }
        let label = HTML.escape("\(formats.number(count)) \(w(count == 1 ? .item : .items).lowercased())")
        return HTML.element("div", "thumbs", html + HTML.element("span", "thumbs-count secondary", label)) + findings.take(under: pointer)
    }

    private func paymentCard(_ payment: Payment) -> String {
        var rows = ""
        for (index, item) in (payment.summaryItems ?? []).enumerated() {
            rows += HTML.row(localization.text(item.label), HTML.escape(formats.money(item.value)))
            rows += findings.take(under: "/payment/summaryItems/\(index)")
        }
        rows += HTML.row(w(.total), HTML.escape(formats.money(payment.total)), className: "row total")
        rows += findings.take(under: "/payment/total")
        let statusKey: Words.Key? =
            switch payment.status {
            case .pending: .paymentPending
            case .authorized: .paymentAuthorized
            case .paid: .paymentPaid
            case .refunded: .paymentRefunded
            case .declined: .paymentDeclined
            case .voided: .paymentVoided
            default: nil
            }
        var html = HTML.element("div", "rows", rows)
        html += HTML.element("p", "payment-status", HTML.escape(statusKey.map(w) ?? payment.status.rawValue))
        if let methods = payment.paymentMethods, !methods.isEmpty {
            html += HTML.element("div", "rows", HTML.row(w(.paidWith), methods.map(t).joined(separator: "<br>")))
        }
        if let transactions = payment.transactions, !transactions.isEmpty {
            var list = ""
            for (index, transaction) in transactions.enumerated() {
                let kind = transaction.transactionType == .refund ? w(.refund) : w(.purchase)
                var line = HTML.element("span", "label", HTML.escape(kind) + "<br><small class=\"secondary\">\(HTML.escape(formats.dateTime(transaction.createdAt))) · \(t(transaction.paymentMethod.displayName)) · \(HTML.escape(transaction.status.rawValue))</small>")
                let sign = transaction.transactionType == .refund ? "−" : ""
                line += HTML.element("span", "value", sign + HTML.escape(formats.money(transaction.amount)))
                var extra = ""
                if let receipt = transaction.receipt {
                    extra = document(receipt, at: "/payment/transactions/\(index)/receipt", label: w(.receipt))
                }
                list += HTML.element("li", "transaction", HTML.element("div", "row", line) + extra + findings.take(under: "/payment/transactions/\(index)"))
            }
            html += HTML.element("h3", nil, HTML.escape(w(.transactions))) + HTML.element("ul", "transactions", list)
        }
        return card("payment", "/payment", title: w(.payment), html)
    }

    private func returnCard(_ item: OrderReturn, at pointer: String) -> String {
        let statusKey: Words.Key? =
            switch item.status {
            case .open: .returnStarted
            case .onTheWay: .onTheWay
            case .processing: .processing
            case .issue: .issue
            case .completed: .returnCompleted
            case .cancelled: .cancelled
            default: nil
            }
        let tone = item.status == .issue || item.status == .cancelled ? "bad" : item.status == .completed ? "done" : "active"
        var html = HTML.element("p", "status \(tone)", HTML.escape(statusKey.map(w) ?? item.status.rawValue))
        if let description = item.statusDescription { html += HTML.element("p", "status-description", t(description)) }
        var rows = ""
        if let number = item.returnNumber { rows += HTML.row(w(.returnNumber), HTML.escape(number)) }
        if let carrier = item.carrier { rows += HTML.row(w(.carrier), HTML.escape(carrier)) }
        if let dropOffBy = item.dropOffBy { rows += HTML.row(w(.dropOffBy), HTML.escape(formats.dateTime(dropOffBy))) }
        if let notes = item.notes { rows += HTML.row(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let label = item.returnLabel { html += document(label, at: pointer + "/returnLabel", label: w(.returnLabel)) }
        if let url = item.returnManagementURL { html += HTML.link(url, w(.manageReturn), className: "button secondary-button") }
        if let items = item.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        return card("return", pointer, title: w(.returns), html)
    }

    private func returnInfoCard(_ info: ReturnInfo) -> String {
        var html = ""
        if let description = info.returnPolicyDescription { html += HTML.element("p", nil, t(description)) }
        if let deadline = info.returnDeadline {
            html += HTML.element("div", "rows", HTML.row(w(.returnBy), HTML.escape(formats.date(deadline))))
        }
        html += HTML.link(info.returnPolicyURL, w(.returnPolicy))
        if let url = info.returnManagementURL { html += " · " + HTML.link(url, w(.manageReturn)) }
        return card("return-info", "/returnInfo", title: w(.returnPolicy), html)
    }

    private mutating func barcodeHTML(_ barcode: Barcode, at pointer: String) -> String {
        var html = ""
        switch BarcodeSVG.render(barcode) {
        case .svg(let svg):
            barcodeMessages.append(barcode.message)
            html += svg
        case .failed(let reason):
            html += HTML.element("p", "finding error", HTML.escape(reason))
        }
        let caption = barcode.altText.map(localization.text) ?? barcode.message
        html += HTML.element("p", "barcode-text", HTML.escape(caption))
        if barcode.altText != nil, caption != barcode.message {
            html += HTML.element("p", "barcode-message mono secondary", HTML.escape(barcode.message))
        }
        return HTML.element("div", "barcode-tile", html) + findings.take(under: pointer)
    }

    private func linksCard(_ order: Order) -> String {
        var html = ""
        let merchant = order.merchant
        html += HTML.row(w(.merchantWebsite), HTML.link(merchant.url, Self.host(merchant.url)))
        if let url = merchant.contactURL { html += HTML.row(w(.contact), HTML.link(url, Self.host(url))) }
        if let email = merchant.emailAddress { html += HTML.row(w(.email), HTML.link("mailto:" + email, email)) }
        if let phone = merchant.phoneNumber {
            html += HTML.row(w(.phone), HTML.link("tel:" + phone.filter { $0.isNumber || $0 == "+" }, phone))
        }
        var provider = ""
        if let orderProvider = order.orderProvider {
            let name = localization.text(orderProvider.displayName)
            provider += image(orderProvider.trackingLogoNameLightColorScheme, at: "/orderProvider/trackingLogoNameLightColorScheme", className: "provider-logo only-light", alt: name)
            provider += image(orderProvider.trackingLogoNameDarkColorScheme, at: "/orderProvider/trackingLogoNameDarkColorScheme", className: "provider-logo only-dark", alt: name)
            provider += HTML.element("p", "secondary small", HTML.escape(w(.orderProvider)) + " " + HTML.link(orderProvider.url, name))
            provider = HTML.element("div", "provider", provider + findings.take(under: "/orderProvider"))
        }
        return card("links", "/merchant", title: nil, HTML.element("div", "rows", html) + provider)
    }

    // MARK: Pieces

    /// An image of the order inlined as a `data:` URI, or a marked place where it is missing
    /// (the finding that says so is shown by the enclosing item or card).
    private func image(_ name: String, at pointer: String, className: String, alt: String) -> String {
        guard let found = localization.image(named: name), let mime = Self.imageType(found.bytes) else {
            return "<span class=\"\(className) missing\" data-missing=\"\(HTML.escape(name))\" data-pointer=\"\(pointer)\">"
                + "<span>\(HTML.escape(w(.missingImage)))<br><code>\(HTML.escape(name))</code></span></span>"
        }
        return "<img class=\"\(className)\" alt=\"\(HTML.escape(alt))\" src=\"data:\(mime);base64,\(Data(found.bytes).base64EncodedString())\">"
    }

    /// A receipt or return label as a download link: PDF, PNG or JPEG by its content (anything
    /// else, HTML or SVG above all, is not offered), under a file name of safe characters whose
    /// extension is the content's.
    private func document(_ name: String, at pointer: String, label: String) -> String {
        let own = findings.take(at: pointer)
        guard let bytes = localization.document(named: name), let kind = Self.documentType(bytes) else {
            return HTML.element("p", "missing-document", "\(HTML.escape(label)): <code>\(HTML.escape(name))</code>") + own
        }
        let file = Self.downloadName(name, extension: kind.fileExtension)
        return "<a class=\"link document\" download=\"\(HTML.escape(file))\" href=\"data:\(kind.mime);base64,\(Data(bytes).base64EncodedString())\">\(HTML.escape(label)) · \(HTML.escape(name))</a>" + own
    }

    /// The last path component of `name`, letters, digits, `-`, `_` and `.` only (others become
    /// `_`), at most 100 characters, ending in `.ext`.
    static func downloadName(_ name: String, extension ext: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var stem = String(last.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == ".") ? Character(scalar) : "_"
        }.prefix(100))
        while stem.hasPrefix(".") { stem.removeFirst() }
        if stem.lowercased().hasSuffix("." + ext) { stem.removeLast(ext.count + 1) }
        return (stem.isEmpty ? "document" : stem) + "." + ext
    }

    static func documentType(_ bytes: [UInt8]) -> (mime: String, fileExtension: String)? {
        if bytes.starts(with: Array("%PDF-".utf8)) { return ("application/pdf", "pdf") }
        switch imageType(bytes) {
        case "image/png": return ("image/png", "png")
        case "image/jpeg": return ("image/jpeg", "jpg")
        default: return nil
        }
    }

    private func addressLines(_ address: Address?) -> [String] {
        guard let address else { return [] }
        var lines = address.addressLines ?? []
        let city = [address.postalCode, address.locality, address.administrativeArea].compactMap { $0 }.joined(separator: " ")
        if !city.isEmpty { lines.append(city) }
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

    /// The largest width or height an image may claim (Wallet's images are a few hundred pixels;
    /// a header claiming 100000×100000 would have the browser try to decode 40 GB).
    static let maximumImageSide = 4_096

    /// `image/png` or `image/jpeg` by the content (the file's name says nothing), when the header
    /// is whole and its claimed size is between 1 and ``maximumImageSide`` pixels a side; nil for
    /// anything else (SVG, HTML, GIF, a truncated or oversized header).
    static func imageType(_ bytes: [UInt8]) -> String? {
        guard let (mime, width, height) = imageHeader(bytes), (1...maximumImageSide).contains(width), (1...maximumImageSide).contains(height)
        else { return nil }
        return mime
    }

    static func imageHeader(_ bytes: [UInt8]) -> (mime: String, width: Int, height: Int)? {
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        // PNG: signature, then IHDR first (length 13): width and height.
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 24, be32(8) == 13, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
            return ("image/png", be32(16), be32(20))
        }
        // JPEG: SOI, then segments up to a start-of-frame (SOF0–SOF15 but DHT, JPG, DAC).
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            var i = 2
            while i + 4 <= bytes.count {
                guard bytes[i] == 0xFF else { return nil }
                let marker = bytes[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                guard length >= 2 else { return nil }
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    guard i + 9 <= bytes.count else { return nil }
                    return ("image/jpeg", be16(i + 7), be16(i + 5))
                }
                if marker == 0xD9 || marker == 0xDA { return nil }  // end, or scan data before any frame header
                i += 2 + length
            }
            return nil
        }
        return nil
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
