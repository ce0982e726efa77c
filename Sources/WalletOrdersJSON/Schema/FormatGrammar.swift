import Foundation

/// The `format` values that are assertions; every other format is an annotation.
enum AssertedFormat: String, Sendable {
    /// RFC 3339 §5.6 `date-time`.
    case dateTime = "date-time"
    /// An absolute RFC 3986 `URI`.
    case uri
    /// RFC 3339 appendix A `duration`.
    case duration
    /// An ISO 8601-1 duration, which RFC 3339's `duration` profiles: components may be left out
    /// (`PT1H30S`, `P1Y2D`) and the lowest-order one given may have a decimal fraction (`PT0,5S`,
    /// `PT1.5H`). Not a format JSON Schema defines: other validators treat it as an annotation,
    /// so a schema that uses it should carry a pattern too (the order schema's `Duration` does).
    case iso8601Duration = "iso8601-duration"

    /// Whether `text` has this format.
    func accepts(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            switch self {
            case .dateTime: FormatGrammar.isDateTime(bytes)
            case .uri: FormatGrammar.isAbsoluteURI(bytes)
            case .duration: FormatGrammar.isDuration(bytes)
            case .iso8601Duration: FormatGrammar.isISO8601Duration(bytes)
            }
        }
    }

    /// What a value of this format looks like, for messages.
    var example: String {
        switch self {
        case .dateTime: "an RFC 3339 date-time such as 2025-11-21T19:48:12Z"
        case .uri: "an absolute URI such as https://example.com/path"
        case .duration: "an ISO 8601 duration such as PT30M or P1DT12H"
        case .iso8601Duration: "an ISO 8601-1 duration such as PT30M, P1DT12H or PT1.5H"
        }
    }
}

/// Hand-written recognizers for the asserted formats, over UTF-8 bytes (every format is ASCII, so
/// any other byte fails).
enum FormatGrammar {
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isHex(_ byte: UInt8) -> Bool { URIReference.hexValue(byte) != nil }

