import Foundation
import Hummingbird
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore

// `make bench-serve` (Benchmarks/serve.py) measures this next to `wallet-orders serve`.
//
// serve-reference PORT [STORE [SIGNING-DIR TRUST-ROOT [SAVE-STORE]]]: GET /hello answers "hello" on 127.0.0.1:PORT until SIGTERM: the
// framework's ceiling. With STORE (a SQLite order store), three more routes make the store calls
// `wallet-orders serve` makes for Wallet's requests, and nothing else (no middleware, no
// authorization, no conditional headers, no delivery trail): each is the floor of one request,
// the framework plus the store, measured in the same run.
//
// - GET /lookup/{type}/{order}: the order's access record; 304 when it is there, 404 when not
//   (the floor of the cached GET).
// - GET /archive/{type}/{order}: the access record and the archive, read at once, the archive as
//   the body (the floor of the 200).
// - GET /changed/{device}/{type}: the device's changed orders as JSON, 204 when none (the floor
//   of the changed-orders list).
//
// With SIGNING-DIR (as `serve --signing-dir`) and TRUST-ROOT, the merchant lines' floors: the
// library's work on the body and nothing else (no store, no authentication, no JSON answer).
//
// - POST /validate: the signed archive validated as the upload validates it; `ok` when valid,
//   422 when not (the floor of the upload).
// - POST /build: order.json validated, then built and signed with the first identity of
//   SIGNING-DIR and its template, as the build endpoint does before saving; `ok` or 422 (the
//   floor of build-and-sign).
//
// With SAVE-STORE (a SQLite order store of its own, read-write), the same two with the durable
// save: the library's whole intake (`OrderIntake` with a store: validation, the signature for a
// source, the group-committed save, each answered once it is on disk), and still no middleware,
// authentication or JSON answer.
//
// - POST /save: the signed archive through the intake; `ok` when the store added it (a save that
//   changed nothing, such as the same archive again, is 422).
// - POST /build-save: order.json through the intake as /build builds it; `ok` when added.
//
// On the event loops and the executor `wallet-orders serve` uses (REFERENCE_EXECUTOR: event-loops, the
// default, or pool).
OrderServer.TaskThreads.sizeEventLoopsToAllowedCPUs()
OrderServer.TaskThreads(rawValue: ProcessInfo.processInfo.environment["REFERENCE_EXECUTOR"] ?? "event-loops")?.install()
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
        guard let bytes = try await store.accessRecord(for: order, archiveIf: { _ in true })?.archive else {
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
if arguments.count >= 4 {
    let anchors = [[UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[arguments.startIndex + 3])))]
    let validator = try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors))
    let signing = try SigningIdentities.load(directory: URL(fileURLWithPath: arguments[arguments.startIndex + 2]))
    guard let entry = signing.entries.values.first else {
        fatalError("serve-reference: no signing identity in \(arguments[arguments.startIndex + 2])")
    }
    let intake = OrderIntake(validator: validator)  // no store: validate and sign only
    let bodyLimit = 8 << 20
    router.post("validate") { request, _ -> Response in
        let body = try await request.body.collect(upTo: bodyLimit)
        guard case .success = VerifiedOrderArchive.checking(bytes: body.readableBytesView, validator: validator).0 else {
            return Response(status: .unprocessableContent)
        }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
    }
    // The body as order.json over the template's files, as the build endpoint reads it.
    let source = { @Sendable (request: Request) async throws -> OrderSource in
        var files = entry.template.files
        files[OrderArchive.orderPath] = Array(try await request.body.collect(upTo: bodyLimit).readableBytesView)
        return OrderSource(files: files)
    }
    router.post("build") { request, _ -> Response in
        let result = try intake.prepare(source: try await source(request), builder: OrderArchiveBuilder(identity: entry.identity))
        guard result.taken != nil else { return Response(status: .unprocessableContent) }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
    }
    if arguments.count >= 5 {
        let store = try SQLiteOrderStore(url: URL(fileURLWithPath: arguments[arguments.startIndex + 4]))
        let saving = OrderIntake(validator: validator, store: store)
        let added = { @Sendable (result: OrderIntakeResult<OrderIntake.SavedOrder>) -> Response in
            guard result.taken?.receipt.storeChanged == true else { return Response(status: .unprocessableContent) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
        }
        router.post("save") { request, _ -> Response in
            added(try await saving.submit(signedArchive: try await request.body.collect(upTo: bodyLimit).readableBytesView))
        }
        router.post("build-save") { request, _ -> Response in
            added(try await saving.submit(source: try await source(request), builder: OrderArchiveBuilder(identity: entry.identity)))
        }
    }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
