import WalletOrdersJSON

/// Currencies from ISO 4217, amounts with the currency's minor units, one currency per payment.
enum MoneyRules {
    /// The keys of a money object (`CurrencyAmount`).
    static let amountKey = "amount"
    static let currencyKey = "currency"

    /// One object, as ``ContentWalk`` passes it: its first `amount` and its first `currency`
    /// (a string).
    static func visit(amount: JSONNode, currency: String, at path: JSONPath, context: ValidationContext, into findings: inout [Diagnostic]) {
        var currencyPointer: String { path.pointer(appending: "currency") }
        let minorUnits = ReferenceData.currencyMinorUnits[currency]
        if minorUnits == nil, ASCIIText.isUppercaseLetters(currency, count: 3) {
            let suggestion = NearestName.suggestion(for: currency, among: ReferenceData.currencyMinorUnits.keys)
            findings.append(
                context.diagnostic(
                    .moneyUnknownCurrency, "'\(currency)' is not an ISO 4217 currency code.", pointer: currencyPointer,
                    hint: suggestion.map { "Did you mean '\($0)'?" } ?? "Use an ISO 4217 code such as USD, EUR or JPY."))
        }
        var amountPointer: String { path.pointer(appending: "amount") }
        let text: String?
        switch amount.value {
        case .number(let number):
            findings.append(
                context.diagnostic(
                    .moneyAmountNumber, "The amount \(number) is a JSON number; Apple's schema types it as a string.",
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
                    .moneyMinorUnits,
                    "\(text) \(currency) has \(digits) decimal\(digits == 1 ? "" : "s"); \(currency) has \(minorUnits).",
                    pointer: amountPointer, hint: "Round to \(minorUnits) decimal\(minorUnits == 1 ? "" : "s")."))
        }
    }

    /// One currency per payment: the total's.
    static func checkPaymentCurrencies(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        // A total that isn't a currency code already has its schema finding; comparing with it says nothing more.
        guard let payment = root["payment"], let total = payment["total"]?["currency"]?.stringValue,
            ASCIIText.isUppercaseLetters(total, count: 3)
        else { return }
        var others: [(String, String)] = []
        for (index, item) in (payment["summaryItems"]?.elements ?? []).enumerated() {
            if let currency = item["value"]?["currency"]?.stringValue { others.append((currency, "/payment/summaryItems/\(index)/value/currency")) }
        }
        for (index, transaction) in (payment["transactions"]?.elements ?? []).enumerated() {
            if let currency = transaction["amount"]?["currency"]?.stringValue {
                others.append((currency, "/payment/transactions/\(index)/amount/currency"))
            }
        }
        for (currency, pointer) in others where currency != total && ASCIIText.isUppercaseLetters(currency, count: 3) {
            findings.append(
                context.diagnostic(
                    .moneyCurrencyMismatch, "\(currency) differs from the payment total's currency \(total).", pointer: pointer,
                    hint: "Wallet converts nothing: express every amount of the payment in \(total)."))
        }
    }
}
