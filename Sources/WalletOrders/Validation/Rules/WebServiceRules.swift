import WalletOrdersJSON

/// Whether Wallet can ask a service for updates to the order.
enum WebServiceRules {
    /// The hint of `order.no-web-service`: what to add, and what an order without it means.
    static let noWebServiceHint =
        "Add webServiceURL (your service's https:// base URL) and an authenticationToken of 16 or more random characters; `wallet-orders serve` is such a service."

    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root, root.members != nil, root["webServiceURL"] == nil else { return }
        findings.append(
            context.diagnostic(
                .orderNoWebService,
                "order.json has no webServiceURL: Wallet won't ask any service for updates to this order, and no device can register for it; a change reaches the customer only as a new archive they add again.",
                pointer: "", hint: noWebServiceHint))
    }
}
