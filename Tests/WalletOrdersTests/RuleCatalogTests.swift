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

    @Test("Every rule identifier used in Sources/ is in the catalogue")
    func everyUsedRuleIsCatalogued() throws {
        let areas = "file|zip|archive|bundle|manifest|signature|certificate|order|build|json|schema|dates|money|address|files|localization|uniqueness|compatibility"
        let pattern = try Regex("\"((?:\(areas))\\.[a-z0-9-]+)\"")
        let fileNames: Set<String> = ["order.json", "manifest.json", "order.strings", "pass.strings", "order.schema", "file.order"]
        let sources = Repository.root.appendingPathComponent("Sources")
        var used: Set<String> = []
        for case let path as String in FileManager.default.enumerator(atPath: sources.path)! where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let id = match.output[1].substring.map(String.init), !fileNames.contains(id) { used.insert(id) }
            }
        }
        #expect(used.count >= 80)
        let missing = used.filter { ValidationRule.named($0) == nil }.sorted()
        #expect(missing.isEmpty, "not in ValidationRule.all: \(missing)")
    }

    @Test("The DocC Rules article is exactly what `wallet-orders rules --markdown` prints")
    func rulesArticleIsCurrent() throws {
        let article = Repository.root.appendingPathComponent("Sources/WalletOrders/Documentation.docc/Rules.md")
        let committed = try String(contentsOf: article, encoding: .utf8)
        #expect(committed == ValidationRule.markdownArticle, "regenerate: wallet-orders rules --markdown > \(article.path)")
    }
}
