public import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local stand-in for Apple's push service: HTTP/2 over TLS on 127.0.0.1, checking what Wallet's
/// order protocol sends (spec §5.1) and answering as APNs does.
///
/// Per request it checks the path `/3/device/<hex token>`, the method `POST`, `apns-topic`,
/// `apns-push-type: background`, `apns-priority: 5`, a body JSON-equal to `{}`, and the caller:
/// either a TLS client certificate issued by ``Configuration/clientCertificateAuthorityPEM`` whose
/// subject UID equals the topic (as APNs ties a certificate to its topic), or an
/// `authorization: bearer <JWT>` signed by ``Configuration/providerToken``. A request that fails a
/// check gets APNs' status and `{"reason": …}`; one that passes gets 200, unless a scripted answer
/// (``respondToNext(_:with:)``, ``respond(toDeviceToken:with:)``) says otherwise.
///
/// Every request is recorded (``requests``, ``pushes``) for assertions. Start with ``start()``, end
/// with ``shutdown()``.
public final class APNsStandIn: Sendable {
    /// What the stand-in serves and whom it trusts.
    public struct Configuration: Sendable {
        /// The host to listen on.
        public var host: String = "127.0.0.1"
        /// The port to listen on; 0 picks a free one (see ``APNsStandIn/port``).
        public var port: Int = 0
        /// The server's certificate chain (PEM, leaf first).
        public var serverCertificateChainPEM: String
        /// The server's private key (PEM).
        public var serverPrivateKeyPEM: String
        /// The CA certificates (PEM) that issue acceptable client certificates; `nil` accepts no
        /// certificate authentication. As with APNs the TLS handshake asks for a certificate but
        /// doesn't require one; one that is presented must verify against these CAs (and carry the
        /// clientAuth extended key usage, if it names any), or the handshake fails.
        public var clientCertificateAuthorityPEM: String?
        /// The key that signs acceptable provider tokens (JWT); `nil` accepts no token authentication.
        public var providerToken: ProviderTokenKey?
        /// How old a provider token's `iat` may be (APNs: one hour).
        public var maximumTokenAge: TimeInterval = 3600

        /// A stand-in with the given server identity and no accepted callers yet.
        public init(
            serverCertificateChainPEM: String, serverPrivateKeyPEM: String,
            clientCertificateAuthorityPEM: String? = nil, providerToken: ProviderTokenKey? = nil
        ) {
            self.serverCertificateChainPEM = serverCertificateChainPEM
            self.serverPrivateKeyPEM = serverPrivateKeyPEM
            self.clientCertificateAuthorityPEM = clientCertificateAuthorityPEM
            self.providerToken = providerToken
        }
    }

    /// The public half of a provider's APNs signing key (`.p8`) and who it belongs to.
    public struct ProviderTokenKey: Sendable {
        /// The key ID the JWT header's `kid` must name.
        public var keyID: String
        /// The team ID the JWT's `iss` claim must name.
        public var teamID: String
        /// The P-256 public key (PEM, `BEGIN PUBLIC KEY`).
        public var publicKeyPEM: String

