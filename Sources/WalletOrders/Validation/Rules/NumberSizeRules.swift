import WalletOrdersJSON

/// Numbers Wallet's decoder can't hold. JSON puts no limit on a number's size; Wallet decodes
/// `order.json` into fixed-size types, and a value that doesn't fit makes decoding fail (or,
/// worse, silently round). The limits, decided here because Apple documents none (spec §3.0:
/// `number`; FinanceKit's amounts are `Decimal`):
///
/// - every number must be a finite 64-bit float (`Double`): `1e400` overflows to infinity and
///   `1e-400` underflows to zero;
/// - an integer written without a fraction or exponent must fit a 64-bit signed integer, the
///   widest integer type a decoder offers (no order needs more than 19 digits);
/// - an amount (`amount` beside `currency`, a string or a number) must fit Foundation's `Decimal`:
///   at most 38 significant digits, exponent within ±127 after normalization.
enum NumberSizeRules {
    static let rule = ValidationRule.jsonNumberUnrepresentable
    /// `Decimal`'s mantissa holds 38 decimal digits.
    static let decimalDigits = 38

    /// A number, as ``ContentWalk`` passes it (`isAmount`: an `amount` beside a `currency`).
    static func visit(
        number text: String, isAmount: Bool, at path: JSONPath, position: SourcePosition, context: ValidationContext,
        into findings: inout [Diagnostic]
    ) {
        guard let problem = problem(number: text, isAmount: isAmount) else { return }
        findings.append(context.diagnostic(rule, problem.message, pointer: path.pointer, position: position, hint: problem.hint))
    }

    /// An amount written as a string, as ``ContentWalk`` passes it.
    static func visit(
        amount text: String, at path: JSONPath, position: SourcePosition, context: ValidationContext, into findings: inout [Diagnostic]
    ) {
        guard let problem = decimalProblem(text) else { return }
        findings.append(context.diagnostic(rule, problem.message, pointer: path.pointer, position: position, hint: problem.hint))
    }

    /// Whether `text` is short and plain enough to fit every limit without looking further: at
    /// most 15 characters and no exponent is at most 15 digits, a magnitude between 10^-13 and
    /// 10^15 (a finite, normal `Double`), an integer within `Int64` and a decimal within
    /// `Decimal` (an amount string that is no number at all is the schema's business). Nearly
    /// every number of a real order is one of these.
    static func isPlainlySmall(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= 15 else { return false }
        for byte in utf8 where byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
        return true
    }

    /// What can't be represented about a JSON number literal (`text` is valid JSON number syntax).
    static func problem(number text: String, isAmount: Bool) -> (message: String, hint: String)? {
        if isPlainlySmall(text) { return nil }
        let shown = text.count > 40 ? "\(text.prefix(20))…(\(text.count) characters)" : text
        if isAmount, let problem = decimalProblem(text) { return problem }
        guard let value = Double(text), value.isFinite else {
            return (
                "The number \(shown) is too large for a 64-bit float, so Wallet can't decode it.",
                "Use a number within ±1.8e308; no order value comes near it."
            )
        }
        let digits = significantDigits(text)
        if value == 0, digits.count > 0 {
            return ("The number \(shown) is too small for a 64-bit float and would decode as 0.", "Write 0, or a value Wallet can hold.")
        }
        let isInteger = !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        if isInteger, Int64(text) == nil {
            return (
                "The integer \(shown) does not fit a 64-bit integer, so Wallet can't decode it.",
                "Integers must lie within ±9,223,372,036,854,775,807."
            )
        }
        return nil
    }

    /// Why `text` (a decimal written as a string or a number) does not fit `Decimal`, if it doesn't.
    static func decimalProblem(_ text: String) -> (message: String, hint: String)? {
        if isPlainlySmall(text) { return nil }
        let digits = significantDigits(text)
        let shown = text.count > 40 ? "\(text.prefix(20))…(\(text.count) characters)" : text
        if digits.count > decimalDigits {
            return (
                "The amount \(shown) has \(digits.count) significant digits; Wallet's Decimal holds \(decimalDigits).",
                "Round the amount to the currency's minor units."
            )
        }
        if digits.count > 0, !(-128...127).contains(digits.exponent) {
            return (
                "The amount \(shown) is out of Decimal's range (10^-128 to 10^127).", "Write the amount in plain decimal form, such as \"12.50\"."
            )
        }
        return nil
    }

    /// The significant digits of a decimal literal (leading and trailing zeros dropped) and the
    /// power of ten of its last significant digit; zero digits for zero or text that isn't a number.
    static func significantDigits(_ text: String) -> (count: Int, exponent: Int) {
        var count = 0  // digits from the first nonzero one to the last nonzero one
        var pendingZeros = 0  // zeros after the last nonzero digit so far
        var started = false
        var fractionDigits = 0
        var exponent = 0
        var inFraction = false
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inFraction { fractionDigits += 1 }
                if byte == UInt8(ascii: "0") {
                    if started { pendingZeros += 1 }
                } else {
                    started = true
                    count += pendingZeros + 1
                    pendingZeros = 0
                }
            case UInt8(ascii: "."):
                inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                var rest: [UInt8] = []
                while let next = bytes.next() { rest.append(next) }
                // Clamp absurd exponents: they are out of range either way.
                exponent = Int(String(decoding: rest.prefix(12), as: UTF8.self)) ?? 0
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                continue
            default:
                return (0, 0)
            }
        }
        return (count, exponent - fractionDigits + pendingZeros)
    }
}
