// A minimal order service on Hummingbird 2: receive an archive, validate it, save it, answer
// FinanceKit's contains question. Shown in the DocC article "Using wallet-orders in a server"
// (a test checks the article shows this file as it is); built by `make test`.
//
//   swift run wallet-orders-server-example orders.sqlite certs/root-ca.pem
//   curl --data-binary @pickup.order http://127.0.0.1:8080/orders
//   curl 'http://127.0.0.1:8080/orders/order.com.example.shop/ORDER-1?updatedDate=2025-11-21T00:00:00Z'
import Foundation
import Hummingbird
import NIOCore
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore

@main
struct OrderServer {
    static func main() async throws {
        // Trust Apple's root (always) and, for tests and staging, the roots named on the command
        // line, such as the root-ca.pem `wallet-orders dev-certs` writes.
        let arguments = CommandLine.arguments.dropFirst()
        let storeURL = URL(fileURLWithPath: arguments.first ?? "orders.sqlite")
        let testRoots = try arguments.dropFirst().map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let validator = try OrderValidator(additionalTrustAnchors: testRoots)
        let store = try SQLiteOrderStore(url: storeURL)
        // The one way in: validate, save, and (given a notifier) tell it what changed.
        let intake = OrderIntake(validator: validator, store: store)

        let router = Router()

        // Upload: validate (signature, chain, schema and every rule, as Wallet would), then save.
        router.post("orders") { request, _ -> Response in
            let body = try await request.body.collect(upTo: FileKind.archive.maximumBytes)  // 8 MiB: no order is larger
            let result = try await intake.submit(signedArchive: body.readableBytesView)
            switch result.outcome {
            case .taken(let saved):
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(saved.receipt.result.rawValue)\n")))
            case .refused(let refusal, _):
                // archive-rejected (the report lists every finding), or the store's verdict:
                // updated-at-conflict (the same updatedAt, other content) is a 409.
                let findings = ReportRenderer().render([result.report], as: .json)
                return Response(
                    status: refusal.code == .updatedAtConflict ? .conflict : .unprocessableContent,
                    body: .init(byteBuffer: ByteBuffer(string: "\(refusal.code): \(refusal.message)\n\(findings)")))
            }
        }

        // FinanceKit's question: is this order stored, and how does its version compare with a date?
        router.get("orders/:type/:order") { request, context -> String in
            let order = FullyQualifiedOrderIdentifier(
                orderTypeIdentifier: try context.parameters.require("type"),
                orderIdentifier: try context.parameters.require("order"))
            let updatedDate = try request.uri.queryParameters["updatedDate"].map { try Timestamp(rfc3339: String($0)) }
            return try await store.contains(matching: order, updatedDate: updatedDate).rawValue + "\n"
        }

        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
        try await app.runService()
    }
}
