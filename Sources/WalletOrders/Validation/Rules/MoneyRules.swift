/// Currencies from ISO 4217, amounts with the currency's minor units, one currency per payment.
enum MoneyRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        JSONWalk.objects(of: root) { members, path in
            guard let amountMember = members.first(where: { $0.key == "amount" }),
                let currency = members.first(where: { $0.key == "currency" })?.value.stringValue
            else { return }
            var currencyPointer: String { path.pointer(appending: "currency") }
            let minorUnits = ReferenceData.currencyMinorUnits[currency]
            if minorUnits == nil, ASCIIText.isUppercaseLetters(currency, count: 3) {
                let suggestion = NearestName.suggestion(for: currency, among: ReferenceData.currencyMinorUnits.keys)
                findings.append(
                    context.diagnostic(
                        "money.unknown-currency", "'\(currency)' is not an ISO 4217 currency code.", pointer: currencyPointer,
                        hint: suggestion.map { "Did you mean '\($0)'?" } ?? "Use an ISO 4217 code such as USD, EUR or JPY."))
            }
            var amountPointer: String { path.pointer(appending: "amount") }
            let text: String?
            switch amountMember.value.value {
            case .number(let number):
                findings.append(
                    context.diagnostic(
                        "money.amount-number", "The amount \(number) is a JSON number; Apple's schema types it as a string.",
                        pointer: amountPointer, hint: "Write \"\(number)\" (a string) so the decimal stays exact."))
                text = number
            case .string(let string):
                text = string
            default:
                text = nil
            }
            if let text, let minorUnits, let digits = ASCIIText.decimalsWithoutExponent(text), digits > minorUnits {
                findings.append(
                    context.diagnostic(
                        "money.minor-units",
                        "\(text) \(currency) has \(digits) decimal\(digits == 1 ? "" : "s"); \(currency) has \(minorUnits).",
                        pointer: amountPointer, hint: "Round to \(minorUnits) decimal\(minorUnits == 1 ? "" : "s")."))
            }
        }
        // One currency per payment: the total's.
        guard let payment = root["payment"], let total = payment["total"]?["currency"]?.stringValue else { return }
        var others: [(String, String)] = []
        for (index, item) in (payment["summaryItems"]?.elements ?? []).enumerated() {
            if let currency = item["value"]?["currency"]?.stringValue { others.append((currency, "/payment/summaryItems/\(index)/value/currency")) }
        }
        for (index, transaction) in (payment["transactions"]?.elements ?? []).enumerated() {
            if let currency = transaction["amount"]?["currency"]?.stringValue {
                others.append((currency, "/payment/transactions/\(index)/amount/currency"))
            }
        }
        for (currency, pointer) in others where currency != total {
            findings.append(
                context.diagnostic(
                    "money.currency-mismatch", "\(currency) differs from the payment total's currency \(total).", pointer: pointer,
                    hint: "Wallet converts nothing: express every amount of the payment in \(total)."))
        }
    }
}

/// Country codes from ISO 3166-1.
enum AddressRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        JSONWalk.members(of: root) { member, path, _ in
            guard member.key == "countryCode", let code = member.value.stringValue, ASCIIText.isUppercaseLetters(code, count: 2),
                !ReferenceData.countryCodes.contains(code)
            else { return }
            findings.append(
                context.diagnostic(
                    "address.unknown-country", "'\(code)' is not an ISO 3166-1 alpha-2 country code.", pointer: path.pointer,
                    hint: "Use the two-letter ISO 3166-1 code, such as US, FR or JP (GB, not UK)."))
        }
    }
}

/// Identifiers that must be unique within the order.
enum UniquenessRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        for (array, key, rule) in [
            ("fulfillments", "fulfillmentIdentifier", "uniqueness.fulfillment-identifier"),
            ("returns", "returnIdentifier", "uniqueness.return-identifier"),
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
                    "compatibility.newer-field", "\(name) is shown from iOS \(version) / macOS \(version == "17.0" ? "14.0" : version == "17.2" ? "14.2" : "14.4") on; older systems ignore it.",
                    pointer: pointer))
        }
    }
}

/// String checks the rules make on every amount and code, with a byte-level path for ASCII text
/// (what valid orders hold) that gives exactly the Character-level answer, and the
/// Character-level code for anything else.
enum ASCIIText {
    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `text.count == count && text.allSatisfy(\.isUppercase)`.
    static func isUppercaseLetters(_ text: String, count: Int) -> Bool {
        guard isASCII(text) else { return text.count == count && text.allSatisfy(\.isUppercase) }
        // In ASCII, exactly A–Z are uppercase.
        return text.utf8.count == count && text.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A }
    }

    /// The number of characters after the first `.` when there is one and no `e`/`E`; else `nil`.
    static func decimalsWithoutExponent(_ text: String) -> Int? {
        // CR LF is one Character but two bytes: such text takes the Character path.
        guard isASCII(text), !text.utf8.contains(0x0D) else {
            guard let dot = text.firstIndex(of: "."), !text.contains("e"), !text.contains("E") else { return nil }
            return text[text.index(after: dot)...].count
        }
        let bytes = text.utf8
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")),
            !bytes.contains(UInt8(ascii: "e")), !bytes.contains(UInt8(ascii: "E"))
        else { return nil }
        return bytes.distance(from: dot, to: bytes.endIndex) - 1
    }
}
