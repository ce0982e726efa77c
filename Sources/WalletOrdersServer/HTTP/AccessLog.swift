import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WalletOrders

/// One `info` line per request once it is answered: method, route, status, duration and client.
///
/// The route is the template the router matched (`/orders/{type}/{order}/{key}`,
/// `/v1/devices/{device}/registrations/{type}`), never the path itself, so the secrets that
/// travel in paths (customer link keys, device library identifiers) never reach the log. A
/// request no route matched logs Hummingbird's name for it, `NotFound`, as the request metrics
/// label it.
///
/// Add it first, so that it sees the answer ``ErrorMiddleware`` makes of a failure.
struct AccessLogMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status, since: started)
            return response
        } catch {
            log(request, context, status: (error as? any HTTPResponseError)?.status ?? .internalServerError, since: started)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "route": .string(Self.route(context)),
                "status": .stringConvertible(status.code),
                "ms": .string(String(format: "%.2f", milliseconds)),
                "client": .string(context.remoteAddress?.ipAddress ?? "unknown"),
            ])
    }

    /// The route template the router matched, with `:name` written `{name}`.
    static func route(_ context: Context) -> String {
        guard let path = context.endpointPath else { return "(no route)" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.first == ":" ? "{\(segment.dropFirst())}" : String(segment)
        }.joined(separator: "/")
    }
}

extension LogText {
    /// Text from a client as one log field: escaped (``escaped(_:limit:)``) and in double quotes,
    /// with its own quotes written `\"`, so that nothing it holds (`a" client=10.0.0.1 x="`)
    /// reads as another field of the line.
    package static func field(_ text: String, limit: Int = 256) -> String {
        quoted(escaped(text, limit: limit))
    }

    /// Text already ``escaped(_:limit:)`` (so its quotes are `\"`) in double quotes: one log field.
    static func quoted(_ escapedText: String) -> String {
        "\"" + escapedText + "\""
    }
}
