import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore

/// The merchant's own API under `/merchant/v1/`, authenticated by API keys
/// (`Authorization: Bearer <key>`), never by order tokens. ``MerchantAuthenticator`` checks the
/// key for the whole route group and puts its scope into the context; each handler acts only on
/// the scope's order types: list and history show only them, and any other type is answered 403
/// `order-type-not-permitted` before the store is asked, whether or not such an order exists.
///
/// | method and path | answers |
/// |---|---|
/// | `POST /merchant/v1/orders` (a signed archive) | 200 `added` / `newerExisting`; 409 same `updatedAt`, other content; 422 the validation report, or `updated-at-in-future` |
/// | `POST /merchant/v1/orders/build` (`order.json`, or a zip of it and changed files) | as an upload, signed by the service |
/// | `GET /merchant/v1/orders?orderTypeIdentifier=&status=&updatedSince=&limit=&after=` | a page of summaries and the next cursor |
/// | `GET /merchant/v1/orders/{type}/{order}` | the stored archive |
/// | `GET /merchant/v1/orders/{type}/{order}/contains?updatedDate=` | FinanceKit's answer and the stored `updatedAt` |
/// | `DELETE /merchant/v1/orders/{type}/{order}` | 200 deleted, 404 |
/// | `GET /merchant/v1/orders/{type}/{order}/link` | the order's "Add to Apple Wallet" link |
/// | `GET /merchant/v1/orders/{type}/{order}/devices` | each registered device, its delivery trail and a verdict (``DeliveryReport``) |
/// | `GET /merchant/v1/history?since=&limit=` | the changes since a token |
///
/// Uploads and builds go through the service's ``OrderIntake`` (validate → sign → store →
/// notify): these handlers only read the request, check the key's scope and answer.
struct MerchantRoutes: Sendable {
    let store: any OrderServiceStore
    let intake: OrderIntake
    let apiKeys: MerchantAPIKeys
    let links: CustomerLinks
    let publicURL: String?
    let signing: SigningIdentities
    /// The delivery trail's writer: a devices report writes what it holds first.
    let deliveryTrail: DeliveryTrailRecorder

    func add(to router: some RouterMethods<OrderRequestContext>) {
        let group = router.group("merchant/v1").add(middleware: MerchantAuthenticator(keys: apiKeys))
        group.post("orders") { request, context in try await upload(request, context) }
        group.post("orders/build") { request, context in try await build(request, context) }
        group.get("orders") { request, context in try await list(request, context) }
        group.get("orders/:type/:order") { request, context in try await fetch(request, context) }
        group.get("orders/:type/:order/contains") { request, context in try await contains(request, context) }
        group.delete("orders/:type/:order") { request, context in try await delete(request, context) }
        group.get("orders/:type/:order/link") { request, context in try await link(request, context) }
        group.get("orders/:type/:order/devices") { request, context in try await devices(request, context) }
        group.get("history") { request, context in try await history(request, context) }
    }

    // MARK: - Endpoints

    private func upload(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let scope = try context.requireMerchantScope()
        let bytes = try await request.bodyBytes(upTo: FileKind.archive.maximumBytes)
        let result = try await intake.submit(signedArchive: bytes, accepting: Self.admitting(scope))
        return try Self.answer(result, logger: context.logger)
    }

