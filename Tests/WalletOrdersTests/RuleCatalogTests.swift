import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

@Suite struct RuleCatalogTests {
    @Test("Rule identifiers are unique, lowercase area.name, and every rule explains itself")
    func catalogueIsWellFormed() {
        let ids = ValidationRule.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        for rule in ValidationRule.all {
            #expect(rule.id.wholeMatch(of: /[a-z0-9]+\.[a-z0-9-]+/) != nil, "\(rule.id)")
            #expect(rule.summary.hasSuffix("."), "\(rule.id) summary")
            #expect(rule.explanation.count > 30, "\(rule.id) explanation")
        }
        #expect(ValidationRule.all.count >= 90)
    }

    @Test("Rules are typed: no rule identifier is spelt as a string outside its one declaration in RuleCatalog.swift")
    func rulesAreEmittedThroughTheirDeclarations() throws {
        let ids = Set(ValidationRule.all.map(\.id))
        let sources = Repository.root.appendingPathComponent("Sources")
        var spelt: [String] = []
        for case let path as String in FileManager.default.enumerator(atPath: sources.path)!
        where path.hasSuffix(".swift") && !path.hasSuffix("RuleCatalog.swift") && !path.hasSuffix("+Generated.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for match in text.matches(of: /"([a-z0-9]+\.[a-z0-9-]+)"/) where ids.contains(String(match.output.1)) {
                spelt.append("\(path): \(match.output.1)")
            }
        }
        #expect(spelt.isEmpty, "use the ValidationRule constant instead: \(spelt)")
        // One declaration each: the catalogue lists every declared rule once.
        #expect(Set(ValidationRule.all).count == ValidationRule.all.count)
        #expect(ValidationRule.all.allSatisfy { ValidationRule.named($0.id) == $0 })
    }

    @Test("The DocC Rules article is exactly what `wallet-orders rules --markdown` prints")
    func rulesArticleIsCurrent() throws {
        let article = Repository.root.appendingPathComponent("Sources/WalletOrders/Documentation.docc/Rules.md")
        let committed = try String(contentsOf: article, encoding: .utf8)
        #expect(committed == ValidationRule.markdownArticle, "regenerate: wallet-orders rules --markdown > \(article.path)")
    }
}