    /// The number written by `count` ASCII digits at `start`, or `nil`.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<start + count {
            guard isDigit(bytes[index]) else { return nil }
            value = value * 10 + Int(bytes[index] - 0x30)
        }
        return value
    }

    // MARK: date-time

    /// `full-date "T" full-time` (RFC 3339 §5.6; `T` and `Z` in either case), with real calendar
    /// days and a leap second only where it would fall at 23:59:60 UTC.
    static func isDateTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // YYYY-MM-DDTHH:MM:SS
        guard bytes.count >= 20,
            let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(bytes, 8, 2), bytes[10] | 0x20 == UInt8(ascii: "t"),
            let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(bytes, 17, 2)
        else { return false }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return false }
        var index = 19
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            guard index > start else { return false }
        }
        guard index < bytes.count else { return false }
        var offsetMinutes = 0
        if bytes[index] | 0x20 == UInt8(ascii: "z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHour = number(bytes, index + 1, 2), index + 3 < bytes.count,
                bytes[index + 3] == UInt8(ascii: ":"), let offsetMinute = number(bytes, index + 4, 2),
                offsetHour <= 23, offsetMinute <= 59
            else { return false }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
            index += 6
        } else {
            return false
        }
        guard index == bytes.count else { return false }
        if second == 60 {
            let utc = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
            return utc == 23 * 60 + 59
        }
        return true
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: duration

    /// RFC 3339 appendix A: `P` then `n W`, or date units forming a run of `Y M D`, optionally
    /// followed by `T` and time units forming a run of `H M S`; or `PT` and time units only.
    static func isDuration(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P") else { return false }
        var index = 1
        /// Reads `1*DIGIT unit` runs whose units are a contiguous run of `units`; `nil` when malformed.
        func run(_ units: [UInt8]) -> Int? {
            var next = 0
            var count = 0
            while index < bytes.count && bytes[index] != UInt8(ascii: "T") {
                let start = index
                while index < bytes.count && isDigit(bytes[index]) { index += 1 }
                guard index > start, index < bytes.count,
                    let position = units[next...].firstIndex(of: bytes[index]),
                    count == 0 || position == next
                else { return nil }
                next = position + 1
                count += 1
                index += 1
                if next == units.count { break }
            }
            return count
        }
        // Weeks stand alone.
        if let last = bytes.last, last == UInt8(ascii: "W") {
            guard bytes.count >= 3 else { return false }
            for position in 1..<bytes.count - 1 where !isDigit(bytes[position]) { return false }
            return true
        }
        guard let dateUnits = run([UInt8(ascii: "Y"), UInt8(ascii: "M"), UInt8(ascii: "D")]) else { return false }
        if index == bytes.count { return dateUnits > 0 }
        guard bytes[index] == UInt8(ascii: "T") else { return false }
        index += 1
        guard let timeUnits = run([UInt8(ascii: "H"), UInt8(ascii: "M"), UInt8(ascii: "S")]) else { return false }
        return timeUnits > 0 && index == bytes.count
    }

    /// ISO 8601-1 (§5.5.2.4, the basic format with designators): `P`, then years, months and days
    /// in that order, each optional, then optionally `T` and hours, minutes and seconds in that
    /// order, each optional; at least one component, and `T` only when a time component follows.
    /// The lowest-order component given may have a decimal fraction (`.` or `,`, digits on both
    /// sides). Or `P` and weeks alone (`P2W`, `P1.5W`). No sign: a window has no negative length.
    static func isISO8601Duration(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P") else { return false }
        let dateUnits = [UInt8(ascii: "Y"), UInt8(ascii: "M"), UInt8(ascii: "D")]
        let timeUnits = [UInt8(ascii: "H"), UInt8(ascii: "M"), UInt8(ascii: "S")]
        var index = 1
        var inTime = false
        var next = 0  // the first unit of the current list still allowed
        var components = 0
        var timeComponents = 0
        var sawFraction = false
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "T") {
                guard !inTime, !sawFraction else { return false }
                inTime = true
                next = 0
                index += 1
                continue
            }
            guard !sawFraction else { return false }  // a fraction only on the last component
            let start = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            guard index > start, index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                let fractionStart = index
                while index < bytes.count && isDigit(bytes[index]) { index += 1 }
                guard index > fractionStart, index < bytes.count else { return false }
                sawFraction = true
            }
            let unit = bytes[index]
            if !inTime && unit == UInt8(ascii: "W") { return components == 0 && index == bytes.count - 1 }
            let units = inTime ? timeUnits : dateUnits
            guard let position = units[next...].firstIndex(of: unit) else { return false }
            next = position + 1
            components += 1
            if inTime { timeComponents += 1 }
            index += 1
        }
        return components > 0 && (!inTime || timeComponents > 0)
    }

    // MARK: uri

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// Whether `bytes[range]` consists of `unreserved / pct-encoded / sub-delims` and `extra` bytes.
    private static func isEncoded(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, allowing extra: String) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < range.upperBound, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isUnreserved(byte) || isSubDelimiter(byte) || extra.utf8.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    /// `URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]` (RFC 3986 §3): a URI with a
    /// scheme, not a relative reference.
    static func isAbsoluteURI(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, isAlpha(first) else { return false }
        var index = 1
        while index < bytes.count && bytes[index] != UInt8(ascii: ":") {
            let byte = bytes[index]
            guard
                isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            else { return false }
            index += 1
        }
        guard index < bytes.count else { return false }
        index += 1
        let end = bytes.count
        let fragmentStart = bytes[index..<end].firstIndex(of: UInt8(ascii: "#")) ?? end
        let queryStart = bytes[index..<fragmentStart].firstIndex(of: UInt8(ascii: "?")) ?? fragmentStart
        if fragmentStart < end && !isEncoded(bytes, fragmentStart + 1..<end, allowing: ":@/?") { return false }
        if queryStart < fragmentStart && !isEncoded(bytes, queryStart + 1..<fragmentStart, allowing: ":@/?") {
            return false
        }
        var pathStart = index
        if queryStart - index >= 2 && bytes[index] == UInt8(ascii: "/") && bytes[index + 1] == UInt8(ascii: "/") {
            let authorityStart = index + 2
            let authorityEnd = bytes[authorityStart..<queryStart].firstIndex(of: UInt8(ascii: "/")) ?? queryStart
            guard isAuthority(bytes, authorityStart..<authorityEnd) else { return false }
            pathStart = authorityEnd
        }
        return isEncoded(bytes, pathStart..<queryStart, allowing: ":@/")
    }

    /// `authority = [ userinfo "@" ] host [ ":" port ]`.
    private static func isAuthority(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var hostStart = range.lowerBound
        if let at = bytes[range].firstIndex(of: UInt8(ascii: "@")) {
            guard isEncoded(bytes, range.lowerBound..<at, allowing: ":") else { return false }
            hostStart = at + 1
        }
        var portStart: Int?
        if hostStart < range.upperBound && bytes[hostStart] == UInt8(ascii: "[") {
            guard let close = bytes[hostStart..<range.upperBound].firstIndex(of: UInt8(ascii: "]")),
                isIPLiteral(bytes, hostStart + 1..<close)
            else { return false }
            if close + 1 < range.upperBound {
                guard bytes[close + 1] == UInt8(ascii: ":") else { return false }
                portStart = close + 2
            }
        } else {
            let colon = bytes[hostStart..<range.upperBound].firstIndex(of: UInt8(ascii: ":"))
            guard isEncoded(bytes, hostStart..<(colon ?? range.upperBound), allowing: "") else { return false }
            portStart = colon.map { $0 + 1 }
        }
        if let portStart {
            for position in portStart..<range.upperBound where !isDigit(bytes[position]) { return false }
        }
        return true
    }

    /// `IPv6address / IPvFuture` (the text between the brackets).
    private static func isIPLiteral(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        if bytes[range.lowerBound] | 0x20 == UInt8(ascii: "v") {
            guard let dot = bytes[range].firstIndex(of: UInt8(ascii: ".")), dot > range.lowerBound + 1,
                dot + 1 < range.upperBound
            else { return false }
            for position in range.lowerBound + 1..<dot where !isHex(bytes[position]) { return false }
            for position in dot + 1..<range.upperBound {
                let byte = bytes[position]
                guard isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":") else { return false }
            }
            return true
        }
        return isIPv6(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    /// RFC 3986 `IPv6address`: eight 16-bit groups, `::` once for a run of zeros, and an IPv4
    /// dotted quad (decimal octets without leading zeros) allowed as the last two.
    static func isIPv6(_ text: String) -> Bool {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (halfIndex, half) in halves.enumerated() {
            if half.isEmpty { continue }
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (partIndex, part) in parts.enumerated() {
                let isLast = halfIndex == halves.count - 1 && partIndex == parts.count - 1
                if isLast && part.contains(".") {
                    guard isIPv4(part) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(isHex) else { return false }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }

    private static func isIPv4(_ text: Substring) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                guard (1...3).contains(octet.utf8.count), octet.utf8.allSatisfy(isDigit), let value = Int(octet),
                    value <= 255
                else { return false }
                return octet.utf8.count == 1 || octet.utf8.first != UInt8(ascii: "0")
            }
    }
}
