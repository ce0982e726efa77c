import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import WalletOrders

/// Every failure answers with the service's JSON error body: a ``ServiceError`` as it is, a
/// library error (``WalletOrdersError``: a store that can't be reached, a refused order) mapped
/// by ``ServiceError/from(_:)`` (store failures as a 503 that names no file or address, the
/// detail logged), Hummingbird's own errors (no such route, a body over the upload limit, a
/// wrong method) with a code from their status, and anything else logged and answered with a
/// 500 that names no internals.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = OrderRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServiceError {
            return answer(error, context)
        } catch let error as WalletOrdersError {
            // The library's errors (a store failure, a refused order) get their HTTP answer here,
            // so handlers call the store and the intake without wrapping each call.
            return answer(.from(error), context)
        } catch let error as HTTPParserError {
            throw error  // a body that isn't valid HTTP: Hummingbird answers 400 and closes (see RequestProgress)
        } catch let error as any HTTPResponseError {
            let status = error.status
            let code: String
            switch status {
            case .notFound: code = "no-such-route"
            case .methodNotAllowed: code = "method-not-allowed"
            case .contentTooLarge: code = "body-too-large"
            case .unauthorized: code = "unauthorized"
            default: code = status.code < 500 ? "bad-request" : "internal"
            }
            let message = status == .notFound ? "There is no such endpoint." : status.reasonPhrase
            return ServiceError(status, code: code, message).response()
        } catch {
            logger.error("request failed", metadata: ["error": "\(error)", "route": .string(AccessLogMiddleware<Context>.route(context))])
            return ServiceError(.internalServerError, code: "internal", "The server failed to answer.").response()
        }
    }

    /// The answer to `error`, its detail logged when it has one the client doesn't see.
    private func answer(_ error: ServiceError, _ context: Context) -> Response {
        if let detail = error.logDetail {
            logger.error(
                "request failed",
                metadata: ["code": .string(error.code), "detail": .string(detail), "route": .string(AccessLogMiddleware<Context>.route(context))])
        }
        return error.response()
    }
}
