import Foundation
import Hummingbird
import WalletOrders
import WalletOrdersStore

// `make bench-serve` (Benchmarks/serve.py) measures this next to `wallet-orders serve`.
//
// serve-reference PORT [STORE]: GET /hello answers "hello" on 127.0.0.1:PORT until SIGTERM: the
// framework's ceiling. With STORE (a SQLite order store), three more routes make the store calls
// `wallet-orders serve` makes for Wallet's requests, and nothing else (no middleware, no
// authorization, no conditional headers, no delivery trail): each is the floor of one request,
// the framework plus the store, measured in the same run.
//
// - GET /lookup/{type}/{order}: the order's access record; 304 when it is there, 404 when not
//   (the floor of the cached GET).
// - GET /archive/{type}/{order}: the access record, then the archive as the body (the floor of
//   the 200).
// - GET /changed/{device}/{type}: the device's changed orders as JSON, 204 when none (the floor
//   of the changed-orders list).
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
    router.get("archive/:type/:order") { _, context -> Response in
        let order = FullyQualifiedOrderIdentifier(
            orderTypeIdentifier: try context.parameters.require("type"), orderIdentifier: try context.parameters.require("order"))
        guard try await store.accessRecord(for: order) != nil, let bytes = try await store.archive(for: order) else {
            return Response(status: .notFound)
        }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
    router.get("changed/:device/:type") { _, context -> Response in
        guard
            let changed = try await store.changedOrders(
                deviceIdentifier: try context.parameters.require("device"), orderTypeIdentifier: try context.parameters.require("type"),
                since: nil)
        else { return Response(status: .noContent) }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(changed))))
    }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
