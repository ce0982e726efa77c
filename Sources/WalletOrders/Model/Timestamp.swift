public import Foundation

/// An RFC 3339 date-time, such as an order's `createdAt`, that keeps the text it was written with.
///
/// order.json's `date-time` fields are RFC 3339 timestamps (`2022-06-02T12:30:00Z`,
/// `2024-02-01T19:45:50+05:30`). `Timestamp` parses them strictly and exactly:
///
/// - **Accepted:** `T` or `t` between date and time; optional fractional seconds of any length;
///   a `Z`, `z` or numeric `±hh:mm` offset (`-00:00` included); seconds up to 60 for a leap second.
/// - **Rejected:** a missing offset, a space instead of `T`, impossible dates (`2023-02-29`),
///   hour above 23, minute above 59, second above 60, and anything else RFC 3339 doesn't allow.
/// - **The instant** is kept exactly as ``secondsSince1970`` plus ``nanoseconds``. The first nine
///   fractional digits count; further digits are kept in ``text`` but don't affect the instant.
///   A leap second (`:60`) counts as the first second of the next minute.
/// - **Equality, hashing and ordering** use the instant, so `2024-01-01T01:00:00+01:00` equals
///   `2024-01-01T00:00:00Z`, while ``text`` keeps the original spelling for re-encoding.
///
/// Wallet compares `updatedAt` values as instants, which is what `<` does here.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The timestamp text exactly as given or decoded, which encoding writes back unchanged.
    public let text: String

    /// The whole seconds of the instant since 1970-01-01T00:00:00Z (negative before 1970).
    public let secondsSince1970: Int64

    /// The fraction of a second of the instant, in nanoseconds (0 through 999,999,999).
    public let nanoseconds: Int32

    /// The offset from UTC written in ``text``, in seconds (`+05:30` is 19,800; `Z` is 0).
    public let utcOffsetSeconds: Int

    /// Parses an RFC 3339 date-time such as `"2022-06-02T12:30:00Z"`.
    ///
    /// - Parameter text: The timestamp text.
    /// - Throws: ``ValueFormatError`` saying what is wrong, such as a missing offset or a day that
    ///   doesn't exist in its month.
    public init(rfc3339 text: String) throws {
        let parsed = try Self.parse(text)
        self.text = text
        self.secondsSince1970 = parsed.seconds
        self.nanoseconds = parsed.nanoseconds
        self.utcOffsetSeconds = parsed.offset
    }

    /// Creates a UTC timestamp for an exact instant, formatted like `2024-01-01T00:00:00Z`.
    ///
    /// Fractional seconds are written only when ``nanoseconds`` isn't zero, without trailing
    /// zeros (`.5`, `.123456789`).
    ///
    /// - Parameters:
    ///   - secondsSince1970: Whole seconds since 1970-01-01T00:00:00Z; the year must be 0000–9999.
    ///   - nanoseconds: The fraction of a second, 0 through 999,999,999.
    public init(secondsSince1970: Int64, nanoseconds: Int32 = 0) {
        precondition((0..<1_000_000_000).contains(nanoseconds), "nanoseconds must be 0...999_999_999")
        precondition(
            (Self.minimumSeconds...Self.maximumSeconds).contains(secondsSince1970),
            "RFC 3339 timestamps need a four-digit year (0000-9999)"
        )
        self.text = Self.format(seconds: secondsSince1970, nanoseconds: nanoseconds)
        self.secondsSince1970 = secondsSince1970
        self.nanoseconds = nanoseconds
        self.utcOffsetSeconds = 0
    }

    /// Creates a UTC timestamp for a `Date`, formatted like `2024-01-01T00:00:00Z`.
    ///
    /// Whole-second dates are written without a fraction. Otherwise the fraction is rounded to
    /// microseconds, the precision a `Date` holds reliably for present-day instants, and written
    /// without trailing zeros (`2024-01-01T00:00:00.25Z`).
    ///
    /// - Parameter date: A date in the years 0000 through 9999.
    public init(_ date: Date) {
        let sinceReference = date.timeIntervalSinceReferenceDate
        precondition(sinceReference.isFinite, "Timestamp needs a finite Date")
        var whole = sinceReference.rounded(.down)
        var microseconds = ((sinceReference - whole) * 1_000_000).rounded()
        if microseconds >= 1_000_000 {
            whole += 1
            microseconds = 0
        }
        self.init(
            secondsSince1970: Int64(whole) + Self.referenceDateSecondsSince1970,
            nanoseconds: Int32(microseconds) * 1000
        )
    }

    /// Creates a timestamp from an RFC 3339 string literal such as `"2024-01-01T00:00:00Z"`.
    ///
    /// - Parameter value: The timestamp text; a literal that doesn't parse is a programming error.
    public init(stringLiteral value: String) {
        do {
            try self.init(rfc3339: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The instant as a `Date`, which may round the nanoseconds (a `Date` is a `Double`).
    public var date: Date {
        Date(
            timeIntervalSinceReferenceDate: Double(secondsSince1970 - Self.referenceDateSecondsSince1970)
                + Double(nanoseconds) / 1_000_000_000
        )
    }

    /// The timestamp text, exactly as ``text``.
    public var description: String { text }

    /// Returns whether two timestamps denote the same instant, whatever their offsets.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.secondsSince1970 == rhs.secondsSince1970 && lhs.nanoseconds == rhs.nanoseconds
    }

    /// Hashes the instant, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSince1970)
        hasher.combine(nanoseconds)
    }

    /// Returns whether the left timestamp is the earlier instant.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.secondsSince1970, lhs.nanoseconds) < (rhs.secondsSince1970, rhs.nanoseconds)
    }

    /// Decodes a timestamp from a JSON string holding an RFC 3339 date-time.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` with a message saying what is wrong when the string
    ///   isn't an RFC 3339 date-time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(rfc3339: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the timestamp as a JSON string holding ``text``.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

