import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
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
        .init(
            name: "quantity 1e400 overflows Double", replace: "\"quantity\": 1,", with: "\"quantity\": 1e400,", pointer: "/lineItems/0/quantity",
            messagePart: "64-bit float"),
        .init(
            name: "quantity 1e-400 underflows to 0", replace: "\"quantity\": 1,", with: "\"quantity\": 1e-400,", pointer: "/lineItems/0/quantity",
            messagePart: "decode as 0"),
        .init(
            name: "a 100-digit integer quantity", replace: "\"quantity\": 1,", with: "\"quantity\": \(hundredDigits),",
            pointer: "/lineItems/0/quantity", messagePart: "64-bit integer"),
        .init(
            name: "a 400-digit string amount", replace: "\"amount\": \"89.00\"", with: "\"amount\": \"\(String(repeating: "9", count: 400)).00\"",
            pointer: "/lineItems/0/price/amount", messagePart: "400 significant digits"),
        .init(
            name: "a 39-digit number amount", replace: "\"amount\": \"89.00\"", with: "\"amount\": \(String(repeating: "1", count: 39))",
            pointer: "/lineItems/0/price/amount", messagePart: "39 significant digits"),
        .init(
            name: "an amount of 1e200 (a number)", replace: "\"amount\": \"89.00\"", with: "\"amount\": 1e200", pointer: "/lineItems/0/price/amount",
            messagePart: "Decimal's range"),
        .init(name: "the largest 64-bit integer fits", replace: "\"quantity\": 1,", with: "\"quantity\": 9223372036854775807,", pointer: nil),
        .init(
            name: "a 38-digit amount fits Decimal", replace: "\"amount\": \"89.00\"", with: "\"amount\": \"\(String(repeating: "1", count: 36)).25\"",
            pointer: nil),
        .init(
            name: "an amount with many trailing zeros fits", replace: "\"amount\": \"89.00\"",
            with: "\"amount\": \"89.\(String(repeating: "0", count: 60))\"", pointer: nil),
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
}

/// The attacker's order.json for the walks over the tree: as deep as the parser allows, every
/// level a wide object. Validation runs on a task (a worker thread's smaller stack), finishes,
/// and says what is wrong instead of overflowing the stack.
@Suite struct DeepOrderTests {
    @Test("an order.json nested as deep as the parser allows, each level 200 keys wide, validates on a task")
    func deepAndWide() async throws {
        let levels = 500
        let wide = (0..<200).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let deep = String(repeating: "{\(wide),\"n\":", count: levels) + "0" + String(repeating: "}", count: levels)
        var text = minimalOrderJSON(typeIdentifier: "order.com.example.deep")
        text.removeLast(text.count - text.lastIndex(of: "}")!.utf16Offset(in: text))
        text += ",\"deep\":\(deep)}"
        let source = OrderSource(files: ["order.json": Array(text.utf8)])
        let validator = try OrderValidator(verifier: TestPKI.verifier)
        let report = await Task.detached { validator.validate(source, subject: "deep") }.value
        // Wallet ignores a key it doesn't know: one warning, at the key, and nothing about the inside.
        let unknown = report.diagnostics.filter { $0.ruleID == "schema.unknown-key" }
        #expect(unknown.map(\.location.jsonPointer) == ["/deep"])
        #expect(unknown.map(\.severity) == [.warning])
    }
}
