import HTTPTypes
import Hummingbird

/// Lets a request through only with `Authorization: Bearer <key>` (compared in constant time);
/// anything else is answered 401 with `WWW-Authenticate: Bearer realm="…"`. For endpoints with one
/// operator's key, such as `/metrics`.
struct BearerKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String
    let realm: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let presented = request.headers[.authorization].flatMap { value -> String? in
            guard value.hasPrefix("Bearer ") else { return nil }
            return String(value.dropFirst("Bearer ".count))
        }
        guard let presented, TokenComparison.equal(presented, key) else {
            throw ServiceError(
                .unauthorized, code: "unauthorized", "This endpoint needs its key.",
                hint: "Send 'Authorization: Bearer <key>' with the \(realm) key the service was started with.",
                headers: [.wwwAuthenticate: "Bearer realm=\"\(realm)\""])
        }
        return try await next(request, context)
    }
}
