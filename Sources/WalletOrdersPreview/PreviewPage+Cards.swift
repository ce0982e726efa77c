import Foundation
import WalletOrders

/// The cards of the page, one for each part of the order, in the order Wallet shows them.
extension PreviewPage {
    func card(_ className: String, _ pointer: String, title: String?, _ content: String) -> String {
        let leftovers = findings.take(under: pointer)
        let heading = title.map { HTML.element("h2", nil, HTML.escape($0)) } ?? ""
        return HTML.element("section", "card \(className)", heading + content + leftovers, attributes: [("data-pointer", pointer)])
    }

    func header(_ order: Order) -> String {
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

    func statusCard(_ order: Order) -> String {
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

    struct Step {
        var label: String
        var date: String?
    }

    func progress(_ steps: [Step], reached: Int, tone: String) -> String {
        var bar = ""
        var list = ""
        for (index, step) in steps.enumerated() {
            let state = index <= reached ? "done" : "todo"
            bar += "<span class=\"\(state)\"></span>"
            let date = step.date.map { HTML.element("span", "step-date", HTML.escape($0)) } ?? ""
            list +=
                "<li class=\"\(state)\(index == reached ? " current" : "")\">"
                + HTML.element("span", "step-label", HTML.escape(step.label)) + date + "</li>"
        }
        return HTML.element("div", "progress \(tone)", bar) + HTML.element("ol", "steps", list)
    }

    mutating func fulfillmentCard(_ fulfillment: Fulfillment, at pointer: String, order: Order) -> String {
        switch fulfillment {
        case .shipping(let shipping): shippingCard(shipping, at: pointer, order: order)
        case .pickup(let pickup): pickupCard(pickup, at: pointer, order: order)
        case .unknown(let unknown):
            card("fulfillment", pointer, title: unknown.fulfillmentType ?? "Fulfillment", "")
        }
    }

    func shippingCard(_ shipping: ShippingFulfillment, at pointer: String, order: Order) -> String {
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
        // Wallet shows the estimate's date only, unless a window is given ("the time is ignored
        // unless estimatedDeliveryWindowDuration is set").
        let expected = shipping.estimatedDeliveryAt.map { estimate in
            shipping.estimatedDeliveryWindowDuration.flatMap(Formats.seconds(ofDuration:)).map { $0 > 0 } == true
                ? formats.window(estimate, duration: shipping.estimatedDeliveryWindowDuration) : formats.date(estimate)
        }
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
        if let number = shipping.trackingNumber { rows += HTML.codeRow(w(.trackingNumber), number) }
        if let recipient = shipping.recipient {
            let name = [recipient.givenName, recipient.familyName].compactMap { $0 }.joined(separator: " ")
            let lines = ([name, recipient.organizationName ?? ""].filter { !$0.isEmpty }) + addressLines(recipient.address)
            rows += HTML.row(w(.shipTo), lines.map(HTML.escape).joined(separator: "<br>"))
        }
        if let notes = shipping.notes { rows += HTML.textRow(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let url = shipping.trackingURL {
            html += HTML.link(url, w(.trackShipment), className: "button") + findings.take(at: pointer + "/trackingURL")
        }
        if let items = shipping.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        let title = shipping.shippingType == .delivery ? w(.delivery) : w(.shipment)
        return card("fulfillment shipping", pointer, title: title, html)
    }

    mutating func pickupCard(_ pickup: PickupFulfillment, at pointer: String, order: Order) -> String {
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
        var rows = HTML.row(
            w(.pickupAt), ([localization.text(pickup.displayName)] + addressLines(pickup.address)).map(HTML.escape).joined(separator: "<br>"))
        if let window { rows += HTML.row(w(.pickupWindow), HTML.escape(window)) }
        if let notes = pickup.notes { rows += HTML.textRow(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let location = pickup.location {
            let url =
                "https://maps.apple.com/?ll=\(location.latitude),\(location.longitude)&q=\(localization.text(pickup.displayName).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            html += HTML.link(url, w(.directions), className: "button secondary-button")
        }
        if let barcode = pickup.barcode {
            html += HTML.element("h3", nil, HTML.escape(w(.pickupCode))) + barcodeHTML(barcode, at: pointer + "/barcode")
        }
        if let items = pickup.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        return card("fulfillment pickup", pointer, title: w(.pickup), html)
    }

    func lineItemList(_ items: [LineItem], at pointer: String) -> String {
        var html = ""
        for (index, item) in items.enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let picture =
                item.image.map { image($0, at: itemPointer + "/image", className: "item-image", alt: localization.text(item.title)) }
                ?? "<span class=\"item-image none\"></span>"
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
    func thumbnails(_ items: [LineItem], at pointer: String) -> String {
        var html = ""
        for (index, item) in items.enumerated() {
            let title = localization.text(item.title)
            html +=
                item.image.map { image($0, at: "\(pointer)/\(index)/image", className: "thumb", alt: title) }
                ?? "<span class=\"thumb none\" title=\"\(HTML.escape(title))\"></span>"
        }
        let count = items.reduce(0) { $0 + $1.quantity }
        let noun = w(count == 1 ? .item : .items)
        let label = HTML.escape("\(formats.number(count)) \(Words.lowercasesNouns(localization.pageLanguage) ? noun.lowercased() : noun)")
        return HTML.element("div", "thumbs", html + HTML.element("span", "thumbs-count secondary", label)) + findings.take(under: pointer)
    }

    func paymentCard(_ payment: Payment) -> String {
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
                var line = HTML.element(
                    "span", "label",
                    HTML.escape(kind)
                        + "<br><small class=\"secondary\">\(HTML.escape(formats.dateTime(transaction.createdAt))) · \(t(transaction.paymentMethod.displayName)) · \(HTML.escape(transaction.status.rawValue))</small>"
                )
                let sign = transaction.transactionType == .refund ? "−" : ""
                line += HTML.element("span", "value", sign + HTML.escape(formats.money(transaction.amount)))
                var extra = ""
                if let receipt = transaction.receipt {
                    extra = document(receipt, at: "/payment/transactions/\(index)/receipt", label: w(.receipt))
                }
                list += HTML.element(
                    "li", "transaction", HTML.element("div", "row", line) + extra + findings.take(under: "/payment/transactions/\(index)"))
            }
            html += HTML.element("h3", nil, HTML.escape(w(.transactions))) + HTML.element("ul", "transactions", list)
        }
        return card("payment", "/payment", title: w(.payment), html)
    }

    func returnCard(_ item: OrderReturn, at pointer: String) -> String {
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
        if let notes = item.notes { rows += HTML.textRow(w(.notes), t(notes)) }
        html += HTML.element("div", "rows", rows)
        if let label = item.returnLabel { html += document(label, at: pointer + "/returnLabel", label: w(.returnLabel)) }
        if let url = item.returnManagementURL { html += HTML.link(url, w(.manageReturn), className: "button secondary-button") }
        if let items = item.lineItems, !items.isEmpty { html += thumbnails(items, at: pointer + "/lineItems") }
        return card("return", pointer, title: w(.returns), html)
    }

    func returnInfoCard(_ info: ReturnInfo) -> String {
        var html = ""
        if let description = info.returnPolicyDescription { html += HTML.element("p", "prose", t(description)) }
        if let deadline = info.returnDeadline {
            html += HTML.element("div", "rows", HTML.row(w(.returnBy), HTML.escape(formats.date(deadline))))
        }
        html += HTML.link(info.returnPolicyURL, w(.returnPolicy))
        if let url = info.returnManagementURL { html += " · " + HTML.link(url, w(.manageReturn)) }
        return card("return-info", "/returnInfo", title: w(.returnPolicy), html)
    }

    mutating func barcodeHTML(_ barcode: Barcode, at pointer: String) -> String {
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

    func linksCard(_ order: Order) -> String {
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
            provider += image(
                orderProvider.trackingLogoNameLightColorScheme, at: "/orderProvider/trackingLogoNameLightColorScheme",
                className: "provider-logo only-light", alt: name)
            provider += image(
                orderProvider.trackingLogoNameDarkColorScheme, at: "/orderProvider/trackingLogoNameDarkColorScheme",
                className: "provider-logo only-dark", alt: name)
            provider += HTML.element("p", "secondary small", HTML.escape(w(.orderProvider)) + " " + HTML.link(orderProvider.url, name))
            provider = HTML.element("div", "provider", provider + findings.take(under: "/orderProvider"))
        }
        return card("links", "/merchant", title: nil, HTML.element("div", "rows", html) + provider)
    }
}
