/// HTTP dates (RFC 9110 §5.6.7): `Last-Modified` is written as an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`); `If-Modified-Since` is read in all three forms a recipient
/// must accept (IMF-fixdate, RFC 850 and asctime). Whole seconds, UTC.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `seconds` since 1970 (the fraction of a second is dropped, as HTTP dates have none).
    public static func format(secondsSince1970 seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Timestamp.civilDate(daysSince1970: days)
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// The IMF-fixdate of a timestamp's whole second.
    public static func format(_ timestamp: Timestamp) -> String { format(secondsSince1970: timestamp.secondsSince1970) }

    /// Seconds since 1970 of an HTTP date in any of its three forms, or `nil` when `text` is none of them.
    public static func parse(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 64 else { return nil }
        var fixdate = Parser(bytes: bytes)
        if let seconds = fixdate.imfFixdate() { return seconds }
        var obsolete = Parser(bytes: bytes)
        if let seconds = obsolete.rfc850() { return seconds }
        var asctime = Parser(bytes: bytes)
        return asctime.asctime()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func literal(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else { return false }
            index += expected.count
            return true
        }

        mutating func digits(_ count: ClosedRange<Int>) -> Int64? {
            var value: Int64 = 0
            var read = 0
            while read < count.upperBound, index < bytes.count, (48...57).contains(bytes[index]) {
                value = value * 10 + Int64(bytes[index] - 48)
                index += 1
                read += 1
            }
            return count.contains(read) ? value : nil
        }

        mutating func name(_ names: [String]) -> Int? {
            for (offset, name) in names.enumerated() where literal(name) { return offset }
            return nil
        }

        mutating func time() -> Int64? {
            guard let hour = digits(2...2), literal(":"), let minute = digits(2...2), literal(":"), let second = digits(2...2),
                hour < 24, minute < 60, second < 61
            else { return nil }
            return hour * 3600 + minute * 60 + min(second, 59)
        }

        func instant(year: Int64, month: Int, day: Int64, time: Int64) -> Int64? {
            let lengths: [Int64] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...lengths[month]).contains(day) else { return nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            if month == 1 && day == 29 && !leap { return nil }
            return Timestamp.daysSince1970(year: year, month: Int64(month + 1), day: day) * 86_400 + time
        }

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        mutating func imfFixdate() -> Int64? {
            guard name(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]) != nil, literal(", "), let day = digits(2...2), literal(" "),
                let month = name(HTTPDate.months), literal(" "), let year = digits(4...4), literal(" "), let time = time(),
                literal(" GMT"), atEnd
            else { return nil }
            return instant(year: year, month: month, day: day, time: time)
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year more than 50 years ahead is in the past century.
        mutating func rfc850() -> Int64? {
            guard name(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]) != nil, literal(", "),
                let day = digits(2...2), literal("-"), let month = name(HTTPDate.months), literal("-"), let shortYear = digits(2...2),
                literal(" "), let time = time(), literal(" GMT"), atEnd
            else { return nil }
            // RFC 9110: interpret a year more than 50 years in the future as the most recent past year with those digits.
            let year = shortYear + 2000 > 2026 + 50 ? shortYear + 1900 : shortYear + 2000
            return instant(year: year, month: month, day: day, time: time)
        }

        /// `Sun Nov  6 08:49:37 1994`
        mutating func asctime() -> Int64? {
            guard name(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]) != nil, literal(" "), let month = name(HTTPDate.months),
                literal(" ")
            else { return nil }
            _ = literal(" ")
            guard let day = digits(1...2), literal(" "), let time = time(), literal(" "), let year = digits(4...4), atEnd
            else { return nil }
            return instant(year: year, month: month, day: day, time: time)
        }
    }
}