        /// A key `keyID` of team `teamID`.
        public init(keyID: String, teamID: String, publicKeyPEM: String) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKeyPEM = publicKeyPEM
        }
    }

    /// A scripted answer in place of the usual one.
    public enum ScriptedResponse: Sendable, Hashable {
        /// Answer with `status`, `{"reason": reason}` and, when given, a `Retry-After` header.
        case error(status: Int, reason: String, retryAfter: String? = nil)
        /// Close the whole connection without answering.
        case closeConnection
    }

    /// One request the stand-in received and how it answered.
    public struct Request: Sendable, Hashable {
        /// The device token from the path (what follows `/3/device/`).
        public var deviceToken: String
        /// The `apns-topic` header, if any.
        public var topic: String?
        /// The request's method.
        public var method: String
        /// The request's path.
        public var path: String
        /// All request headers, names lowercased (a repeated header keeps its last value).
        public var headers: [String: String]
        /// The body as text.
        public var body: String
        /// The subject UID of the TLS client certificate, if the caller presented one.
        public var clientCertificateUID: String?
        /// The provider token (JWT) from `authorization: bearer …`, if any.
        public var providerToken: String?
        /// When it arrived.
        public var receivedAt: Date
        /// The status the stand-in answered with (0 when it closed the connection instead).
        public var status: Int
        /// The `reason` it answered with, if not 200.
        public var reason: String?

        /// Whether the stand-in accepted it as a push (200).
        public var accepted: Bool { status == 200 }
    }

    private struct State {
        var requests: [Request] = []
        var scriptedNext: [ScriptedResponse] = []
        var scriptedByToken: [String: ScriptedResponse] = [:]
        var channel: (any Channel)?
        var onRequest: (@Sendable (Request) -> Void)?
    }

    let configuration: Configuration
    private let verifier: RequestVerifier
    private let state = Mutex(State())
    private let group: MultiThreadedEventLoopGroup
    private let ownsGroup: Bool

    /// A stand-in with `configuration`; call ``start()`` to listen.
    ///
    /// - Throws: when the server identity or a trusted key or certificate can't be read.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        self.verifier = try RequestVerifier(configuration: configuration)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.ownsGroup = true
    }

    /// Starts listening; returns once the port is bound.
    public func start() async throws {
        let tls = try makeTLSConfiguration()
        let sslContext = try NIOSSLContext(configuration: tls)
        let verifier = self.verifier
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    var connection = NIOHTTP2Handler.ConnectionConfiguration()
                    // APNs allows many concurrent streams per connection; NIO's default is 100.
                    connection.initialSettings = nioDefaultSettings.map {
                        $0.parameter == .maxConcurrentStreams ? HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000) : $0
                    }
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            // Streams open after the handshake, so the peer's certificate is known.
                            let certificate = try? stream.parent?.pipeline.syncOperations.nioSSL_peerCertificate()
                            let uid = certificate?.subjectName.first { $0.type == .userId }?.value
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(),
                                StreamHandler(standIn: self, verifier: verifier, clientCertificateUID: uid),
                            ])
                        }
                    }
                }
            }
        let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        state.withLock { $0.channel = channel }
    }

    /// The port it listens on (after ``start()``).
    public var port: Int {
        state.withLock { $0.channel?.localAddress?.port } ?? 0
    }

    /// Stops listening, closes every connection and ends its threads.
    public func shutdown() async throws {
        let channel = state.withLock { state in
            defer { state.channel = nil }
            return state.channel
        }
        try? await channel?.close()
        if ownsGroup { try await group.shutdownGracefully() }
    }

    /// Every request so far, in order of arrival.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The requests it accepted as pushes (answered 200), in order of arrival.
    public var pushes: [Request] { requests.filter(\.accepted) }

    /// Calls `handler` with each request once it is answered (for `apns-stand-in` to print them).
    public func onRequest(_ handler: @escaping @Sendable (Request) -> Void) {
        state.withLock { $0.onRequest = handler }
    }

    /// Answers the next `count` requests that pass the checks with `response`, after those
    /// already scripted.
    public func respondToNext(_ count: Int = 1, with response: ScriptedResponse) {
        state.withLock { $0.scriptedNext.append(contentsOf: repeatElement(response, count: count)) }
    }

    /// Answers every request for `deviceToken` that passes the checks with `response` (`nil` ends it).
    public func respond(toDeviceToken deviceToken: String, with response: ScriptedResponse?) {
        state.withLock { $0.scriptedByToken[deviceToken.lowercased()] = response }
    }

    /// Forgets the recorded requests and every scripted answer.
    public func reset() {
        state.withLock { state in
            state.requests = []
            state.scriptedNext = []
            state.scriptedByToken = [:]
        }
    }

    private func makeTLSConfiguration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(configuration.serverCertificateChainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(configuration.serverPrivateKeyPEM.utf8), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        if let authorities = configuration.clientCertificateAuthorityPEM {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorities.utf8)))
            // Like APNs: a certificate is asked for but optional (token callers have none); one
            // that is presented must verify, or the handshake fails.
            tls.certificateVerification = .optionalVerification
            tls.sendCANameList = true
        } else {
            tls.certificateVerification = .none
        }
        return tls
    }

    /// Decides the answer to a request that arrived complete: the checks first, then the script.
    func answer(_ incoming: IncomingRequest, clientCertificateUID: String?) -> ScriptedResponse? {
        var request = Request(
            deviceToken: incoming.deviceToken, topic: incoming.headers["apns-topic"], method: incoming.method,
            path: incoming.path, headers: incoming.headers, body: String(decoding: incoming.body, as: UTF8.self),
            clientCertificateUID: clientCertificateUID, providerToken: incoming.bearerToken, receivedAt: Date(),
            status: 200, reason: nil)
        var answer: ScriptedResponse?
        if let refusal = verifier.check(incoming, clientCertificateUID: clientCertificateUID) {
            answer = .error(status: refusal.status, reason: refusal.reason)
        }
        let handler = state.withLock { state -> (@Sendable (Request) -> Void)? in
            if answer == nil {
                if let scripted = state.scriptedByToken[incoming.deviceToken.lowercased()] {
                    answer = scripted
                } else if !state.scriptedNext.isEmpty {
                    answer = state.scriptedNext.removeFirst()
                }
            }
            switch answer {
            case .error(let status, let reason, _):
                request.status = status
                request.reason = reason
            case .closeConnection:
                request.status = 0
            case nil:
                break
            }
            state.requests.append(request)
            return state.onRequest
        }
        handler?(request)
        return answer
    }
}

