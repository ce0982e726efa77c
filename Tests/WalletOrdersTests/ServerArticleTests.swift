import Foundation
import Testing
import WalletOrdersTestSupport

/// The DocC article "Using wallet-orders in a server" shows the example service that `make test`
/// compiles (target `wallet-orders-server-example`), so the code on the page compiles.
@Suite struct ServerArticleTests {
    static let article = Repository.root.appendingPathComponent("Sources/WalletOrders/Documentation.docc/ServerIntegration.md")
    static let example = Repository.root.appendingPathComponent("Examples/OrderServer/OrderServer.swift")

    @Test("The article's last Swift block is Examples/OrderServer/OrderServer.swift, character for character")
    func articleShowsTheCompiledExample() throws {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let start = try #require(text.range(of: "```swift\n", options: .backwards))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let shown = String(text[start.upperBound..<end.lowerBound])
        #expect(shown == (try String(contentsOf: Self.example, encoding: .utf8)), "copy Examples/OrderServer/OrderServer.swift into the article")
    }

    @Test("README, the article and the package agree: the .package line, the products, the upload call")
    func snippetsAgree() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let article = try String(contentsOf: Self.article, encoding: .utf8)
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let packageLine = #".package(path: "../wallet-orders")"#
        #expect(readme.contains(packageLine) && article.contains(packageLine))
        for product in ["WalletOrders", "WalletOrdersStore", "WalletOrdersIntake", "WalletOrdersServer"] {
            #expect(manifest.contains(".library(name: \"\(product)\""))
            #expect(readme.contains("`\(product)`") && article.contains("`\(product)`"), "\(product)")
        }
        for call in [
            "OrderIntake(validator: validator, store: store).save(signedArchive:", "submit(signedArchive:)",
            "SQLiteOrderStore(url: storeURL)",
        ] {
            #expect(readme.contains(call) && article.contains(call), "\(call)")
        }
        for package in ["libssl3", "libzip4", "libsqlite3-0", "libzint2.11", "libzint-dev"] {
            #expect(readme.contains(package) && article.contains(package), "\(package)")
        }
    }
}