    /// Builds and signs an order with the identity the service holds for its type, then saves it:
    /// the body is `order.json` (`application/json`), or a zip of it and any files that differ
    /// from the type's template (`application/zip`). The intake validates before signing, so an
    /// order with errors is answered 422 with the report and costs no signature.
    private func build(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let scope = try context.requireMerchantScope()
        let body = try await request.bodyBytes(upTo: FileKind.archive.maximumBytes)
        var files: [String: [UInt8]]
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingOptionalWhitespace.lowercased()
        switch type {
        case "application/json":
            files = [OrderArchive.orderPath: body]
        case "application/zip":
            let archive: OrderArchive
            do {
                archive = try OrderArchive(bytes: body)
            } catch let error as WalletOrdersError {
                throw ServiceError(.unprocessableContent, code: error.code.rawValue, "The zip can't be read: \(error.message)")
            }
            if let unsafe = archive.readingDiagnostics.first(where: { $0.severity == .error }) {
                throw ServiceError(.unprocessableContent, code: unsafe.ruleID, "The zip was refused: \(unsafe.message)")
            }
            files = Dictionary(uniqueKeysWithValues: archive.filePaths.compactMap { path in archive.contents(of: path).map { (path, $0) } })
            // Seen: `zip -r update.zip my-order` puts every file under my-order/.
            if files[OrderArchive.orderPath] == nil,
                let nested = files.keys.sorted().first(where: { $0.hasSuffix("/" + OrderArchive.orderPath) })
            {
                let folder = String(nested.dropLast(OrderArchive.orderPath.count))
                throw ServiceError(
                    .unprocessableContent, code: "zip-in-a-folder",
                    "The zip's files sit in the folder '\(LogText.escaped(folder))', so it has no order.json at its top level.",
                    hint: "Zip the files themselves, not their folder: (cd my-order && zip -q ../update.zip order.json item.png).")
            }
        default:
            throw ServiceError(
                .unsupportedMediaType, code: "unsupported-media-type",
                "Send order.json as application/json, or a zip of the source files as application/zip\(type.map { "; this body was \(LogText.escaped($0))" } ?? ", with a Content-Type").",
                hint:
                    "Set the Content-Type header to application/json (or application/zip): curl sends a body it is given as application/x-www-form-urlencoded unless told its type."
            )
        }
        // The order type picks the identity and the template: the intake reads it from the parse
        // validation uses, and asks here before anything else.
        let result = try await intake.submit(
            source: OrderSource(files: files),
            signer: { orderType in
                // Before the identity is chosen: another merchant's type is never signed with its certificate.
                try scope.require(orderType)
                guard let entry = signing.entries[orderType] else {
                    throw ServiceError(
                        .unprocessableContent, code: "no-signing-identity",
                        "This service holds no signing identity for \(LogText.escaped(orderType)).",
                        hint: "Sign the archive yourself and upload it to /merchant/v1/orders, or give the service the order type's certificate.")
                }
                return OrderIntake.Signer(builder: OrderArchiveBuilder(identity: entry.identity), template: entry.template)
            }, subject: "order", accepting: Self.admitting(scope))
        return try Self.answer(result, logger: context.logger)
    }

    /// What the intake admits for a merchant: orders of the key's types, whose identifiers
    /// Wallet's requests to this service can name (``PathComponent/isServable(_:)``); an order it
    /// took otherwise could never be registered for or fetched.
    private static func admitting(_ scope: MerchantScope) -> (FullyQualifiedOrderIdentifier) throws -> Void {
        { order in
            try scope.require(order.orderTypeIdentifier)
            for (key, value) in [("orderTypeIdentifier", order.orderTypeIdentifier), ("orderIdentifier", order.orderIdentifier)]
            where !PathComponent.isServable(value.utf8) {
                throw ServiceError(
                    .unprocessableContent, code: "identifier-not-servable",
                    "The order's \(key) has a control character or is longer than \(PathComponent.maximumBytes) bytes: Wallet's requests for the order could not name it.",
                    hint: "Use an \(key) of printable characters, at most \(PathComponent.maximumBytes) bytes of UTF-8.")
            }
        }
    }

