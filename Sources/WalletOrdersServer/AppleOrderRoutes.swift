import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import WalletOrders
import WalletOrdersJSON
import WalletOrdersStore

/// Apple's order web service protocol, under `/v1/` (``AppleWebServiceRoutes`` routes to it):
///
/// | method and path | answers |
/// |---|---|
/// | `POST /v1/devices/{device}/registrations/{type}/{order}` | 201 registered, 200 already registered, 401; 409 past a registration cap, 429 past the client's rate |
/// | `DELETE /v1/devices/{device}/registrations/{type}/{order}` | 200 unregistered, 401 |
/// | `GET /v1/devices/{device}/registrations/{type}?ordersModifiedSince=` | 200 `OrderIdentifiers`, 204 none |
/// | `GET /v1/orders/{type}/{order}` | 200 the archive, 304 not modified, 401 |
/// | `POST /v1/log` | 200, 429 when a client or everyone together sends too much (``DeviceLogLimits``) |
///
/// A wrong token and an unknown order get the same 401, after the same work, so the answer says
/// nothing about which orders exist. Path segments are percent-decoded strictly; one that doesn't
/// decode is a 400.
struct AppleOrderRoutes: Sendable {
    let store: any OrderServiceStore
    let logLimiter: RateLimiter
    let logBudget: ByteBudget
    let logRequestBytes: Int
    let trustedProxies: TrustedProxies
    let pushWorker: PushWorker?
    /// The caps on registrations per order and per device.
    let registrationLimits: RegistrationLimits
    /// The rates of registrations per client address, and the registration body.
    let registrationGate: RegistrationGate
    /// Where registrations, changed-orders requests and fetches are noted (``DeliveryTrailRecorder``).
    let trail: DeliveryTrailRecorder?
    /// The archives of recent 200s, by digest.
    let archives: ArchiveCache

    // MARK: - Endpoints

    func register(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let order = try context.orderIdentifier()
        let client = registrationGate.client(request, context)
        do {
            try await authorize(request, order)
        } catch let error as ServiceError where error.status == .unauthorized {
            try registrationGate.refused(client)
            throw error
        }
        let token = try await registrationGate.pushToken(request, context)
        try registrationGate.accepted(client)
        let result = try await store.register(deviceIdentifier: device, pushToken: token, for: order, limits: registrationLimits)
        guard result != .notFound else { throw ServiceError.unauthorized }  // deleted since it was authorized
        trail?.record(
            DeliveryEvent(
                .registered, at: Date(), orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier,
                deviceHash: DeliveryEvent.hash(device, orderType: order.orderTypeIdentifier),
                tokenHash: DeliveryEvent.hash(token, orderType: order.orderTypeIdentifier),
                detail: .init(status: result == .created ? 201 : 200, tokenPrefix: String(token.prefix(8)))))
        context.logger.info(
            "device registered", metadata: ["order": .string(LogText.escaped("\(order)")), "result": .string(result.rawValue)])
        return Response(status: result == .created ? .created : .ok)
    }

    func unregister(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let order = try context.orderIdentifier()
        try await authorize(request, order)
        if try await store.unregister(deviceIdentifier: device, from: order) {
            trail?.record(
                DeliveryEvent(
                    .unregistered, at: Date(), orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier,
                    deviceHash: DeliveryEvent.hash(device, orderType: order.orderTypeIdentifier), detail: .init(reason: "the device unregistered")))
        }
        return Response(status: .ok)
    }