// MARK: - Calendar arithmetic

extension Timestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let referenceDateSecondsSince1970: Int64 = 978_307_200

    /// 0000-01-01T00:00:00Z, the earliest instant with a four-digit year.
    public static let minimumSeconds: Int64 = daysSince1970(year: 0, month: 1, day: 1) * 86_400

    /// 9999-12-31T23:59:59Z, the last whole second with a four-digit year.
    public static let maximumSeconds: Int64 = daysSince1970(year: 9999, month: 12, day: 31) * 86_400 + 86_399

    /// English month names, for error messages.
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// Whether `year` is a leap year in the proleptic Gregorian calendar.
    private static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in a month of the proleptic Gregorian calendar.
    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    package static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Formats an instant as `yyyy-MM-ddTHH:mm:ss[.fraction]Z`.
    private static func format(seconds: Int64, nanoseconds: Int32) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var result = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        result += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if nanoseconds != 0 {
            var fraction = Substring(pad(Int64(nanoseconds), 9))
            while fraction.last == "0" { fraction = fraction.dropLast() }
            result += "." + fraction
        }
        return result + "Z"
    }
}

// MARK: - Parsing

extension Timestamp {
    /// Parses RFC 3339 `date-time` (section 5.6) into an instant and the written offset.
    private static func parse(_ text: String) throws(ValueFormatError) -> Parsed {
        var reader = Reader(text: text)

        let year = try reader.number(digits: 4, field: "year")
        try reader.expect("-", after: "the year")
        let month = try reader.number(digits: 2, field: "month")
        guard (1...12).contains(month) else { throw reader.failure("month \(month) is out of range 01-12") }
        try reader.expect("-", after: "the month")
        let day = try reader.number(digits: 2, field: "day")
        let monthLength = daysInMonth(year: year, month: month)
        guard (1...monthLength).contains(day) else {
            throw reader.failure(
                day >= 1 && day <= 31
                    ? "day \(day) doesn't exist: \(monthNames[Int(month) - 1]) \(year) has \(monthLength) days"
                    : "day \(day) is out of range 01-31"
            )
        }

        switch reader.next() {
        case UInt8(ascii: "T"), UInt8(ascii: "t"): break
        case nil: throw reader.failure("it has a date but no time; expected \"T\" and a time such as \"T12:30:00Z\"")
        case UInt8(ascii: " "): throw reader.failure("date and time are separated by a space; RFC 3339 requires \"T\"")
        default: throw reader.failure("expected \"T\" between date and time at offset \(reader.index - 1)")
        }

        let hour = try reader.number(digits: 2, field: "hour")
        guard hour <= 23 else { throw reader.failure("hour \(hour) is out of range 00-23") }
        try reader.expect(":", after: "the hour")
        let minute = try reader.number(digits: 2, field: "minute")
        guard minute <= 59 else { throw reader.failure("minute \(minute) is out of range 00-59") }
        try reader.expect(":", after: "the minute (seconds are required)")
        let second = try reader.number(digits: 2, field: "second")
        guard second <= 60 else { throw reader.failure("second \(second) is out of range 00-60") }

        var nanoseconds: Int64 = 0
        if reader.peek() == UInt8(ascii: ".") {
            _ = reader.next()
            var count = 0
            while let byte = reader.peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                _ = reader.next()
                if count < 9 { nanoseconds = nanoseconds * 10 + Int64(byte - UInt8(ascii: "0")) }
                count += 1
            }
            guard count > 0 else {
                throw reader.failure("\".\" must be followed by at least one digit of fractional seconds")
            }
            for _ in count..<max(count, 9) { nanoseconds *= 10 }
        }

