import Hummingbird
import WalletOrdersStore

/// Apple's two web services, orders' (``AppleOrderRoutes``) and passes' (``ApplePassRoutes``),
/// under one `/v1/`: a `webServiceURL` may name this service in orders and passes alike.
///
/// Their registration paths are the same, so each request is sent to the one it speaks to:
///
/// - register and unregister by the `Authorization` scheme: `ApplePass` for passes, anything
///   else (`AppleOrder`, or none, which is a 401 either way) for orders;
/// - the changed list by its query: `passesUpdatedSince` for passes, `ordersModifiedSince` for
///   orders; a device's first request has neither, and is answered for passes when the device
///   has registrations for passes of the type (a type identifier names one kind or the other).
///
/// Apple's examples end `webServiceURL` with a slash, so devices ask for `…//v1/…`: the router
/// reads empty path segments as absent, and those requests find the same routes.
struct AppleWebServiceRoutes: Sendable {
    let orders: AppleOrderRoutes
    let passes: ApplePassRoutes

    func add(to router: some RouterMethods<OrderRequestContext>) {
        router.post("v1/devices/:device/registrations/:type/:order") { request, context in
            AppleAuthorization.isPass(request.headers[.authorization])
                ? try await passes.register(request, context) : try await orders.register(request, context)
        }
        router.delete("v1/devices/:device/registrations/:type/:order") { request, context in
            AppleAuthorization.isPass(request.headers[.authorization])
                ? try await passes.unregister(request, context) : try await orders.unregister(request, context)
        }
        router.get("v1/devices/:device/registrations/:type") { request, context in
            try await isPassList(request, context)
                ? try await passes.changedPasses(request, context) : try await orders.changedOrders(request, context)
        }
        router.get("v1/orders/:type/:order") { request, context in
            try await orders.order(request, context)
        }
        router.get("v1/passes/:type/:serial") { request, context in
            try await passes.pass(request, context)
        }
        router.post("v1/log") { request, context in
            try await orders.log(request, context)
        }
    }

    /// Whether a changed-list request is for passes (see the type's overview).
    private func isPassList(_ request: Request, _ context: OrderRequestContext) async throws -> Bool {
        let query = request.uri.queryParameters
        if query["passesUpdatedSince"] != nil { return true }
        if query["ordersModifiedSince"] != nil { return false }
        let device = try context.deviceIdentifier()
        return try await passes.store.isRegistered(deviceIdentifier: device, passTypeIdentifier: try context.pathSegment("type"))
    }
}
