/// A JSON number as an exact decimal, read from its text: `±significand × 10^exponent` with the
/// significand free of leading and trailing zeros, so equal values have equal representations
/// (`1`, `1.0`, `10e-1` and `0.1e1` are all `+1 × 10^0`; `-0` is zero).
///
/// Significands of up to 19 digits live in a `UInt64`; longer ones in a digit array. Exponents
/// saturate at ±10^12, far beyond anything a comparison with real schema bounds can tell apart,
/// so `1e999999999999999999` neither traps nor allocates.
struct ExactDecimal: Hashable, Sendable {
    /// Whether the value is below zero (never set for zero).
    private(set) var negative: Bool
    /// The significand when it has at most 19 digits (0 for zero).
    private(set) var small: UInt64
    /// The significand's digits, most significant first, when it has more than 19.
    private(set) var large: [UInt8]?
    /// The power of ten the significand is multiplied by.
    private(set) var exponent: Int
    /// How many digits the significand has (0 for zero).
    private(set) var digitCount: Int

    private static let exponentLimit = 1_000_000_000_000
    private static let powersOfTen: [UInt64] = (0...19).map { power in (0..<power).reduce(1) { value, _ in value * 10 } }

    /// Reads a JSON number's text (RFC 8259 grammar; a leading `+`, `.5` or `NaN` is rejected).
    init?(_ text: String) {
        var negative = false
        var small: UInt64 = 0
        var large: [UInt8]?
        var digitCount = 0
        var pendingZeros = 0
        var scale = 0
        var sawDigit = false
        var exponentValue = 0
        var exponentNegative = false
        var state = 0  // 0 sign/int, 1 int digits, 2 after '.', 3 fraction digits, 4 after 'e', 5 after exp sign, 6 exp digits
        var leadingZeroInteger = false

        func append(_ digit: UInt8) {
            if digit == 0 && digitCount == 0 { return }  // leading zero
            if digit == 0 {
                pendingZeros += 1
                return
            }
            for _ in 0..<pendingZeros { push(0) }
            pendingZeros = 0
            push(digit)
        }
        func push(_ digit: UInt8) {
            if large == nil && digitCount < 19 {
                small = small * 10 + UInt64(digit)
            } else {
                if large == nil {
                    large = Array(String(small).utf8.map { $0 - 48 })
                }
                large!.append(digit)
            }
            digitCount += 1
        }

        var index = text.utf8.startIndex
        let utf8 = text.utf8
        if index < utf8.endIndex && utf8[index] == UInt8(ascii: "-") {
            negative = true
            index = utf8.index(after: index)
        }
        while index < utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = byte - UInt8(ascii: "0")
                switch state {
                case 0, 1:
                    if leadingZeroInteger { return nil }
                    if state == 0 && digit == 0 { leadingZeroInteger = true }
                    state = 1
                    sawDigit = true
                    append(digit)
                case 2, 3:
                    state = 3
                    append(digit)
                    scale -= 1
                case 4, 5, 6:
                    state = 6
                    if exponentValue < Self.exponentLimit { exponentValue = exponentValue * 10 + Int(digit) }
                default: return nil
                }
            case UInt8(ascii: "."):
                guard state == 1 else { return nil }
                state = 2
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard state == 1 || state == 3 else { return nil }
                state = 4
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard state == 4 else { return nil }
                exponentNegative = byte == UInt8(ascii: "-")
                state = 5
            default:
                return nil
            }
        }
        guard sawDigit, state == 1 || state == 3 || state == 6 else { return nil }
        let exponentPart = min(exponentValue, Self.exponentLimit)
        var exponent = scale + pendingZeros + (exponentNegative ? -exponentPart : exponentPart)
        if digitCount == 0 {
            negative = false
            exponent = 0
        }
        self.negative = negative
        self.small = large == nil ? small : 0
        self.large = large
        self.exponent = exponent
        self.digitCount = digitCount
    }

    /// Whether the value is zero.
    var isZero: Bool { digitCount == 0 }

    /// Whether the value has no fractional part.
    var isInteger: Bool { isZero || exponent >= 0 }

    /// The value as a non-negative `Int` when it is a non-negative integer; `Int.max` when it is
    /// one too large for `Int`.
    var nonNegativeInteger: Int? {
        guard isInteger, !negative else { return nil }
        if isZero { return 0 }
        guard large == nil, digitCount + exponent <= 18 else { return Int.max }
        return Int(small * Self.powersOfTen[exponent])
    }

    /// The significand's digits, most significant first.
    private var digits: [UInt8] {
        if let large { return large }
        return isZero ? [] : Array(String(small).utf8.map { $0 - 48 })
    }

    /// -1, 0 or 1 as `lhs` is below, equal to or above `rhs`.
    static func compare(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        let lhsSign = lhs.isZero ? 0 : (lhs.negative ? -1 : 1)
        let rhsSign = rhs.isZero ? 0 : (rhs.negative ? -1 : 1)
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        let magnitude = compareMagnitude(lhs, rhs)
        return lhsSign < 0 ? -magnitude : magnitude
    }

    private static func compareMagnitude(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        let lhsOrder = lhs.digitCount + lhs.exponent
        let rhsOrder = rhs.digitCount + rhs.exponent
        if lhsOrder != rhsOrder { return lhsOrder < rhsOrder ? -1 : 1 }
        if lhs.large == nil && rhs.large == nil {
            // Same order of magnitude, so the shorter significand scaled up has at most 19 digits.
            var left = lhs.small
            var right = rhs.small
            if lhs.digitCount < rhs.digitCount {
                left *= powersOfTen[rhs.digitCount - lhs.digitCount]
            } else if rhs.digitCount < lhs.digitCount {
                right *= powersOfTen[lhs.digitCount - rhs.digitCount]
            }
            return left == right ? 0 : (left < right ? -1 : 1)
        }
        let left = lhs.digits
        let right = rhs.digits
        for (a, b) in zip(left, right) where a != b { return a < b ? -1 : 1 }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// Whether `self ÷ divisor` is an integer, exactly; `divisor` must not be zero.
    ///
    /// With `self = a × 10^e₁`, `divisor = b × 10^e₂` and `d = e₁ - e₂`: when `d < 0` the quotient
    /// can't be whole (`a` has no trailing zero); otherwise, writing `b = 2^p × 5^q × r`, it is
    /// whole exactly when `r` divides `a` and `a × 10^d` has the factors `2^p` and `5^q`. No
    /// power of ten is ever materialized, so `1e308` and `1e-300` cost nothing extra.
    func isMultiple(of divisor: ExactDecimal) -> Bool {
        if isZero { return true }
        if divisor.isZero { return false }
        let shift = exponent - divisor.exponent
        if shift < 0 { return false }
        if large == nil && divisor.large == nil {
            var rest = divisor.small
            let twos = rest.trailingZeroBitCount
            rest >>= twos
            var fives = 0
            while rest % 5 == 0 {
                rest /= 5
                fives += 1
            }
            if small % rest != 0 { return false }
            if twos > shift && small.trailingZeroBitCount < twos - shift { return false }
            if fives > shift {
                var value = small
                var count = 0
                while count < fives - shift && value % 5 == 0 {
                    value /= 5
                    count += 1
                }
                if count < fives - shift { return false }
            }
            return true
        }
        var rest = divisor.digits
        var twos = 0
        while let last = rest.last, last % 2 == 0 {
            rest = Self.divide(rest, by: 2).quotient
            twos += 1
        }
        var fives = 0
        while let last = rest.last, last == 5 || last == 0 {
            rest = Self.divide(rest, by: 5).quotient
            fives += 1
        }
        let value = digits
        guard Self.isDivisible(value, by: rest) else { return false }
        for (factor, needed) in [(UInt8(2), twos - shift), (UInt8(5), fives - shift)] where needed > 0 {
            var remaining = value
            for _ in 0..<needed {
                let (quotient, remainder) = Self.divide(remaining, by: factor)
                if remainder != 0 { return false }
                remaining = quotient
            }
        }
        return true
    }

    /// Long division of a digit array by a small number.
    private static func divide(_ digits: [UInt8], by divisor: UInt8) -> (quotient: [UInt8], remainder: UInt8) {
        var quotient: [UInt8] = []
        quotient.reserveCapacity(digits.count)
        var remainder = 0
        for digit in digits {
            let current = remainder * 10 + Int(digit)
            let next = UInt8(current / Int(divisor))
            if !(quotient.isEmpty && next == 0) { quotient.append(next) }
            remainder = current % Int(divisor)
        }
        return (quotient, UInt8(remainder))
    }

    /// Whether the digit array `dividend` is a multiple of the non-zero digit array `divisor`.
    private static func isDivisible(_ dividend: [UInt8], by divisor: [UInt8]) -> Bool {
        if divisor.count <= 19 {
            let modulus = UInt128(divisor.reduce(UInt64(0)) { $0 * 10 + UInt64($1) })
            if modulus == 1 { return true }
            var remainder: UInt128 = 0
            for digit in dividend { remainder = (remainder * 10 + UInt128(digit)) % modulus }
            return remainder == 0
        }
        var remainder: [UInt8] = []
        for digit in dividend {
            if !(remainder.isEmpty && digit == 0) { remainder.append(digit) }
            while compareDigits(remainder, divisor) >= 0 { remainder = subtract(remainder, divisor) }
        }
        return remainder.isEmpty
    }

    private static func compareDigits(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        if lhs.count != rhs.count { return lhs.count < rhs.count ? -1 : 1 }
        for (a, b) in zip(lhs, rhs) where a != b { return a < b ? -1 : 1 }
        return 0
    }

    /// `lhs - rhs` for `lhs >= rhs`, without leading zeros.
    private static func subtract(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] {
        var result = lhs
        var borrow = 0
        var offset = 0
        while offset < result.count {
            let index = result.count - 1 - offset
            let subtrahend = (offset < rhs.count ? Int(rhs[rhs.count - 1 - offset]) : 0) + borrow
            var digit = Int(result[index]) - subtrahend
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result[index] = UInt8(digit)
            offset += 1
        }
        let firstNonZero = result.firstIndex { $0 != 0 } ?? result.count
        return Array(result[firstNonZero...])
    }
}