        let offset: Int64
        switch reader.next() {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            offset = 0
        case let sign? where sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"):
            let offsetHour = try reader.number(digits: 2, field: "offset hour")
            guard offsetHour <= 23 else { throw reader.failure("offset hour \(offsetHour) is out of range 00-23") }
            try reader.expect(":", after: "the offset hour (write \"+hh:mm\")")
            let offsetMinute = try reader.number(digits: 2, field: "offset minute")
            guard offsetMinute <= 59 else {
                throw reader.failure("offset minute \(offsetMinute) is out of range 00-59")
            }
            offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (offsetHour * 3600 + offsetMinute * 60)
        case nil:
            throw reader.failure("it has no UTC offset; add \"Z\" or a numeric offset such as \"+02:00\"")
        default:
            throw reader.failure("expected \"Z\" or a \"+hh:mm\"/\"-hh:mm\" offset at offset \(reader.index - 1)")
        }
        guard reader.peek() == nil else {
            throw reader.failure("unexpected text after the UTC offset at offset \(reader.index)")
        }

        let localSeconds =
            daysSince1970(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second
        return Parsed(seconds: localSeconds - offset, nanoseconds: Int32(nanoseconds), offset: Int(offset))
    }

    /// The result of parsing: the instant and the offset written in the text.
    private struct Parsed {
        var seconds: Int64
        var nanoseconds: Int32
        var offset: Int
    }

    /// A cursor over the UTF-8 bytes of timestamp text, producing precise error messages.
    private struct Reader {
        let text: String
        let bytes: [UInt8]
        var index = 0

        init(text: String) {
            self.text = text
            self.bytes = Array(text.utf8)
        }

        func failure(_ reason: String) -> ValueFormatError {
            ValueFormatError(kind: "RFC 3339 timestamp", text: text, reason: reason)
        }

        func peek() -> UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        mutating func next() -> UInt8? {
            defer { index += 1 }
            return peek()
        }

        mutating func expect(_ character: Unicode.Scalar, after what: String) throws(ValueFormatError) {
            let start = index
            guard next() == UInt8(ascii: character) else {
                throw failure("expected \"\(character)\" after \(what) at offset \(start)")
            }
        }

        mutating func number(digits: Int, field: String) throws(ValueFormatError) -> Int64 {
            let start = index
            var value: Int64 = 0
            for _ in 0..<digits {
                guard let byte = next(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw failure("the \(field) must be exactly \(digits) digits, at offset \(start)")
                }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
    }
}
