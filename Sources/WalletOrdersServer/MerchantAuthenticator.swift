import Crypto
import Foundation
public import Hummingbird
import WalletOrders

/// The merchant API's keys, kept as SHA-256 digests with their scopes: a key is checked by
/// hashing what the client sent, so neither its length nor where it differs shows in the time taken.
public struct MerchantAPIKeys: Sendable {
    private let scopes: [Data: MerchantScope]

    /// The keys of ``OrderServer/Configuration/apiKeys``.
    public init(_ keys: [MerchantAPIKey]) {
        scopes = Dictionary(keys.map { (Self.digest($0.key), $0.scope) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether any key is configured (without one the merchant API answers 401 to every call).
    public var isEmpty: Bool { scopes.isEmpty }

    /// The scope of the key in `request`'s `Authorization: Bearer` header, or `nil` when it holds none of the keys.
    public func scope(authorizing request: Request) -> MerchantScope? {
        guard let header = request.headers[.authorization], header.utf8.count <= 1_024, header.prefix(7).lowercased() == "bearer "
        else { return nil }
        return scopes[Self.digest(header.dropFirst(7).trimmingOptionalWhitespace)]
    }

    private static func digest(_ key: some StringProtocol) -> Data { Data(SHA256.hash(data: Array(key.utf8))) }
}

/// The merchant API's authenticator, as Hummingbird's authenticator middleware: on the
/// `/merchant/v1` route group it checks the API key before any handler runs, answers 401 without
/// one, and puts the key's scope into ``OrderRequestContext/merchantScope`` for the handlers.
struct MerchantAuthenticator: RouterMiddleware {
    typealias Context = OrderRequestContext
    let keys: MerchantAPIKeys

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let scope = keys.scope(authorizing: request) else { throw ServiceError.merchantUnauthorized }
        var context = context
        context.merchantScope = scope
        return try await next(request, context)
    }
}

extension OrderRequestContext {
    /// The scope the authenticator put in; a route outside the merchant group has none and answers 401.
    func requireMerchantScope() throws -> MerchantScope {
        guard let merchantScope else { throw ServiceError.merchantUnauthorized }
        return merchantScope
    }
}

extension ServiceError {
    /// A missing or unknown merchant API key.
    static let merchantUnauthorized = ServiceError(
        .unauthorized, code: "unauthorized", "The merchant API needs a valid API key.",
        hint: "Send 'Authorization: Bearer <key>' with a key the server was started with.",
        headers: [.wwwAuthenticate: "Bearer"])

    /// An order type outside the key's scope: the one answer whether or not such an order is
    /// stored, given before the store is asked, so it says nothing about which orders exist.
    static func outsideScope(_ orderTypeIdentifier: String) -> ServiceError {
        ServiceError(
            .forbidden, code: "order-type-not-permitted",
            "This API key may not act on orders of type \(LogText.escaped(orderTypeIdentifier)).",
            hint: "Use a key whose scope lists this order type (or *).")
    }
}

extension MerchantScope {
    /// Throws the 403 `order-type-not-permitted` unless the scope includes `orderTypeIdentifier`.
    func require(_ orderTypeIdentifier: String) throws {
        guard permits(orderTypeIdentifier) else { throw ServiceError.outsideScope(orderTypeIdentifier) }
    }
}
