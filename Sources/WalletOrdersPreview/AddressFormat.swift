import Foundation
package import WalletOrders

/// How a country writes a postal address, for the preview and the customer's page: the street
/// lines, then the locality, region and postal code in that country's order and punctuation
/// (`Madison, WI 53703` in the US, `75008 Paris` in France, `〒100-0001` before the prefecture in
/// Japan), then the country's name in the page's language.
///
/// The layouts follow the per-country formats of Google's address metadata (libaddressinput,
/// the data Chromium and Android fill addresses with) for the countries listed; every other
/// country gets the postal code before the locality, the commonest form. A part the order leaves
/// out is dropped with the punctuation that joined it.
package struct AddressFormat: Sendable {
    /// A part of an address.
    package enum Part: Sendable {
        case locality, subLocality, administrativeArea, subAdministrativeArea, postalCode
    }

    /// One line: its parts, each with the text written before it when a part precedes it on the line.
    package var lines: [[(part: Part, separator: String)]]
    /// Whether the street lines come after the other lines (countries that write the largest
    /// unit first: Japan, China, Korea, Taiwan).
    package var streetLast = false
    /// Text before the postal code when it starts its line (`〒` in Japan).
    package var postalPrefix = ""

    /// `C, S Z`: `Madison, WI 53703`.
    static let unitedStates = AddressFormat(lines: [[(.locality, ""), (.administrativeArea, ", "), (.postalCode, " ")]])
    /// `C S Z` on one line: Canada, Australia.
    static let localityRegionCode = AddressFormat(lines: [[(.locality, ""), (.administrativeArea, " "), (.postalCode, " ")]])
    /// `Z C`, then the region on its own line when given: most of Europe, and the default.
    static let codeLocality = AddressFormat(lines: [[(.postalCode, ""), (.locality, " ")], [(.administrativeArea, "")]])
    /// `Z C S` on one line: Italy, Spain.
    static let codeLocalityRegion = AddressFormat(lines: [[(.postalCode, ""), (.locality, " "), (.administrativeArea, " ")]])

    /// The format for `address`'s country: in Latin script, the countries that write the largest
    /// unit first in their own script write it last, as their Latin form does (`4-6-16 Ginza`,
    /// then `Chuo City, Tokyo 104-0061`).
    package static func of(_ address: Address) -> AddressFormat {
        let parts = (address.addressLines ?? []) + [address.locality, address.subLocality, address.administrativeArea].compactMap { $0 }
        let latin = parts.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value < 0x0250 || (0x1E00...0x1EFF).contains($0.value) } }
        if latin {
            switch address.countryCode?.uppercased() {
            case "JP", "TW": return AddressFormat(lines: [[(.subLocality, ""), (.locality, ", "), (.administrativeArea, ", "), (.postalCode, " ")]])
            case "CN", "KR":
                return AddressFormat(lines: [[(.subLocality, "")], [(.locality, "")], [(.administrativeArea, ""), (.postalCode, ", ")]])
            default: break
            }
        }
        return forCountry(address.countryCode)
    }

    /// The format for an ISO 3166-1 alpha-2 code (any case), in the country's own script.
    package static func forCountry(_ code: String?) -> AddressFormat {
        switch code?.uppercased() {
        case "US", "PR", "GU", "AS", "VI", "MP": return unitedStates
        case "CA", "AU": return localityRegionCode
        case "IT", "ES": return codeLocalityRegion
        case "GB", "IM", "JE", "GG":
            return AddressFormat(lines: [[(.subLocality, "")], [(.locality, "")], [(.postalCode, "")]])
        case "IE":
            return AddressFormat(lines: [[(.subLocality, "")], [(.locality, "")], [(.administrativeArea, "")], [(.postalCode, "")]])
        case "NZ":
            return AddressFormat(lines: [[(.subLocality, "")], [(.locality, ""), (.postalCode, " ")]])
        case "SG":
            return AddressFormat(lines: [[(.locality, ""), (.postalCode, " ")]])
        case "IN":
            return AddressFormat(lines: [[(.locality, ""), (.postalCode, " ")], [(.administrativeArea, "")]])
        case "BR":
            return AddressFormat(lines: [[(.subLocality, "")], [(.locality, ""), (.administrativeArea, "-")], [(.postalCode, "")]])
        case "MX":
            return AddressFormat(lines: [[(.subLocality, "")], [(.postalCode, ""), (.locality, " "), (.administrativeArea, ", ")]])
        case "RU", "UA", "BY":
            return AddressFormat(lines: [[(.locality, "")], [(.administrativeArea, "")], [(.postalCode, "")]])
        case "JP":
            return AddressFormat(
                lines: [[(.postalCode, "")], [(.administrativeArea, ""), (.locality, ""), (.subLocality, "")]], streetLast: true,
                postalPrefix: "〒")
        case "CN", "TW":
            return AddressFormat(lines: [[(.postalCode, "")], [(.administrativeArea, ""), (.locality, ""), (.subLocality, "")]], streetLast: true)
        case "KR":
            return AddressFormat(lines: [[(.administrativeArea, ""), (.locality, " "), (.subLocality, " ")], [(.postalCode, "")]], streetLast: true)
        default: return codeLocality
        }
    }

    /// The lines of `address`, without the country.
    package func lines(of address: Address) -> [String] {
        func value(_ part: Part) -> String? {
            let text: String? =
                switch part {
                case .locality: address.locality
                case .subLocality: address.subLocality
                case .administrativeArea: address.administrativeArea
                case .subAdministrativeArea: address.subAdministrativeArea
                case .postalCode: address.postalCode
                }
            guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        var rendered: [String] = []
        for line in lines {
            var text = ""
            for (part, separator) in line {
                guard let piece = value(part) else { continue }
                if text.isEmpty {
                    text = (part == .postalCode ? postalPrefix : "") + piece
                } else {
                    text += separator + piece
                }
            }
            if !text.isEmpty { rendered.append(text) }
        }
        let street = (address.addressLines ?? []).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return streetLast ? rendered + street : street + rendered
    }
}
