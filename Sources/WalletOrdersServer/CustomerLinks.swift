import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WalletOrders
import WalletOrdersPreview
package import WalletOrdersStore

/// "Add to Apple Wallet" links: one unguessable link per order, for an email or a receipt page.
///
/// `GET /orders/{type}/{order}/{key}` is the order's preview (``WalletOrdersPreview``, as Wallet
/// will show it, in the language of `Accept-Language` and the viewer's light or dark setting, no
/// validation findings) under an "Add to Apple Wallet" button;
/// `GET /orders/{type}/{order}/{key}/order` is the archive itself, with Apple's media type, so
/// Safari on iPhone offers to add it to Wallet. The key is an HMAC-SHA256 of the order's identity
/// and `authenticationToken` under the store's secret: nothing is stored per link, every server on
/// the store makes the same links, and a new `authenticationToken` revokes the old link. A wrong
/// key and an unknown order get the same 404.
///
/// The page's button is Apple's badge when the service has ``WalletBadges`` (the visitor's
/// language's, by `Accept-Language`), else a text link; on an iPhone browser other than Safari
/// the page says to open it in Safari. Both paths answer HEAD as GET, without the body.
package struct CustomerLinks: Sendable {
    let store: any OrderServiceStore
    let previewer: OrderPreviewer
    var badges: WalletBadges?

    /// The key's length in base64url characters (192 bits).
    package static let keyLength = 32

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

    package static func key(for record: OrderAccessRecord, secret: [UInt8]) -> String {
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

    /// The stored archive when the key is this order's; otherwise the one 404. Two reads: the
    /// link secrets, then the record with its archive (read only when the key matches).
    private func verified(_ context: OrderRequestContext) async throws -> (FullyQualifiedOrderIdentifier, [UInt8]) {
        let order = try context.orderIdentifier()
        let presented = context.parameters.get("key") ?? ""
        // The store's own secret, and any accepted from a store whose orders were copied in.
        let secrets = try await store.customerLinkSecrets()
        let found = try await store.accessRecord(for: order) { record in
            var matched = false
            for secret in secrets where TokenComparison.equal(presented, Self.key(for: record, secret: secret)) { matched = true }
            return matched
        }
        if found == nil {
            for _ in secrets { _ = TokenComparison.equal(presented, "no such order") }  // an unknown order costs what a wrong key costs
        }
        guard let bytes = found?.archive else {
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
        let (order, bytes) = try await verified(context)
        // The button's link is made from the verified identity, not from the request's path (which
        // may start `//`, making the link protocol-relative, to another host).
        let key = context.parameters.get("key") ?? ""
        let archivePath = "/orders/\(Self.escaped(order.orderTypeIdentifier))/\(Self.escaped(order.orderIdentifier))/\(Self.escaped(key))/order"
        let languages = Self.languages(request.headers[.acceptLanguage])
        let options = PreviewOptions(
            language: languages.first, appearance: .automatic, showsFindings: false, addToWalletURL: archivePath,
            addToWalletBadge: badges?.badge(for: languages), viewer: .from(userAgent: request.headers[.userAgent]))
        let page: String
        do {
            // Rendered from the stored archive alone: it was verified and validated when it was saved.
            page = previewer.render(stored: try OrderArchive(bytes: bytes), options: options).html
        } catch {
            throw ServiceError(
                .internalServerError, code: "unreadable-order", "The stored order can't be shown.", hint: "Ask the merchant for a new link.")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "private, no-cache",
                .init("Content-Security-Policy")!: Self.contentSecurityPolicy,
                .init("Referrer-Policy")!: "no-referrer", .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// The landing page's policy: its own inline styles and data: images, nothing else; no
    /// `<base>`, no form, and no framing by another site (a click-jacked Add button).
    static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The languages of an `Accept-Language` header, most wanted first (RFC 9110 §12.5.4: by
    /// `q`, ties in the header's order; `q=0` and `*` left out; a tag that isn't letters, digits
    /// and `-` of at most 35 characters left out). `fr-CH, fr;q=0.9, en;q=0.8` → `fr-CH`, `fr`,
    /// `en`. At most 16 are read.
    static func languages(_ header: String?) -> [String] {
        guard let header else { return [] }
        var ranked: [(tag: String, q: Double, index: Int)] = []
        for (index, item) in header.split(separator: ",").prefix(16).enumerated() {
            let parts = item.split(separator: ";")
            guard let first = parts.first else { continue }
            let tag = String(first.trimmingOptionalWhitespace)
            guard !tag.isEmpty, tag != "*", tag.count <= 35, tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                continue
            }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0.trimmingOptionalWhitespace) }
                if pair.count == 2, pair[0].lowercased() == "q" { q = Double(pair[1]).map { min(max($0, 0), 1) } ?? 0 }
            }
            if q > 0 { ranked.append((tag, q, index)) }
        }
        return ranked.sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }.map(\.tag)
    }
}
