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
                    pointer: amountPointer,
                    hint: plainDecimal(number).map { "Write \"\($0)\" (a string) so the decimal stays exact." }
                        ?? "Write it as a string of plain decimal digits, such as \"12.50\", so the decimal stays exact."))
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

    /// The most digits ``plainDecimal(_:)`` writes out: an amount is never longer.
    static let plainDecimalDigitLimit = 40

    /// A JSON number's text as the plain decimal text an amount string holds (`-?[0-9]+(\.[0-9]+)?`,
    /// no exponent): `1.9293e2` → `192.93`, `5e-3` → `0.005`, `1E+2` → `100`; the digits as written
    /// (`1.50e1` → `15.0`). `nil` when that would take more than ``plainDecimalDigitLimit`` digits.
    static func plainDecimal(_ number: String) -> String? {
        var text = Substring(number)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        let parts = text.split(maxSplits: 1, omittingEmptySubsequences: false) { $0 == "e" || $0 == "E" }
        guard parts.count == 2 else { return number }  // no exponent: plain already
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = mantissa[0]
        let fraction = mantissa.count > 1 ? mantissa[1] : ""
        guard let exponent = Int(parts[1]), exponent.magnitude <= UInt(plainDecimalDigitLimit) else { return nil }  // abs(Int.min) traps
        var digits = Array(integer + fraction)
        var point = integer.count + exponent  // digits before the decimal point
        if point < 1 {
            digits = Array(repeating: "0", count: 1 - point) + digits
            point = 1
        }
        if point > digits.count { digits += Array(repeating: "0", count: point - digits.count) }
        guard digits.count <= plainDecimalDigitLimit else { return nil }
        let whole = String(digits[..<point].drop { $0 == "0" })
        let rest = String(digits[point...])
        let plain = (whole.isEmpty ? "0" : whole) + (rest.isEmpty ? "" : "." + rest)
        let isZero = plain.allSatisfy { $0 == "0" || $0 == "." }
        return (negative && !isZero ? "-" : "") + plain
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