/// A request as the stream handler collected it.
struct IncomingRequest {
    var method: String
    var path: String
    var headers: [String: String]
    var body: [UInt8]
    var bodyTooLarge: Bool

    /// The path's token, lowercased hex or not.
    var deviceToken: String {
        path.hasPrefix("/3/device/") ? String(path.dropFirst("/3/device/".count)) : ""
    }

    /// The JWT from `authorization: bearer <jwt>`.
    var bearerToken: String? {
        guard let value = headers["authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Trimmed by hand: Foundation's `trimmingCharacters(in:)` bridges the whole token through
        // NSString, which was a sixth of the stand-in's time per push.
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var token = parts[1].drop(while: isBlank)
        while let last = token.last, isBlank(last) { token = token.dropLast() }
        return String(token)
    }
}

/// Collects one HTTP/2 stream's request and writes the stand-in's answer.
final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// APNs' payload limit for everything but VoIP pushes.
    static let maximumBody = 4096

    let standIn: APNsStandIn
    let verifier: RequestVerifier
    let clientCertificateUID: String?
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    var bodyTooLarge = false

    init(standIn: APNsStandIn, verifier: RequestVerifier, clientCertificateUID: String?) {
        self.standIn = standIn
        self.verifier = verifier
        self.clientCertificateUID = clientCertificateUID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var buffer):
            if body.count + buffer.readableBytes > Self.maximumBody {
                bodyTooLarge = true
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            guard let head else { return context.close(promise: nil) }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let incoming = IncomingRequest(
                method: head.method.rawValue, path: head.uri, headers: headers, body: body, bodyTooLarge: bodyTooLarge)
            let apnsID = headers["apns-id"] ?? UUID().uuidString
            switch standIn.answer(incoming, clientCertificateUID: clientCertificateUID) {
            case nil:
                respond(context: context, status: 200, apnsID: apnsID, body: nil, retryAfter: nil)
            case .error(let status, let reason, let retryAfter):
                var json = #"{"reason":"\#(reason)""#
                if status == 410 { json += #","timestamp":\#(Int(Date().timeIntervalSince1970 * 1000))"# }
                json += "}"
                respond(context: context, status: status, apnsID: apnsID, body: json, retryAfter: retryAfter)
            case .closeConnection:
                context.channel.parent?.close(promise: nil)
            }
        }
    }

    private func respond(context: ChannelHandlerContext, status: Int, apnsID: String, body: String?, retryAfter: String?) {
        var headers = HTTPHeaders([("apns-id", apnsID)])
        if let body {
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: String(body.utf8.count))
        }
        if let retryAfter { headers.add(name: "retry-after", value: retryAfter) }
        let head = HTTPResponseHead(
            version: .http2, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
