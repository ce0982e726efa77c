import Foundation
public import HTTPTypes
public import Hummingbird
import NIOCore
import NIOHTTP1
package import WalletOrders
import WalletOrdersJSON
import WalletOrdersStore

/// An answer other than success, with a JSON body that says why:
/// `{"error": {"code": "…", "message": "…", "hint": "…"}}`.
///
/// Every failure a client can cause is one of these, with a 4xx status; a 5xx means the server
/// itself failed (the store is unreachable, for example) and says so without internals.
public struct ServiceError: Error, HTTPResponseError, Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// A stable identifier of the failure, such as `unauthorized` or `bad-path`.
    public var code: String
    /// What went wrong, for a person.
    public var message: String
    /// How to fix it, when there is something to say.
    public var hint: String?
    /// Extra headers (`Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPFields
    /// A JSON value sent beside the error (a validation report, for example).
    public var details: [UInt8]?
    /// What the operator needs and the client must not see (a store's file path or address):
    /// logged by the error middleware, never sent.
    package var logDetail: String?

    /// Creates an error answer.
    public init(
        _ status: HTTPResponse.Status, code: String, _ message: String, hint: String? = nil, headers: HTTPFields = [:],
        details: [UInt8]? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
        self.headers = headers
        self.details = details
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response()
    }

    /// The response, without a request (for middleware).
    func response() -> Response {
        Response(status: status, headers: responseHeaders, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The JSON body.
    package var body: [UInt8] {
        var body = #"{"error":{"code":"# + JSONText.quoted(code) + #","message":"# + JSONText.quoted(message)
        if let hint { body += #","hint":"# + JSONText.quoted(hint) }
        body += "}"
        var bytes = Array(body.utf8)
        if let details {
            bytes += Array(#","details":"#.utf8)
            bytes += details
        }
        bytes += Array("}\n".utf8)
        return bytes
    }

    /// ``headers`` with the body's media type and `Cache-Control: no-store`.
    var responseHeaders: HTTPFields {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return headers
    }
}

extension ServiceError {
    /// Apple's answer to a wrong token and to an unknown order alike, so that the answer says
    /// nothing about which orders exist.
    static let unauthorized = ServiceError(
        .unauthorized, code: "unauthorized", "The request is not authorized for this order.",
        hint: "Send 'Authorization: AppleOrder <authenticationToken>' with the order's authenticationToken.",
        headers: [.wwwAuthenticate: "AppleOrder"])

    /// A request body that stopped before its end: the client stopped sending (the connection's
    /// body deadline closed it) or closed the connection. The client's doing, so a 4xx in the
    /// metrics and the request log, never a 500; the answer itself seldom reaches anyone.
    static let bodyIncomplete = ServiceError(
        .requestTimeout, code: "body-incomplete",
        "The request body stopped before its end: the client stopped sending it, or closed the connection.",
        hint: "Send the whole body promptly, as Content-Length (or the chunked encoding) announces.")

    /// Whether `error`, thrown while a request body was read, is the body stream's own failure
    /// (the connection closed before the body's end: the parser's `invalidEOFState`, whether the
    /// client hung up or a deadline closed it) rather than an answer already decided (a size
    /// limit, a decoding error), a body that isn't valid HTTP (any other parser error: a 400
    /// `bad-http`, ``ErrorMiddleware``) or a cancellation.
    static func isBodyStreamFailure(_ error: any Error) -> Bool {
        if let parser = error as? HTTPParserError { return parser == .invalidEOFState }
        return !(error is any HTTPResponseError) && !(error is NIOTooManyBytesError) && !(error is CancellationError)
            && !(error is DecodingError)
    }

    static func badRequest(_ code: String, _ message: String, hint: String? = nil) -> ServiceError {
        ServiceError(.badRequest, code: code, message, hint: hint)
    }

    /// A library error, with the status that fits its code: the one place a refused order, a
    /// store failure or any other ``WalletOrdersError`` becomes an HTTP answer (the merchant API's
    /// refusals and the error middleware both come here).
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - report: The validation report of a refused order: sent as the answer's `details` for
    ///     `validation-failed` and `archive-rejected`, every finding as `wallet-orders validate`
    ///     prints it.
    package static func from(_ error: WalletOrdersError, report: ValidationReport? = nil) -> ServiceError {
        if let report, error.code == .archiveRejected || error.code == .validationFailed {
            // A posted order.json (or zip of sources) is refused before anything is signed: no archive exists.
            let refused =
                error.code == .validationFailed
                ? "The order was not built: Wallet would refuse its order.json or files, so nothing was signed or stored."
                : "The archive was not stored: Wallet would refuse it."
            return ServiceError(
                .unprocessableContent, code: error.code.rawValue, refused,
                hint: "The details list every finding, as `wallet-orders validate` prints them.",
                details: try? JSONEncoder.sorted.encode(report).asBytes)
        }
        let status: HTTPResponse.Status
        switch error.code {
        case .archiveRejected, .validationFailed, .invalidOrder, .orderTypeMismatch, .archiveUnreadable, .fileTooLarge,
            .bundleTooLarge, .updatedAtInFuture, .invalidSource, .certificateNotValid:
            // certificate-not-valid: the order can't be signed now (the type's certificate isn't valid at the signing time).
            status = .unprocessableContent
        case .updatedAtConflict, .orderRegistrationLimit, .deviceRegistrationLimit: status = .conflict
        case .malformedToken, .historyTokenInvalid: status = .badRequest
        case .storeReadOnly, .storeFull, .storeUnavailable, .storeCorrupt, .storeTooNew:
            // The library's message names the store's file or address: the log gets it, the client a summary.
            let summary =
                switch error.code {
                case .storeFull: "The order store is full; nothing was saved."
                case .storeReadOnly: "The order store can't be written now; nothing was saved."
                case .storeUnavailable: "The order store can't be reached now."
                default: "The order store can't be used."
                }
            var answer = ServiceError(
                .serviceUnavailable, code: error.code.rawValue, summary, hint: "Try again later; the service's log names the cause.")
            answer.logDetail = error.hint.map { "\(error.message) \($0)" } ?? error.message
            return answer
        case .signingFailed, .archiveWriteFailed:
            // OpenSSL or libzip failed on the service's side: the log gets their words, the client a summary.
            var answer = ServiceError(
                .internalServerError, code: error.code.rawValue, "The service could not sign or write the archive; nothing was saved.",
                hint: "Try again later; the service's log names the cause.")
            answer.logDetail = error.hint.map { "\(error.message) \($0)" } ?? error.message
            return answer
        default: status = .internalServerError
        }
        return ServiceError(status, code: error.code.rawValue, error.message, hint: error.hint)
    }
}

/// JSON string literals for the few bodies written by hand (the library's own escaping).
enum JSONText {
    static func quoted(_ text: String) -> String {
        var out = ""
        writeJSONString(text, to: &out)
        return out
    }
}
