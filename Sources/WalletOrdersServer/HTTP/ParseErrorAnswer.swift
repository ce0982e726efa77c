import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives the service's JSON error body to the 400 that Hummingbird writes, with no body, when a
/// request isn't valid HTTP/1.1 (a header value with a control character, for example): the
/// HTTP decoder reports an `HTTPParserError` up the pipeline, Hummingbird answers `400` with
/// `Content-Length: 0` and closes the connection. This handler sits between the two, notes the
/// error on its way in and fills in that answer on its way out.
final class ParseErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let error = ServiceError.badRequest(
        "bad-http", "The request is not valid HTTP/1.1.",
        hint: "Check the request line and the headers: header values may not hold control characters.")

    private var parseFailed = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { parseFailed = true }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard parseFailed, case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest,
            head.headerFields[.contentType] == nil
        else {
            context.write(data, promise: promise)
            return
        }
        parseFailed = false
        let body = Self.error.body
        for field in Self.error.responseHeaders { head.headerFields[field.name] = field.value }
        head.headerFields[.contentLength] = String(body.count)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
    }
}