    /// The answer to an upload or a build: the store's receipt, 409 for a conflict, or 422 with
    /// the validation report.
    ///
    /// Each answer is logged: a save at info (`order saved`: the order, FinanceKit's answer, its
    /// `updatedAt`), a refusal at notice (`order refused`: the code and the rules of its errors).
    private static func answer(_ result: OrderIntakeResult<OrderIntake.SavedOrder>, logger: Logger) throws -> Response {
        switch result.outcome {
        case .refused(let refusal, let order):
            var metadata: Logger.Metadata = ["code": .string(refusal.code.rawValue)]
            if let order { metadata["order"] = .string(LogText.escaped("\(order)")) }
            let rules = Set(result.report.errors.map(\.ruleID)).sorted()
            if !rules.isEmpty { metadata["rules"] = .string(rules.prefix(10).joined(separator: ",")) }
            logger.notice("order refused", metadata: metadata)
            throw ServiceError.from(refusal, report: result.report)
        case .taken(let saved):
            let receipt = saved.receipt
            Counter(label: "wallet_orders_saves_total", dimensions: [("result", receipt.result.rawValue)]).increment()
            logger.info(
                "order saved",
                metadata: [
                    "order": .string(LogText.escaped("\(receipt.identifier)")), "result": .string(receipt.result.rawValue),
                    "updatedAt": .string(receipt.updatedAt.text),
                ])
            return try json(
                SaveAnswer(
                    result: receipt.result.rawValue, orderTypeIdentifier: receipt.identifier.orderTypeIdentifier,
                    orderIdentifier: receipt.identifier.orderIdentifier, updatedAt: receipt.updatedAt.text,
                    sha256: saved.archive.version.sha256, storeChanged: receipt.storeChanged, notes: notes(on: result.report)))
        }
    }

    /// What a merchant should know about an order the service took: today, that Wallet will never
    /// ask this service about it (order.json names no `webServiceURL`).
    static func notes(on report: ValidationReport) -> [String]? {
        guard report.diagnostics.contains(where: { $0.ruleID == ValidationRule.orderNoWebService.id }) else { return nil }
        return [
            "order.json has no webServiceURL, so Wallet won't ask this service for updates to the order and no device can register for it; add webServiceURL (this service's https:// base URL) and an authenticationToken to the next version."
        ]
    }

    private func list(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let scope = try context.requireMerchantScope()
        let parameters = request.uri.queryParameters
        var query = OrderQuery()
        query.orderTypeIdentifier = parameters["orderTypeIdentifier"].map(String.init)
        if let type = query.orderTypeIdentifier { try scope.require(type) }
        query.orderTypeIdentifiers = scope.orderTypeIdentifiers
        query.status = parameters["status"].map(String.init)
        if let since = parameters["updatedSince"] {
            guard let timestamp = try? Timestamp(rfc3339: String(since)) else {
                throw ServiceError.badRequest("bad-query", "updatedSince is not an RFC 3339 date-time.")
            }
            query.updatedSince = timestamp
        }
        if let limit = parameters["limit"] {
            guard let value = Int(limit), (1...1_000).contains(value) else {
                throw ServiceError.badRequest("bad-query", "limit must be a whole number from 1 to 1000.")
            }
            query.limit = value
        }
        if let after = parameters["after"] {
            guard let cursor = try? OrderListCursor(encoded: String(after)) else {
                throw ServiceError.badRequest("bad-query", "after is not a cursor this service gave out.")
            }
            query.after = cursor
        }
        let page = try await store.list(query)
        return try Self.json(ListAnswer(orders: page.orders, nextCursor: page.nextCursor?.encoded))
    }

