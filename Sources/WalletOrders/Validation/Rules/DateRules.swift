import WalletOrdersJSON

/// Dates that contradict each other or their statuses.
enum DateRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        func time(_ node: JSONNode?) -> Timestamp? { node?.stringValue.flatMap { try? Timestamp(rfc3339: $0) } }
        let created = time(root["createdAt"])
        if let created, let updated = time(root["updatedAt"]), updated < created {
            findings.append(
                context.diagnostic(
                    .orderUpdatedBeforeCreated, "updatedAt \(updated.text) is earlier than createdAt \(created.text).",
                    pointer: "/updatedAt", hint: "Set updatedAt ≥ createdAt (equal on the first version) and increase it with every change."))
        }
        if let updated = time(root["updatedAt"]),
            let problem = UpdatedAtLimit.default.problem(updated, now: context.now, clock: "the current time")
        {
            findings.append(context.diagnostic(.orderUpdatedAtInFuture, problem.message, pointer: "/updatedAt", hint: problem.hint))
        }
        func early(_ node: JSONNode?, _ pointer: String, _ what: String) {
            if let created, let date = time(node), date < created {
                findings.append(
                    context.diagnostic(
                        .datesBeforeOrderCreated, "\(what) \(date.text) is before the order's createdAt \(created.text).",
                        pointer: pointer, hint: "Check the date and its time zone offset; createdAt is when the customer placed the order."))
            }
        }
        for (index, fulfillment) in (root["fulfillments"]?.elements ?? []).enumerated() {
            let base = "/fulfillments/\(index)"
            let status = fulfillment["status"]?.stringValue
            let shipped = time(fulfillment["shippedAt"])
            let delivered = time(fulfillment["deliveredAt"])
            early(fulfillment["shippedAt"], base + "/shippedAt", "shippedAt")
            early(fulfillment["deliveredAt"], base + "/deliveredAt", "deliveredAt")
            early(fulfillment["pickedUpAt"], base + "/pickedUpAt", "pickedUpAt")
            if let shipped, let delivered, delivered < shipped {
                findings.append(
                    context.diagnostic(
                        .datesOutOfOrder, "deliveredAt \(delivered.text) is before shippedAt \(shipped.text).",
                        pointer: base + "/deliveredAt", hint: "A parcel is delivered after it ships; check both dates and their offsets."))
            }
            switch fulfillment["fulfillmentType"]?.stringValue {
            case "shipping":
                if status == "delivered" && delivered == nil {
                    findings.append(
                        context.diagnostic(
                            .datesStatusMismatch, "The shipment's status is delivered but it has no deliveredAt.",
                            pointer: base + "/status", hint: "Add deliveredAt with the delivery time."))
                } else if delivered != nil && status != "delivered" {
                    findings.append(
                        context.diagnostic(
                            .datesStatusMismatch, "deliveredAt is set but the status is \(status ?? "missing"), not delivered.",
                            pointer: base + "/deliveredAt", hint: "Set the status to delivered, or remove deliveredAt."))
                }
                if shipped != nil, ["open", "processing"].contains(status ?? "") {
                    findings.append(
                        context.diagnostic(
                            .datesStatusMismatch, "shippedAt is set but the status is still \(status ?? "").", pointer: base + "/shippedAt",
                            hint: "Use shipped, onTheWay, outForDelivery or delivered once the parcel has left."))
                }
            case "pickup":
                let pickedUp = time(fulfillment["pickedUpAt"])
                if status == "pickedUp" && pickedUp == nil {
                    findings.append(
                        context.diagnostic(
                            .datesStatusMismatch, "The pickup's status is pickedUp but it has no pickedUpAt.",
                            pointer: base + "/status", hint: "Add pickedUpAt with the pickup time."))
                } else if pickedUp != nil && status != "pickedUp" {
                    findings.append(
                        context.diagnostic(
                            .datesStatusMismatch, "pickedUpAt is set but the status is \(status ?? "missing"), not pickedUp.",
                            pointer: base + "/pickedUpAt", hint: "Set the status to pickedUp, or remove pickedUpAt."))
                }
            default:
                break
            }
        }
        for (index, transaction) in (root["payment"]?["transactions"]?.elements ?? []).enumerated() {
            early(transaction["createdAt"], "/payment/transactions/\(index)/createdAt", "The transaction's createdAt")
        }
        for (index, orderReturn) in (root["returns"]?.elements ?? []).enumerated() {
            let base = "/returns/\(index)"
            early(orderReturn["initiatedAt"], base + "/initiatedAt", "initiatedAt")
            if let initiated = time(orderReturn["initiatedAt"]), let returned = time(orderReturn["returnedAt"]), returned < initiated {
                findings.append(
                    context.diagnostic(
                        .datesOutOfOrder, "returnedAt \(returned.text) is before initiatedAt \(initiated.text).",
                        pointer: base + "/returnedAt", hint: "A return is returned after it is initiated; check both dates."))
            }
        }
    }
}