    func changedOrders(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let type = try context.pathSegment("type")
        let tag = request.uri.queryParameters["ordersModifiedSince"].map(String.init)
        let changed: ChangedOrders?
        do {
            changed = try await store.changedOrders(deviceIdentifier: device, orderTypeIdentifier: type, since: tag)
        } catch let error as WalletOrdersError where error.code == .malformedToken {
            throw ServiceError.badRequest("bad-orders-modified-since", error.message, hint: error.hint)
        }
        // Kept only for a device registered for the type: anyone may ask for any device, and
        // made-up devices asking (seen: 560,000 of them) must not fill the trail.
        var heard = changed != nil
        if trail != nil, !heard { heard = try await store.isRegistered(deviceIdentifier: device, orderTypeIdentifier: type) }
        if let trail, heard {
            trail.record(
                DeliveryEvent(
                    .listed, at: Date(), orderTypeIdentifier: type, deviceHash: DeliveryEvent.hash(device, orderType: type),
                    detail: .init(
                        status: changed == nil ? 204 : 200, tagSent: tag.map { String($0.prefix(64)) }, tagAnswered: changed?.lastModified,
                        orderIdentifiers: changed.map { Array($0.orderIdentifiers.prefix(64)) } ?? [])))
        } else if trail != nil {
            Counter(label: "wallet_orders_unregistered_device_lists_total").increment()
        }
        guard let changed else { return Response(status: .noContent) }
        let body = try JSONEncoder().encode(changed)
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    func order(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try context.orderIdentifier()
        let presented = AppleAuthorization.token(request.headers[.authorization], of: .order)
        // The record and, for a 200, the archive of its version: one read, and none of the archive
        // when the cache holds that version.
        var admitted = false
        var notModified = false
        var cached: ByteBuffer?
        let fetched = try await store.accessRecord(for: order) { record in
            admitted = Self.admits(presented, record)
            notModified = admitted && ConditionalRequest.notModified(request.headers, entityTag: Self.entityTag(record), updatedAt: record.updatedAt)
            guard admitted, !notModified else { return false }
            cached = archives.archive(sha256: record.sha256)
            return cached == nil
        }
        guard let fetched, admitted else {
            if fetched == nil { _ = Self.admits(presented, nil) }  // an unknown order costs what a wrong token costs
            // Counted, never written into the order's trail: only a request with the order's
            // token speaks for it (seen: 60 wrong-token fetches flipped an order's verdict).
            Counter(label: "wallet_orders_unauthorized_requests_total", dimensions: [("route", "order")]).increment()
            throw ServiceError.unauthorized
        }
        let record = fetched.record
        var headers: HTTPFields = [
            .lastModified: ConditionalRequest.lastModified(record.updatedAt),
            .eTag: Self.entityTag(record),
            // The answer depends on the Authorization header: shared caches must not keep it, and
            // the device revalidates every time (Apple: "support standard HTTP caching").
            .cacheControl: "private, no-cache",
        ]
        if notModified {
            noteFetch(request, order, status: 304, record: record)
            return Response(status: .notModified, headers: headers)
        }
        noteFetch(request, order, status: 200, record: record)
        let body: ByteBuffer
        if let cached {
            body = cached
        } else if let bytes = fetched.archive {
            body = archives.keep(bytes, sha256: record.sha256)
        } else {
            throw ServiceError.unauthorized  // asked for, so always there
        }
        headers[.contentType] = OrderMediaType.order
        headers[.contentDisposition] = OrderMediaType.attachment(for: order)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// The archive's entity tag: its SHA-256, quoted.
    private static func entityTag(_ record: OrderAccessRecord) -> String {
        "\"\(record.sha256)\""
    }

    /// Device logs: one record per request, its messages escaped and cut to `logRequestBytes` in
    /// all (the text is cut before it is escaped), within the client's rate and the service's
    /// byte budget.
    func log(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let client = trustedProxies.client(
            socketAddress: context.remoteAddress?.ipAddress ?? "unknown", forwardedFor: request.headers[values: .xForwardedFor])
        if let wait = logLimiter.acquire(IPAddressRange.limitKey(client)) {
            throw Self.tooManyLogs("rate-limited", "Too many log messages from this client.", wait: wait)
        }
        let overhead = DeviceLogLimits.recordOverheadBytes
        let allowance: Int
        switch logBudget.take(overhead + logRequestBytes, minimum: overhead + 1) {
        case .success(let bytes): allowance = bytes
        case .failure(let wait):
            throw Self.tooManyLogs("log-budget-exhausted", "The service is taking no more device logs for now.", wait: wait.seconds)
        }
        var remaining = allowance - overhead
        defer { logBudget.giveBack(remaining) }
        let body = try await request.bodyBytes(upTo: OrderServiceLimits.maximumLogBodyBytes)
        guard let root = JSONParser.parse(body, maxDepth: 3).root, let entries = root["logs"]?.elements else {
            throw ServiceError.badRequest("bad-body", #"The body is not {"logs": [strings]}."#)
        }
        guard !entries.isEmpty else {
            remaining += overhead  // nothing logged
            return Response(status: .ok)
        }
        // The messages in one value, ` | ` between them, each escaped and cut to what is left.
        var messages = ""
        for entry in entries.prefix(OrderServiceLimits.maximumLogEntries) {
            let separator = messages.isEmpty ? "" : " | "
            guard let text = entry.stringValue else { continue }
            guard remaining >= separator.utf8.count + LogText.noteBytes else { break }
            let message = LogText.escaped(text, limit: min(OrderServiceLimits.maximumLogEntryBytes, remaining - separator.utf8.count))
            messages += separator + message
            remaining -= separator.utf8.count + message.utf8.count
        }
        context.logger.notice(
            "device log",
            metadata: [
                "client": .string(LogText.escaped(client)), "messages": .string(LogText.quoted(messages)),
                "entries": .stringConvertible(entries.count),
            ])
        return Response(status: .ok)
    }

    private static func tooManyLogs(_ code: String, _ message: String, wait: Double) -> ServiceError {
        ServiceError(.tooManyRequests, code: code, message, headers: [.retryAfter: String(max(1, Int(wait.rounded(.up))))])
    }

    // MARK: - Authorization

    /// Notes a fetch of `order` in its trail: the answer, the conditional headers given, the
    /// version answered.
    private func noteFetch(_ request: Request, _ order: FullyQualifiedOrderIdentifier, status: Int, record: OrderAccessRecord?) {
        guard let trail else { return }
        trail.record(
            DeliveryEvent(
                .fetched, at: Date(), orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier,
                detail: .init(
                    status: status, ifNoneMatch: request.headers[.ifNoneMatch] != nil, ifModifiedSince: request.headers[.ifModifiedSince] != nil,
                    sha256: record?.sha256, updatedAt: record?.updatedAt.text)))
    }

    /// The order's access record when `Authorization: AppleOrder <token>` carries its token;
    /// otherwise Apple's 401, the same for an unknown order and a wrong token, counted in
    /// `wallet_orders_unauthorized_requests_total` and never in a trail.
    @discardableResult
    private func authorize(_ request: Request, _ order: FullyQualifiedOrderIdentifier) async throws -> OrderAccessRecord {
        let record = try await store.accessRecord(for: order)
        guard Self.admits(AppleAuthorization.token(request.headers[.authorization], of: .order), record), let record else {
            Counter(label: "wallet_orders_unauthorized_requests_total", dimensions: [("route", "registration")]).increment()
            throw ServiceError.unauthorized
        }
        return record
    }

    /// Whether `presented` (the token of `Authorization: AppleOrder`) opens `record`
    /// (``AppleAuthorization/admits(_:current:previous:)``).
    private static func admits(_ presented: String?, _ record: OrderAccessRecord?) -> Bool {
        AppleAuthorization.admits(presented, current: record?.authenticationToken, previous: record?.previousAuthenticationToken)
    }
}
