public import Foundation

/// An exact decimal number, such as a monetary amount, that keeps the text it was written with.
///
/// Money must never pass through `Double`: `0.1 + 0.2` isn't `0.3` in binary floating point.
/// `DecimalAmount` stores the decimal text itself, in the plain format order.json uses for
/// ``CurrencyAmount/amount``: an optional `-`, one or more digits, and optionally `.` followed by
/// one or more digits (`-?[0-9]+(\.[0-9]+)?`). There is no grouping, exponent, `+` sign or
/// whitespace, and the separator is always `.`.
///
/// - **Equality and hashing** use the numeric value, so `"28.80"` equals `"28.8"` and `"007"`
///   equals `"7"`; the comparison is exact however many digits the text has. ``text`` is kept as
///   written and is what encoding writes, so `"28.80"` re-encodes as `"28.80"`.
/// - **Decoding** accepts a JSON string or a JSON number. Apple's schema types `amount` as a
///   string, but Apple's own bakery sample writes numbers such as `28.8`. A number keeps its exact
///   digits (swift-foundation's `JSONDecoder` parses `Decimal` from the number's text, not
///   through `Double`), written in plain form: `28.8` becomes `"28.8"`, `1e2` becomes `"100"`.
///   Trailing fractional zeros of a number are lost (`1.50` becomes `"1.5"`).
/// - **Encoding** always writes a JSON string, as the schema asks.
public struct DecimalAmount: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral
{
    /// The decimal text exactly as given or decoded, such as `"28.80"`.
    public let text: String

    /// The normalized text used for equality, hashing and ordering: no leading integer zeros,
    /// no trailing fractional zeros, and no sign on zero.
    private let canonical: String

    /// Creates an amount from plain decimal text.
    ///
    /// - Parameter text: An optional `-`, one or more ASCII digits, and optionally `.` followed by
    ///   one or more digits, for example `"12.50"` or `"-3"`.
    /// - Throws: ``ValueFormatError`` saying what is wrong, for text such as `"12,50"`, `"1e3"`,
    ///   `"abc"`, `".5"` or `""`.
    public init(_ text: String) throws {
        self.text = text
        self.canonical = try Self.canonicalize(text)
    }

    /// Creates an amount from a `Decimal`, written in plain notation (`Decimal(100)` is `"100"`).
    ///
    /// - Parameter value: A finite decimal value; `Decimal.nan` is a programming error.
    public init(_ value: Decimal) {
        precondition(!value.isNaN, "DecimalAmount can't represent Decimal.nan")
        do {
            try self.init(value.description)
        } catch {
            preconditionFailure("Decimal.description produced non-plain text: \(error)")
        }
    }

    /// Creates an amount from an integer, such as `DecimalAmount(24)` (text `"24"`).
    ///
    /// - Parameter value: The integer value.
    public init(_ value: Int) {
        self.text = String(value)
        self.canonical = Self.canonicalizeValid(self.text)
    }

    /// Creates an amount from a string literal such as `"19.99"`.
    ///
    /// - Parameter value: Plain decimal text; a literal that isn't one is a programming error.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Creates an amount from an integer literal such as `24`.
    ///
    /// - Parameter value: The integer value.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// The numeric value as a `Decimal`.
    ///
    /// `Decimal` holds up to 38 significant digits; longer text is rounded here, while
    /// ``text`` and equality stay exact.
    public var decimalValue: Decimal {
        // The text is validated plain decimal notation, which `Decimal(string:)` always parses.
        Decimal(string: canonical, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    /// The number of digits after the decimal point in ``text``, such as 2 for `"28.80"`.
    ///
    /// Validators compare it with the currency's minor-unit scale.
    public var fractionDigits: Int {
        guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return 0 }
        return text.utf8.distance(from: dot, to: text.utf8.endIndex) - 1
    }

    /// Whether the value is below zero (`"-0.00"` is not).
    public var isNegative: Bool { canonical.hasPrefix("-") }

    /// The decimal text, exactly as ``text``.
    public var description: String { text }

    /// Returns whether two amounts have the same numeric value, however they are written.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.canonical == rhs.canonical
    }

    /// Hashes the numeric value, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }

