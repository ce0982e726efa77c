import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WalletOrders
import WalletOrdersStore

/// "Add to Apple Wallet" links: one unguessable link per order, for an email or a receipt page.
///
/// `GET /orders/{type}/{order}/{key}` is a small HTML page with an "Add to Apple Wallet" button;
/// `GET /orders/{type}/{order}/{key}/order` is the archive itself, with Apple's media type, so
/// Safari on iPhone offers to add it to Wallet. The key is an HMAC-SHA256 of the order's identity
/// and `authenticationToken` under the store's secret: nothing is stored per link, every server on
/// the store makes the same links, and a new `authenticationToken` revokes the old link. A wrong
/// key and an unknown order get the same 404.
struct CustomerLinks: Sendable {
    let store: any OrderServiceStore

    /// The key's length in base64url characters (192 bits).
    static let keyLength = 32

    func add(to router: some RouterMethods<OrderRequestContext>) {
        router.get("orders/:type/:order/:key") { request, context in try await landingPage(request, context) }
        router.get("orders/:type/:order/:key/order") { request, context in try await archive(request, context) }
    }

    /// The path of `order`'s link (`/orders/…/…/KEY`), or `nil` when the order isn't stored.
    func path(for order: FullyQualifiedOrderIdentifier) async throws -> String? {
        guard let record = try await store.accessRecord(for: order) else { return nil }
        let key = Self.key(for: record, secret: try await store.customerLinkSecret())
        return "/orders/\(Self.escaped(order.orderTypeIdentifier))/\(Self.escaped(order.orderIdentifier))/\(key)"
    }

    static func key(for record: OrderAccessRecord, secret: [UInt8]) -> String {
        var message = Array("wallet-orders customer link\u{0}".utf8)
        message += Array(record.identifier.orderTypeIdentifier.utf8) + [0] + Array(record.identifier.orderIdentifier.utf8) + [0]
        message += Array((record.authenticationToken ?? "").utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret))
        return String(APNsProviderToken.base64URL(Data(code)).prefix(keyLength))
    }

    /// A path segment percent-encoded as RFC 3986 asks (unreserved characters kept).
    static func escaped(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    // MARK: - Endpoints

    /// The stored archive when the key is this order's; otherwise the one 404.
    private func verified(_ context: OrderRequestContext) async throws -> (FullyQualifiedOrderIdentifier, [UInt8]) {
        let order = try AppleOrderRoutes.orderIdentifier(context)
        let presented = context.parameters.get("key") ?? ""
        let record = try await AppleOrderRoutes.storeCall { try await store.accessRecord(for: order) }
        let secret = try await AppleOrderRoutes.storeCall { try await store.customerLinkSecret() }
        let expected = record.map { Self.key(for: $0, secret: secret) } ?? "no such order"
        guard TokenComparison.equal(presented, expected), record != nil,
            let bytes = try await AppleOrderRoutes.storeCall({ try await store.archive(for: order) })
        else {
            throw ServiceError(.notFound, code: "not-found", "There is no order at this link.", hint: "Ask the merchant for a new link.")
        }
        return (order, bytes)
    }

    private func archive(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let (order, bytes) = try await verified(context)
        return Response(
            status: .ok,
            headers: [
                .contentType: OrderMediaType.order, .contentDisposition: OrderMediaType.attachment(for: order),
                .cacheControl: "private, no-cache", .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func landingPage(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let (_, bytes) = try await verified(context)
        let order = try? OrderArchive(bytes: bytes).order()
        let merchant = HTML.escaped(order?.merchant.displayName ?? "Your order")
        let number = order?.orderNumber.map { "Order \(HTML.escaped($0))" } ?? ""
        let status = order.map { HTML.escaped($0.statusDescription ?? $0.status.rawValue) } ?? ""
        let page = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(merchant): add your order to Apple Wallet</title>
            <style>
            body { font: 17px/1.4 -apple-system, system-ui, sans-serif; margin: 0; padding: 2rem 1rem; text-align: center; color: #1d1d1f; }
            @media (prefers-color-scheme: dark) { body { background: #000; color: #f5f5f7; } }
            h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
            p { margin: .25rem 0; color: #6e6e73; }
            a.add { display: inline-block; margin-top: 1.5rem; padding: .8rem 1.4rem; border-radius: .6rem; background: #000; color: #fff; text-decoration: none; font-weight: 600; }
            @media (prefers-color-scheme: dark) { a.add { background: #fff; color: #000; } }
            </style>
            </head>
            <body>
            <h1>\(merchant)</h1>
            <p>\(number)</p>
            <p>\(status)</p>
            <a class="add" href="\(HTML.escaped(request.uri.path))/order">Add to Apple Wallet</a>
            </body>
            </html>

            """
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "private, no-cache",
                .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'",
                .init("Referrer-Policy")!: "no-referrer", .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}

/// HTML escaping for text and attribute values.
enum HTML {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
