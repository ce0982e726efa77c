import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Numbers JSON allows but Wallet's decoder can't hold are errors (issue 10, finding 9), each
/// pointed at its place; numbers that fit are not. The cases edit order.json as text, since no
/// JSON writer produces `1e400`.
@Suite struct NumberLimitTests {
    static let validator: OrderValidator = try! OrderValidator(verifier: TestPKI.verifier)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var replace: String
        var with: String
        /// The pointer of the expected finding, or nil for a value that must pass.
        var pointer: String?
        var messagePart: String = ""
        var testDescription: String { name }
    }

    static let hundredDigits = "1" + String(repeating: "0", count: 99)
    static let cases: [Case] = [
        .init(name: "quantity 1e400 overflows Double", replace: "\"quantity\": 1,", with: "\"quantity\": 1e400,", pointer: "/lineItems/0/quantity", messagePart: "64-bit float"),
        .init(name: "quantity 1e-400 underflows to 0", replace: "\"quantity\": 1,", with: "\"quantity\": 1e-400,", pointer: "/lineItems/0/quantity", messagePart: "decode as 0"),
        .init(name: "a 100-digit integer quantity", replace: "\"quantity\": 1,", with: "\"quantity\": \(hundredDigits),", pointer: "/lineItems/0/quantity", messagePart: "64-bit integer"),
        .init(name: "a 400-digit string amount", replace: "\"amount\": \"89.00\"", with: "\"amount\": \"\(String(repeating: "9", count: 400)).00\"", pointer: "/lineItems/0/price/amount", messagePart: "400 significant digits"),
        .init(name: "a 39-digit number amount", replace: "\"amount\": \"89.00\"", with: "\"amount\": \(String(repeating: "1", count: 39))", pointer: "/lineItems/0/price/amount", messagePart: "39 significant digits"),
        .init(name: "an amount of 1e200 (a number)", replace: "\"amount\": \"89.00\"", with: "\"amount\": 1e200", pointer: "/lineItems/0/price/amount", messagePart: "Decimal's range"),
        .init(name: "the largest 64-bit integer fits", replace: "\"quantity\": 1,", with: "\"quantity\": 9223372036854775807,", pointer: nil),
        .init(name: "a 38-digit amount fits Decimal", replace: "\"amount\": \"89.00\"", with: "\"amount\": \"\(String(repeating: "1", count: 36)).25\"", pointer: nil),
        .init(name: "an amount with many trailing zeros fits", replace: "\"amount\": \"89.00\"", with: "\"amount\": \"89.\(String(repeating: "0", count: 60))\"", pointer: nil),
    ]

    @Test("Numbers Wallet can't decode are errors at their place; those it can pass", arguments: cases)
    func numberLimits(_ testCase: Case) throws {
        var files = try SampleBuilds.source("shipped-ecommerce").files
        let text = String(decoding: try #require(files["order.json"]), as: UTF8.self)
        let range = try #require(text.range(of: testCase.replace), "the sample no longer has \(testCase.replace)")
        files["order.json"] = Array(text.replacingCharacters(in: range, with: testCase.with).utf8)
        let report = Self.validator.validate(OrderSource(files: files), subject: "numbers")
        let findings = report.diagnostics(ruleID: "json.number-unrepresentable")
        if let pointer = testCase.pointer {
            #expect(findings.count == 1, "\(report.diagnostics)")
            #expect(findings.first?.severity == .error)
            #expect(findings.first?.location.jsonPointer == pointer)
            #expect(findings.first?.message.contains(testCase.messagePart) == true, "\(findings.first?.message ?? "")")
            // A 400-digit value is shown shortened, never whole.
            #expect((findings.first?.message.count ?? 0) < 200)
        } else {
            #expect(findings.isEmpty, "\(findings)")
        }
    }

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
}
