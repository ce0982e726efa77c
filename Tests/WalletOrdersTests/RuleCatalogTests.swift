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

@Suite struct LibraryMessageTests {
    /// The libraries speak for every caller, so their messages and hints name no command-line
    /// flag (`wallet-orders` adds its own: Sources/wallet-orders/CLIHints.swift). A whole command
    /// quoted as an example (`` `wallet-orders dev-certs …` ``) and the arguments the preview
    /// passes to Chromium are not messages.
    @Test("No string in a library target names a command-line flag")
    func librariesNameNoFlags() throws {
        let sources = Repository.root.appendingPathComponent("Sources")
        var found: [String] = []
        for case let path as String in FileManager.default.enumerator(atPath: sources.path)!
        where path.hasSuffix(".swift") && !path.hasPrefix("wallet-orders/") && !path.hasSuffix("+Generated.swift")
            && !path.hasSuffix("HeadlessChromium.swift")
        {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), !code.contains("`wallet-orders ") else { continue }
                for literal in code.matches(of: /"([^"\\]|\\.)*"/) where literal.output.0.contains(/(^|[\s(`])--[a-z][a-z-]+/) {
                    found.append("\(path):\(number + 1): \(literal.output.0)")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
