import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import WalletOrders
import WalletOrdersTestFixtures

/// A small order web service with deviations other implementations really have, each toggled
/// on its own, for the service checker's tests. It serves one stored sample archive and keeps
/// its registrations in memory; with no deviation it follows Apple's protocol.
struct DeviantOrderService: Sendable {
    /// The deviations it can have.
    enum Deviation: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// The archive served as `application/vnd.apple.order`.
        case ownMediaType
        /// `Last-Modified` as epoch seconds.
        case epochLastModified
        /// `If-Modified-Since` read as a number, so an HTTP-date never gives 304.
        case numericIfModifiedSince
        /// 404 rather than 401 for an unknown order.
        case notFoundForUnknownOrder
        /// Tags that are floating-point epoch strings, compared as times.
        case floatingPointTags
        /// The changed-orders list is not JSON (and echoes the token).
        case garbageList
        /// The changed-orders list ignores the tag: the order is listed again for the service's own tag.
        case ignoresTag
        /// The order is answered with a body over 8 MiB.
        case hugeOrderBody
        /// The order is answered with a body over 8 MiB in chunks, without a Content-Length.
        case hugeStreamedOrderBody
        /// The changed-orders list answers after 5 seconds.
        case slowList

        var testDescription: String { rawValue }
    }

    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"
    static let order = SampleVersions.identifier
    static let updatedAt: Timestamp = "2025-11-21T00:00:00Z"

    let deviation: Deviation?
    let archive: [UInt8]
    private let devices = Devices()

    /// The registered devices.
    private final class Devices: Sendable {
        let registered = Mutex<Set<String>>([])
    }

    init(_ deviation: Deviation?) throws {
        self.deviation = deviation
        archive = try SampleVersions.archive(updatedAt: Self.updatedAt.text)
    }

    /// Runs `body` with the service's base URL, the service listening on loopback.
    func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        add(to: router)
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await application.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port ?? 0)")
        }
    }

    private var entityTag: String { "\"v1\"" }

    private func authorized(_ request: Request) -> Bool {
        request.headers[.authorization] == "AppleOrder \(Self.token)"
    }

    private var tag: String {
        deviation == .floatingPointTags ? String(Double(Self.updatedAt.secondsSince1970)) : "7"
    }

    /// Whether the order changed since `tag`.
    private func changed(since tag: String?) -> Bool {
        guard let tag, deviation != .ignoresTag else { return true }
        if deviation == .floatingPointTags { return Double(Self.updatedAt.secondsSince1970) > (Double(tag) ?? 0) }
        return tag != self.tag
    }

    private func add(to router: Router<BasicRequestContext>) {
        router.get("v1/orders/:type/:order") { request, context -> Response in
            let known =
                context.parameters.get("type") == Self.order.orderTypeIdentifier && context.parameters.get("order") == Self.order.orderIdentifier
            if !known && deviation == .notFoundForUnknownOrder { return Response(status: .notFound) }
            guard known, authorized(request) else { return Response(status: .unauthorized) }
            var headers: HTTPFields = [
                .lastModified: deviation == .epochLastModified ? "\(Self.updatedAt.secondsSince1970)" : HTTPDate.format(Self.updatedAt),
                .eTag: entityTag,
            ]
            if request.headers[.ifNoneMatch] == entityTag { return Response(status: .notModified, headers: headers) }
            if let since = request.headers[.ifModifiedSince] {
                let seconds = deviation == .numericIfModifiedSince ? Int64(since) : HTTPDate.parse(since)
                if let seconds, Self.updatedAt.secondsSince1970 <= seconds { return Response(status: .notModified, headers: headers) }
            }
            headers[.contentType] = deviation == .ownMediaType ? "application/vnd.apple.order" : "application/vnd.apple.finance.order"
            if deviation == .hugeStreamedOrderBody {
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody { writer in
                        for _ in 0..<9 { try await writer.write(ByteBuffer(repeating: 0x50, count: 1024 * 1024)) }
                        try await writer.finish(nil)
                    })
            }
            let body = deviation == .hugeOrderBody ? [UInt8](repeating: 0x50, count: 9 * 1024 * 1024) : archive
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("v1/devices/:device/registrations/:type/:order") { request, context -> Response in
            guard authorized(request), context.parameters.get("order") == Self.order.orderIdentifier else { return Response(status: .unauthorized) }
            let body = try await request.body.collect(upTo: 4096)
            guard (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: String])?["pushToken"] != nil else {
                return Response(status: .badRequest)
            }
            let device = context.parameters.get("device") ?? ""
            let added = devices.registered.withLock { $0.insert(device).inserted }
            return Response(status: added ? .created : .ok)
        }
        router.delete("v1/devices/:device/registrations/:type/:order") { request, context -> Response in
            guard authorized(request) else { return Response(status: .unauthorized) }
            let device = context.parameters.get("device") ?? ""
            devices.registered.withLock { _ = $0.remove(device) }
            return Response(status: .ok)
        }
        router.get("v1/devices/:device/registrations/:type") { request, context -> Response in
            let device = context.parameters.get("device") ?? ""
            guard devices.registered.withLock({ $0.contains(device) }) else { return Response(status: .noContent) }
            if deviation == .slowList { try await Task.sleep(for: .seconds(8)) }
            if deviation == .garbageList {
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{orderIdentifiers: [nw-2025-118734], token: \(Self.token)")))
            }
            guard changed(since: request.uri.queryParameters["ordersModifiedSince"].map(String.init)) else {
                return Response(status: .noContent)
            }
            let json = #"{"orderIdentifiers": ["\#(Self.order.orderIdentifier)"], "lastModified": "\#(tag)"}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.post("v1/log") { _, _ -> Response in Response(status: .ok) }
    }
}
