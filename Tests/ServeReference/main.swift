import Foundation
import Hummingbird
import WalletOrders
import WalletOrdersStore

// `make bench-serve` (Benchmarks/serve.py) measures this next to `wallet-orders serve`.
//
// serve-reference PORT [STORE]: GET /hello answers "hello" on 127.0.0.1:PORT until SIGTERM: the
// framework's ceiling. With STORE (a SQLite order store), GET /lookup/{type}/{order} also reads
// the order's access record with the store call `wallet-orders serve` makes for Wallet's GET, and
// answers 304 when it is there, 404 when not: no middleware, no authorization, no headers. It is
// the floor of the cached GET (the framework plus the store's lookup), measured in the same run.
let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap(Int.init) ?? 8090
let router = Router()
router.get("hello") { _, _ in "hello" }
if let path = arguments.dropFirst().first {
    let store = try SQLiteOrderStore(url: URL(fileURLWithPath: path), access: .readOnly)
    router.get("lookup/:type/:order") { _, context -> HTTPResponse.Status in
        let order = FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: try context.parameters.require("type"), orderIdentifier: try context.parameters.require("order"))
        return try await store.accessRecord(for: order) == nil ? .notFound : .notModified
    }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
