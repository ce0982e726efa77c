import WalletOrdersJSON

/// Identifiers that must be unique within the order.
enum UniquenessRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        for (array, key, rule) in [
            ("fulfillments", "fulfillmentIdentifier", ValidationRule.uniquenessFulfillmentIdentifier),
            ("returns", "returnIdentifier", ValidationRule.uniquenessReturnIdentifier),
        ] {
            var seen: [String: Int] = [:]
            for (index, element) in (root[array]?.elements ?? []).enumerated() {
                guard let identifier = element[key]?.stringValue else { continue }
                if let first = seen[identifier] {
                    findings.append(
                        context.diagnostic(
                            rule, "\(key) '\(identifier)' is already used by /\(array)/\(first).", pointer: "/\(array)/\(index)/\(key)",
                            hint: "Give each entry its own identifier; Wallet uses it to detect changes."))
                } else {
                    seen[identifier] = index
                }
            }
        }
    }
}
