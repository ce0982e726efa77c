import WalletOrdersJSON

/// Fields that older iOS versions don't show.
enum CompatibilityRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        var found: [(String, String, String)] = []
        for (key, version) in [("returns", "17.2"), ("returnInfo", "17.2"), ("orderProvider", "17.4"), ("associatedApplicationIdentifiers", "17.0")]
        where root[key] != nil {
            found.append(("/" + key, key, version))
        }
        if root["payment"]?["transactions"] != nil { found.append(("/payment/transactions", "payment.transactions", "17.0")) }
        for (index, fulfillment) in (root["fulfillments"]?.elements ?? []).enumerated() where fulfillment["shippingType"] != nil {
            found.append(("/fulfillments/\(index)/shippingType", "shippingType", "17.0"))
        }
        for (pointer, name, version) in found {
            findings.append(
                context.diagnostic(
                    .compatibilityNewerField,
                    "\(name) is shown from iOS \(version) / macOS \(version == "17.0" ? "14.0" : version == "17.2" ? "14.2" : "14.4") on; older systems ignore it.",
                    pointer: pointer))
        }
    }
}