    private func fetch(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try Self.permittedOrder(context)
        guard let bytes = try await store.archive(for: order) else {
            throw Self.notFound(order)
        }
        return Response(
            status: .ok,
            headers: [.contentType: OrderMediaType.order, .contentDisposition: OrderMediaType.attachment(for: order)],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func contains(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try Self.permittedOrder(context)
        var updatedDate: Timestamp?
        if let text = request.uri.queryParameters["updatedDate"] {
            guard let timestamp = try? Timestamp(rfc3339: String(text)) else {
                throw ServiceError.badRequest("bad-query", "updatedDate is not an RFC 3339 date-time.")
            }
            updatedDate = timestamp
        }
        let result = try await store.contains(matching: order, updatedDate: updatedDate)
        let stored = result == .notFound ? nil : try await store.summary(for: order)
        return try Self.json(ContainsAnswer(result: result.rawValue, storedUpdatedAt: stored?.updatedAt.text))
    }

    private func delete(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try Self.permittedOrder(context)
        guard try await store.delete(order) else { throw Self.notFound(order) }
        return try Self.json(["deleted": true])
    }

    private func link(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try Self.permittedOrder(context)
        guard let path = try await links.path(for: order) else { throw Self.notFound(order) }
        return try Self.json(["path": path, "url": (publicURL ?? "") + path])
    }

    /// Each device registered for the order, its delivery trail and a verdict (``DeliveryReport``);
    /// 404 when the order isn't stored and no device's trail names it. Counts each verdict in
    /// `wallet_orders_delivery_verdicts_total{verdict}`.
    private func devices(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let order = try Self.permittedOrder(context)
        await deliveryTrail.flush()
        var report = try await store.deliveryReport(for: order)
        guard report.current != nil || !report.devices.isEmpty else { throw Self.notFound(order) }
        // A merchant sees its own credentials only: a provider token serves every order type, so
        // its key and team are the operator's (an Order Type ID certificate is the type's own).
        if try context.requireMerchantScope().orderTypeIdentifiers != nil { report = Self.withoutSharedCredentials(report) }
        for device in report.devices {
            Counter(label: "wallet_orders_delivery_verdicts_total", dimensions: [("verdict", device.verdict.rawValue)]).increment()
        }
        return try Self.json(report)
    }

    /// `report` with each provider token's key and team replaced by what it is to a merchant.
    static func withoutSharedCredentials(_ report: DeliveryReport) -> DeliveryReport {
        var report = report
        let shared = "the service's provider token"
        for index in report.devices.indices {
            var device = report.devices[index]
            for event in device.trail.indices {
                guard let credential = device.trail[event].detail.credential, credential.hasPrefix("provider token of key ") else { continue }
                device.explanation = device.explanation.replacingOccurrences(of: "the \(credential)", with: shared)
                    .replacingOccurrences(of: credential, with: shared)
                device.trail[event].detail.credential = shared
            }
            report.devices[index] = device
        }
        return report
    }

    private func history(_ request: Request, _ context: OrderRequestContext) async throws -> Response {
        let scope = try context.requireMerchantScope()
        let parameters = request.uri.queryParameters
        var token: OrderHistoryToken?
        if let since = parameters["since"] {
            guard let value = try? OrderHistoryToken(encoded: String(since)) else {
                throw ServiceError.badRequest("bad-query", "since is not a history token this service gave out.")
            }
            token = value
        }
        var limit: Int?
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw ServiceError.badRequest("bad-query", "limit must be a whole number from 1 to 10000.")
            }
            limit = value
        }
        var changes = try await store.history(since: token, limit: limit)
        // `limit` counts every merchant's changes: a page may show fewer (even none) with `hasMore`.
        let visible = { (order: FullyQualifiedOrderIdentifier) in scope.permits(order.orderTypeIdentifier) }
        changes.inserted = changes.inserted.filter(visible)
        changes.updated = changes.updated.filter(visible)
        changes.deleted = changes.deleted.filter(visible)
        return try Self.json(changes)
    }

    /// The order the path names, when its type is in the key's scope (403 otherwise, before the store is asked).
    private static func permittedOrder(_ context: OrderRequestContext) throws -> FullyQualifiedOrderIdentifier {
        let scope = try context.requireMerchantScope()
        let order = try context.orderIdentifier()
        try scope.require(order.orderTypeIdentifier)
        return order
    }

    // MARK: - Answers

    struct SaveAnswer: Encodable {
        var result: String
        var orderTypeIdentifier: String
        var orderIdentifier: String
        var updatedAt: String
        var sha256: String
        /// `false` when the store kept what it had: newerExisting, or the same files again.
        var storeChanged: Bool
        /// Sentences about the order worth acting on (left out when there are none).
        var notes: [String]?
    }

    struct ListAnswer: Encodable {
        var orders: [StoredOrderSummary]
        var nextCursor: String?
    }

    struct ContainsAnswer: Encodable {
        var result: String
        var storedUpdatedAt: String?
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = try JSONEncoder.sorted.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func notFound(_ order: FullyQualifiedOrderIdentifier) -> ServiceError {
        ServiceError(.notFound, code: "not-found", "No order \(LogText.escaped(order.description)) is stored.")
    }
}

extension JSONEncoder {
    /// Sorted keys, ISO dates: stable output.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension Data {
    var asBytes: [UInt8] { [UInt8](self) }
}