    /// Returns whether the left amount is numerically smaller, compared exactly digit by digit.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.isNegative, rhs.isNegative) {
        case (true, false): return true
        case (false, true): return false
        case (false, false): return Self.magnitudeLess(lhs.canonical, rhs.canonical)
        case (true, true):
            return Self.magnitudeLess(String(rhs.canonical.dropFirst()), String(lhs.canonical.dropFirst()))
        }
    }

    /// Decodes an amount from a JSON string holding plain decimal text, or from a JSON number.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` with a message saying what is wrong when a string
    ///   isn't plain decimal text; `DecodingError.typeMismatch` when the value is neither a string
    ///   nor a number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            do {
                try self.init(string)
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
            }
        } else if let number = try? container.decode(Decimal.self), !number.isNaN {
            self.init(number)
        } else {
            throw DecodingError.typeMismatch(
                DecimalAmount.self,
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "Expected a decimal amount as a JSON string (such as \"12.50\") or a JSON number"
                )
            )
        }
    }

    /// Encodes the amount as a JSON string holding ``text``.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

// MARK: - Parsing

extension DecimalAmount {
    /// Checks `text` against `-?[0-9]+(\.[0-9]+)?` and returns its canonical form.
    private static func canonicalize(_ text: String) throws(ValueFormatError) -> String {
        func failure(_ reason: String) -> ValueFormatError {
            ValueFormatError(kind: "decimal amount", text: text, reason: reason)
        }
        let bytes = Array(text.utf8)
        if bytes.isEmpty { throw failure("the text is empty; expected digits such as \"12.50\"") }
        var index = 0
        if bytes[0] == UInt8(ascii: "-") { index = 1 }
        var integerDigits = 0
        var fractionDigits: Int?
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if fractionDigits == nil { integerDigits += 1 } else { fractionDigits! += 1 }
            case UInt8(ascii: "."):
                if fractionDigits != nil { throw failure("it has more than one \".\"") }
                if integerDigits == 0 { throw failure("it needs a digit before \".\" (write \"0.5\", not \".5\")") }
                fractionDigits = 0
            case UInt8(ascii: ","):
                throw failure("\",\" isn't allowed; use \".\" as the decimal separator and no digit grouping")
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                throw failure("exponent notation isn't allowed; write the digits out, such as \"1000\"")
            case UInt8(ascii: "+"):
                throw failure("a \"+\" sign isn't allowed; only \"-\" may precede the digits")
            case UInt8(ascii: "-"):
                throw failure("\"-\" is only allowed as the first character")
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw failure("whitespace isn't allowed")
            default:
                let character = String(decoding: [byte], as: UTF8.self)
                let shown = byte < 0x80 ? "\"\(character)\"" : "a non-ASCII character"
                throw failure(
                    "\(shown) at offset \(index) isn't allowed; "
                        + "expected only digits, an optional leading \"-\" and one \".\""
                )
            }
            index += 1
        }
        if integerDigits == 0 { throw failure("it has no digits") }
        if fractionDigits == 0 { throw failure("it needs a digit after \".\" (write \"5.0\" or \"5\", not \"5.\")") }
        return canonicalizeValid(text)
    }

    /// Returns the canonical form of text already known to be plain decimal notation.
    private static func canonicalizeValid(_ text: String) -> String {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var integerPart = parts[0].drop(while: { $0 == "0" })
        if integerPart.isEmpty { integerPart = "0" }
        var fractionPart = parts.count > 1 ? parts[1] : ""
        while fractionPart.last == "0" { fractionPart = fractionPart.dropLast() }
        let isZero = integerPart == "0" && fractionPart.isEmpty
        return (negative && !isZero ? "-" : "") + integerPart + (fractionPart.isEmpty ? "" : "." + fractionPart)
    }

    /// Compares two non-negative canonical forms numerically.
    private static func magnitudeLess(_ lhs: String, _ rhs: String) -> Bool {
        func split(_ value: String) -> (integer: Substring, fraction: Substring) {
            let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
        let (lhsInteger, lhsFraction) = split(lhs)
        let (rhsInteger, rhsFraction) = split(rhs)
        if lhsInteger.count != rhsInteger.count { return lhsInteger.count < rhsInteger.count }
        if lhsInteger != rhsInteger { return lhsInteger.lexicographicallyPrecedes(rhsInteger) }
        // Canonical fractions have no trailing zeros, so lexicographic order is numeric order.
        return lhsFraction.lexicographicallyPrecedes(rhsFraction)
    }
}
