import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import WalletOrders
import WalletOrdersStore
import WalletPasses

/// Apple's pass web service protocol, under `/v1/` (``AppleWebServiceRoutes`` routes to it):
///
/// | method and path | answers |
/// |---|---|
/// | `POST /v1/devices/{device}/registrations/{passType}/{serial}` | 201 registered, 200 already registered, 401; 409 past a registration cap, 429 past the client's rate |
/// | `DELETE /v1/devices/{device}/registrations/{passType}/{serial}` | 200 unregistered, 401 |
/// | `GET /v1/devices/{device}/registrations/{passType}?passesUpdatedSince=` | 200 `SerialNumbers` (`lastUpdated` a string), 204 none |
/// | `GET /v1/passes/{passType}/{serial}` (and `HEAD`) | 200 the pass (`application/vnd.apple.pkpass`), 304 not modified, 401 |
///
/// The log endpoint is the one the order service has. As for orders, a wrong token and an unknown
/// pass get the same 401 after the same work, the registration caps and client rates are the
/// same, and a tag the store didn't give out is answered with every serial number.
struct ApplePassRoutes: Sendable {
    let store: any OrderServiceStore
    /// The caps on registrations per pass and per device.
    let registrationLimits: RegistrationLimits
    /// The rates of registrations per client address, and the registration body.
    let registrationGate: RegistrationGate
    /// The archives of recent 200s, by digest (shared with the order routes: a digest names one archive).
    let archives: ArchiveCache

    func register(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let pass = try Self.registrationPass(context)
        let client = registrationGate.client(request, context)
        do {
            try await authorize(request, pass)
        } catch let error as ServiceError where error.status == .unauthorized {
            try registrationGate.refused(client)
            throw error
        }
        let token = try await registrationGate.pushToken(request, context)
        try registrationGate.accepted(client)
        let result = try await store.register(deviceIdentifier: device, pushToken: token, for: pass, limits: registrationLimits)
        guard result != .notFound else { throw ServiceError.unauthorized }  // deleted since it was authorized
        context.logger.info(
            "device registered for a pass", metadata: ["pass": .string(LogText.escaped("\(pass)")), "result": .string(result.rawValue)])
        return Response(status: result == .created ? .created : .ok)
    }

    func unregister(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let pass = try Self.registrationPass(context)
        try await authorize(request, pass)
        try await store.unregister(deviceIdentifier: device, from: pass)
        return Response(status: .ok)
    }

    func changedPasses(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let device = try context.deviceIdentifier()
        let type = try context.pathSegment("type")
        let tag = request.uri.queryParameters["passesUpdatedSince"].map(String.init)
        let changed: ChangedPasses?
        do {
            changed = try await store.changedPasses(deviceIdentifier: device, passTypeIdentifier: type, since: tag)
        } catch let error as WalletOrdersError where error.code == .malformedToken {
            throw ServiceError.badRequest("bad-passes-updated-since", error.message, hint: error.hint)
        }
        guard let changed else { return Response(status: .noContent) }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(changed))))
    }

    func pass(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let pass = PassIdentifier(passTypeIdentifier: try context.pathSegment("type"), serialNumber: try context.pathSegment("serial"))
        let presented = AppleAuthorization.token(request.headers[.authorization], of: .pass)
        // The record and, for a 200, the archive of its version: one read, and none of the
        // archive for a 304 or when the cache holds that version.
        var admitted = false
        var notModified = false
        var cached: ByteBuffer?
        let fetched = try await store.passAccessRecord(for: pass) { record in
            admitted = Self.admits(presented, record)
            notModified =
                admitted
                && ConditionalRequest.notModified(request.headers, entityTag: Self.entityTag(record), updatedAt: Self.modified(record))
            guard admitted, !notModified else { return false }
            cached = archives.archive(sha256: record.sha256)
            return cached == nil
        }
        guard let fetched, admitted else {
            if fetched == nil { _ = Self.admits(presented, nil) }  // an unknown pass costs what a wrong token costs
            Counter(label: "wallet_orders_unauthorized_requests_total", dimensions: [("route", "pass")]).increment()
            throw ServiceError.unauthorized
        }
        let record = fetched.record
        var headers: HTTPFields = [
            .lastModified: ConditionalRequest.lastModified(Self.modified(record)),
            .eTag: Self.entityTag(record),
            // The answer depends on the Authorization header: shared caches must not keep it.
            .cacheControl: "private, no-cache",
        ]
        if notModified { return Response(status: .notModified, headers: headers) }
        let body: ByteBuffer
        if let cached {
            body = cached
        } else if let bytes = fetched.archive {
            body = archives.keep(bytes, sha256: record.sha256)
        } else {
            throw ServiceError.unauthorized  // asked for, so always there
        }
        headers[.contentType] = ArchiveKind.pass.mimeType
        headers[.contentDisposition] = ArchiveMediaType.attachment(named: pass.serialNumber, kind: .pass)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    // MARK: - Authorization

    /// The pass `{type}/{order}` names on the registration paths (shared with orders).
    private static func registrationPass(_ context: OrderRequestContext) throws -> PassIdentifier {
        PassIdentifier(passTypeIdentifier: try context.pathSegment("type"), serialNumber: try context.pathSegment("order"))
    }

    /// The pass's access record when `Authorization: ApplePass <token>` carries its token;
    /// otherwise Apple's 401, the same for an unknown pass and a wrong token.
    private func authorize(_ request: Request, _ pass: PassIdentifier) async throws {
        let record = try await store.passAccessRecord(for: pass)
        guard Self.admits(AppleAuthorization.token(request.headers[.authorization], of: .pass), record) else {
            Counter(label: "wallet_orders_unauthorized_requests_total", dimensions: [("route", "pass-registration")]).increment()
            throw ServiceError.unauthorized
        }
    }

    private static func admits(_ presented: String?, _ record: PassAccessRecord?) -> Bool {
        AppleAuthorization.admits(presented, current: record?.authenticationToken, previous: record?.previousAuthenticationToken)
    }

    /// The archive's entity tag: its SHA-256, quoted.
    private static func entityTag(_ record: PassAccessRecord) -> String {
        "\"\(record.sha256)\""
    }

    /// When the version was saved, as the whole second conditional requests compare with.
    private static func modified(_ record: PassAccessRecord) -> Timestamp {
        Timestamp(secondsSince1970: record.modifiedAt, nanoseconds: 0)
    }
}
