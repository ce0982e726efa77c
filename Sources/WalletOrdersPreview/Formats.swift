import Foundation
import WalletOrders

/// Dates, money and numbers in the page's locale, through Foundation's formatters. Times are
/// shown in the offset `order.json` gives them (the page can't know the customer's time zone),
/// labelled with it (`GMT-5`), so a page is the same wherever it is made and no time is read
/// in the wrong zone.
package struct Formats {
    let locale: Locale

    init(language: String) {
        locale = Locale(identifier: language)
    }

    private func zone(_ timestamp: Timestamp) -> TimeZone {
        TimeZone(secondsFromGMT: timestamp.utcOffsetSeconds) ?? TimeZone(identifier: "UTC")!
    }

    /// `Nov 20, 2025 at 8:31 AM GMT-5` / `20 nov. 2025 à 08:31 UTC−5`.
    func dateTime(_ timestamp: Timestamp) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: locale, timeZone: zone(timestamp))
        style.calendar = Calendar(identifier: .gregorian)
        return timestamp.date.formatted(style) + " " + zoneLabel(timestamp)
    }

    /// The offset a time is shown in, as the page's language writes it: `GMT`, `GMT+2`, `UTC−5`.
    func zoneLabel(_ timestamp: Timestamp) -> String {
        timestamp.date.formatted(Date.FormatStyle(locale: locale, timeZone: zone(timestamp)).timeZone(.localizedGMT(.short)))
    }

    /// `Nov 20, 2025`.
    func date(_ timestamp: Timestamp) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: locale, timeZone: zone(timestamp))
        style.calendar = Calendar(identifier: .gregorian)
        return timestamp.date.formatted(style)
    }

    /// `8:31 AM`.
    func time(_ timestamp: Timestamp, seconds: Int64 = 0) -> String {
        let date = timestamp.date.addingTimeInterval(TimeInterval(seconds))
        var style = Date.FormatStyle(date: .omitted, time: .shortened, locale: locale, timeZone: zone(timestamp))
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style)
    }

    /// A start and an ISO 8601 duration (`PT4H`) as a window: `Nov 21, 2025, 4:00 – 8:00 PM`
    /// (Foundation's interval format); the start alone when the duration doesn't parse.
    func window(_ start: Timestamp, duration: String?) -> String {
        guard let duration, let seconds = Self.seconds(ofDuration: duration), seconds > 0 else { return dateTime(start) }
        let end = start.date.addingTimeInterval(TimeInterval(seconds))
        var style = Date.IntervalFormatStyle(date: .abbreviated, time: .shortened, locale: locale, timeZone: zone(start))
        style.calendar = Calendar(identifier: .gregorian)
        return (start.date..<end).formatted(style) + " " + zoneLabel(start)
    }

    /// `$192.93` / `106,90 €`: the amount in its own currency ("Monetary values display in the
    /// provided currency"); the amount and code as written when the code isn't a currency.
    func money(_ amount: CurrencyAmount) -> String {
        let code = amount.currency.uppercased()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }), Locale.commonISOCurrencyCodes.contains(code) else {
            return "\(amount.amount.text) \(amount.currency)"
        }
        return amount.amount.decimalValue.formatted(.currency(code: code).locale(locale))
    }

    /// A quantity: `2`, `1.5` / `1,5`.
    func number(_ value: Double) -> String {
        value.formatted(.number.locale(locale))
    }

    /// The longest duration shown, in seconds (about 31,700 years): a longer one is no window.
    static let longestDurationSeconds: Double = 1e12

    /// Seconds of an ISO 8601 duration of days, hours, minutes and seconds (`P1DT2H`, `PT30M`,
    /// Apple's `P0Y0M0DT0H30M0S`); nil for anything else (years or months other than zero), and
    /// for a duration longer than ``longestDurationSeconds`` (a stored order's duration may be
    /// any size the schema's pattern allows).
    package static func seconds(ofDuration text: String) -> Int64? {
        var rest = Substring(text.uppercased())
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var total: Double = 0
        var inTime = false
        var number = ""
        var sawUnit = false
        for character in rest {
            if character == "T" {
                guard number.isEmpty, !inTime else { return nil }
                inTime = true
                continue
            }
            if character.isNumber || character == "." || character == "," {
                number.append(character == "," ? "." : character)
                continue
            }
            guard let value = Double(number) else { return nil }
            number = ""
            sawUnit = true
            switch (inTime, character) {
            case (false, "Y"), (false, "M"): if value != 0 { return nil }
            case (false, "W"): total += value * 604_800
            case (false, "D"): total += value * 86_400
            case (true, "H"): total += value * 3_600
            case (true, "M"): total += value * 60
            case (true, "S"): total += value
            default: return nil
            }
        }
        guard number.isEmpty, sawUnit, total.isFinite, total <= longestDurationSeconds else { return nil }
        return Int64(total)
    }
}
