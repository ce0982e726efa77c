import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Reports stay small whatever the input (issue 10, finding 9): a 50 MB line or a 1 MB value
/// is shown by an excerpt, never whole.
@Suite struct BoundedOutputTests {
    static let validator: OrderValidator = try! OrderValidator(verifier: TestPKI.verifier)

    @Test("A finding on a 5 MB one-line order.json shows a short excerpt around its column, not the line")
    func excerptOfLongLine() throws {
        var files = try SampleBuilds.source("shipped-ecommerce").files
        let text = String(decoding: try #require(files["order.json"]), as: UTF8.self)
        // Minify to one line, pad with a long unknown string before the broken value, and break a currency.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var padded = object
        padded["statusDescription"] = String(repeating: "é", count: 2_000_000)  // 4 MB of two-byte characters
        var oneLine = String(decoding: try JSONSerialization.data(withJSONObject: padded, options: [.sortedKeys]), as: UTF8.self)
        let range = try #require(oneLine.range(of: "\"currency\":\"USD\""))
        oneLine.replaceSubrange(range, with: "\"currency\":\"usd\"")
        files["order.json"] = Array(oneLine.utf8)
        let report = Self.validator.validate(OrderSource(files: files), subject: "minified")
        let located = report.diagnostics.filter { $0.sourceLine != nil }
        #expect(!located.isEmpty, "\(report.diagnostics.map(\.ruleID))")
        for finding in located {
            #expect((finding.sourceLine?.utf8.count ?? 0) <= Diagnostic.sourceExcerptLimit + 3, "\(finding.ruleID)")
        }
        let text2 = ReportRenderer().render([report], as: .text)
        #expect(text2.utf8.count < 20_000, "the text report is \(text2.utf8.count) bytes")
        // The caret still sits under the value it points at.
        let currency = try #require(report.diagnostics.first { $0.location.jsonPointer?.hasSuffix("/currency") == true && $0.sourceLine != nil })
        let lines = text2.components(separatedBy: "\n")
        let shown = try #require(lines.firstIndex { $0.contains("\"currency\":\"usd\"") && $0.hasPrefix("    ") }, "\(currency)")
        let caretColumn = try #require(lines[shown + 1].firstIndex(of: "^")).utf16Offset(in: lines[shown + 1])
        let valueColumn = try #require(lines[shown].range(of: "\"usd\"")).lowerBound.utf16Offset(in: lines[shown])
        #expect(caretColumn == valueColumn, "\n\(lines[shown])\n\(lines[shown + 1])")
    }

    @Test("Megabyte values in order.json give a report of kilobytes, each finding cut with a note")
    func hugeValues() throws {
        var files = try SampleBuilds.source("shipped-ecommerce").files
        let orderJSON = try #require(files["order.json"])
        var object = try #require(try JSONSerialization.jsonObject(with: Data(orderJSON)) as? [String: Any])
        let big = String(repeating: "x", count: 1_000_000)
        object["status"] = big
        object["orderManagementURL"] = "https://" + big
        var lineItems = try #require(object["lineItems"] as? [[String: Any]])
        lineItems[0]["image"] = big + ".png"
        object["lineItems"] = lineItems
        files["order.json"] = Array(try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]))
        let report = Self.validator.validate(OrderSource(files: files), subject: "huge")
        #expect(report.contains(ruleID: "files.missing-reference"), "\(report.diagnostics.map(\.ruleID))")
        for finding in report.diagnostics {
            #expect(finding.message.count <= 560 && (finding.hint?.count ?? 0) <= 560, "\(finding.ruleID): \(finding.message.count)")
        }
        let missing = try #require(report.diagnostics(ruleID: "files.missing-reference").first)
        #expect(missing.message.contains("characters left out"))
        let text = ReportRenderer().render([report], as: .text)
        #expect(text.utf8.count < 20_000, "the text report is \(text.utf8.count) bytes")
    }
}
