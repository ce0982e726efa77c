import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// One validator and previewer for every test (the validator compiles the schema once).
enum Previews {
    static let previewer: OrderPreviewer = {
        do {
            return OrderPreviewer(validator: try OrderValidator())
        } catch {
            fatalError("the bundled schema does not load: \(error)")
        }
    }()

    static func source(_ sample: String) throws -> OrderSource {
        try OrderSource(directory: Repository.sample(sample))
    }

    static func page(_ sample: String, language: String? = nil, appearance: PreviewOptions.Appearance = .light) throws -> OrderPreview {
        previewer.preview(try source(sample), subject: sample, options: PreviewOptions(language: language, appearance: appearance))
    }

    /// A sample's files with `change` applied to its order.json (as a JSON object).
    static func files(_ sample: String, changing change: (inout [String: Any]) -> Void) throws -> [String: [UInt8]] {
        var files = try source(sample).files
        var object = try #require(try JSONSerialization.jsonObject(with: Data(files["order.json"] ?? [])) as? [String: Any])
        change(&object)
        files["order.json"] = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        return files
    }

    static func page(files: [String: [UInt8]], language: String? = nil) -> OrderPreview {
        page(files: files, options: PreviewOptions(language: language))
    }

    static func page(files: [String: [UInt8]], options: PreviewOptions) -> OrderPreview {
        let report = previewer.validator.validate(OrderSource(files: files), subject: "changed")
        return previewer.render(files: files, report: report, options: options)
    }

    /// A sample's files with its first fulfillment changed by `change`.
    static func filesWithFulfillment(_ sample: String, changed change: @escaping (inout [String: Any]) -> Void) throws -> [String: [UInt8]] {
        try files(
            sample,
            changing: { order in
                var fulfillments = order["fulfillments"] as? [[String: Any]] ?? []
                if !fulfillments.isEmpty { change(&fulfillments[0]) }
                order["fulfillments"] = fulfillments
            })
    }

    /// The text a person reads in the HTML (tags removed, entities decoded), one space between
    /// pieces: for `contains` checks that don't depend on markup.
    static func text(_ html: String) -> String {
        var text = ""
        var inTag = false
        var inStyle = false
        var index = html.startIndex
        while index < html.endIndex {
            if html[index...].hasPrefix("<style") { inStyle = true }
            if html[index...].hasPrefix("</style") { inStyle = false }
            let character = html[index]
            if character == "<" {
                inTag = true
                text += " "
            } else if character == ">" {
                inTag = false
            } else if !inTag && !inStyle {
                text.append(character)
            }
            index = html.index(after: index)
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// The strings of a sample's localization (UTF-8 or UTF-16 with a BOM), read independently of
/// the library's parser: `"KEY" = "VALUE";` lines.
func localizedStrings(_ sample: String, _ language: String) throws -> [String: String] {
    let data = try Data(contentsOf: Repository.sample(sample).appendingPathComponent("\(language).lproj/order.strings"))
    let text: String
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
        text = try #require(String(data: data, encoding: .utf16))
    } else {
        text = String(decoding: data, as: UTF8.self)
    }
    var table: [String: String] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
        let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
        if parts.count >= 5, parts[2].contains("=") { table[String(parts[1])] = String(parts[3]) }
    }
    return table
}
