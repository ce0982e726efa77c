import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// A service on a fresh SQLite store holding the shipped sample, and a client for it.
struct ServiceUnderTest {
    static let token = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"  // the sample's authenticationToken
    static let apiKey = "merchant-test-key-0123456789"
    /// A merchant's key: the sample's order type only (``apiKey`` is the operator's, `*`).
    static let merchantOnlyKey = "merchant-own-type-key-0123456789"
    static let order = SampleVersions.identifier
    static let orderPath = "\(order.orderTypeIdentifier)/\(order.orderIdentifier)"

    let folder: TemporaryFolder
    let store: SQLiteOrderStore
    let server: OrderServer

    init(
        pushSender: (any PushSender)? = nil, push: PushWorkerConfiguration = .init(), signing: SigningIdentities = .init(),
        updatedAtLimit: UpdatedAtLimit = .default, onIntakeStep: (@Sendable (OrderIntake.Step) -> Void)? = nil,
        walletBadges: WalletBadges? = nil, clock: any ServiceClock = SystemServiceClock()
    ) throws {
        folder = try TemporaryFolder("service")
        store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        server = try Self.server(
            store: store, pushSender: pushSender, push: push, signing: signing, updatedAtLimit: updatedAtLimit, onIntakeStep: onIntakeStep,
            walletBadges: walletBadges, clock: clock)
    }

    /// The service these tests run, on `store`: one merchant key for every order type, the
    /// test root trusted, warnings logged.
    static func server(
        store: any OrderServiceStore, pushSender: (any PushSender)? = nil, push: PushWorkerConfiguration = .init(),
        signing: SigningIdentities = .init(), updatedAtLimit: UpdatedAtLimit = .default,
        onIntakeStep: (@Sendable (OrderIntake.Step) -> Void)? = nil, walletBadges: WalletBadges? = nil,
        clock: any ServiceClock = SystemServiceClock()
    ) throws -> OrderServer {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        var configuration = try OrderServer.Configuration(
            port: 0,
            apiKeys: [
                MerchantAPIKey(Self.apiKey, scope: .allOrderTypes),
                MerchantAPIKey(Self.merchantOnlyKey, scope: MerchantScope(orderTypes: [order.orderTypeIdentifier])),
            ], validator: TestPKI.validator, push: push, logRate: (0.01, 3))
        configuration.connections = .liveTestClient
        configuration.signing = signing
        configuration.updatedAtLimit = updatedAtLimit
        configuration.onIntakeStep = onIntakeStep
        configuration.walletBadges = walletBadges
        configuration.clock = clock
        return OrderServer(store: store, configuration: configuration, pushSender: pushSender, logger: logger)
    }

    /// Runs `body` against the service in process, through HummingbirdTesting's router client
    /// (each request goes through the middleware and routes, no socket), then removes the store.
    func run<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await run(.router, body)
    }

    /// Runs `body` against the service listening on loopback (real HTTP, `client.port`), for what
    /// needs a socket: another client (a browser, `check-service`, a raw connection), the
    /// connection's own handling. Then removes the store.
    func runLive<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await run(.live, body)
    }

    private func run<T: Sendable>(_ setup: TestingSetup, _ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        defer { folder.remove() }
        return try await server.application().test(setup, body)
    }

    static func appleOrder(_ token: String = token) -> HTTPFields { [.authorization: "AppleOrder \(token)"] }
    static var merchant: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
    static var merchantOfTheType: HTTPFields { [.authorization: "Bearer \(merchantOnlyKey)"] }
}

extension TestResponse {
    /// The JSON body as a dictionary.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    /// The `error.code` of a JSON error body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

@Suite("Apple's order web service protocol, status by status (SQLite store)", .serialized)
struct AppleProtocolTests {
    static let registration = "/v1/devices/device-1/registrations/\(ServiceUnderTest.orderPath)"

    @Test("Register: 201 new, 200 again, push token updated; unregister 200; a wrong token and an unknown order give the same 401")
    func registrations() async throws {
        let service = try ServiceUnderTest()
        #expect(try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        try await service.run { client in
            let body = ByteBuffer(string: #"{"pushToken": "aa11bb22cc33dd44"}"#)
            var answer = try await client.execute(uri: Self.registration, method: .post, headers: ServiceUnderTest.appleOrder(), body: body)
            #expect(answer.status == .created)
            answer = try await client.execute(uri: Self.registration, method: .post, headers: ServiceUnderTest.appleOrder(), body: body)
            #expect(answer.status == .ok)
            // A new push token for the same device replaces the old one.
            let newToken = ByteBuffer(string: #"{"pushToken": "ffee0011ffee0011"}"#)
            answer = try await client.execute(uri: Self.registration, method: .post, headers: ServiceUnderTest.appleOrder(), body: newToken)
            #expect(answer.status == .ok)

            // No token, a wrong one, another scheme, an unknown order: one identical 401.
            var unauthorized: [TestResponse] = []
            for headers: HTTPFields in [[:], ServiceUnderTest.appleOrder("wrong"), [.authorization: "ApplePass \(ServiceUnderTest.token)"]] {
                unauthorized.append(try await client.execute(uri: Self.registration, method: .post, headers: headers, body: body))
            }
            let unknown = "/v1/devices/device-1/registrations/\(ServiceUnderTest.order.orderTypeIdentifier)/no-such-order"
            unauthorized.append(try await client.execute(uri: unknown, method: .post, headers: ServiceUnderTest.appleOrder(), body: body))
            for response in unauthorized {
                #expect(response.status == .unauthorized)
                #expect(response.body == unauthorized[0].body)
                #expect(response.headers[.wwwAuthenticate] == "AppleOrder")
                #expect(response.errorCode == "unauthorized")
            }

            answer = try await client.execute(uri: Self.registration, method: .delete, headers: ServiceUnderTest.appleOrder())
            #expect(answer.status == .ok)
            answer = try await client.execute(uri: Self.registration, method: .delete, headers: ServiceUnderTest.appleOrder("wrong"))
            #expect(answer.status == .unauthorized)
        }
        #expect(try await service.store.registrationCount(for: ServiceUnderTest.order) == 0)
    }

    @Test(
        "Bad registration bodies and paths are 4xx with a JSON reason, never 5xx",
        arguments: [
            (#"{"pushToken": 12}"#, "bad-body"), ("not json", "bad-body"), (#"{"pushToken": "xyz!"}"#, "bad-push-token"),
            (#"{"pushToken": ""}"#, "bad-push-token"), (String(repeating: " ", count: 5_000), "body-too-large"),
            // Longer than any token APNs has announced (100 bytes): the APNs client would never send it.
            (#"{"pushToken": "\#(String(repeating: "ab", count: 100))c"}"#, "bad-push-token"),
        ])
    func badRegistrationBodies(body: String, code: String) async throws {
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
        try await service.run { client in
            let answer = try await client.execute(
                uri: Self.registration, method: .post, headers: ServiceUnderTest.appleOrder(), body: ByteBuffer(string: body))
            #expect((400..<500).contains(answer.status.code), "\(answer.status)")
            #expect(answer.errorCode == code, "\(String(buffer: answer.body))")
        }
    }

    @Test("Path segments are percent-decoded strictly: %2F stays inside an identifier, a broken escape is a 400")
    func pathDecoding() async throws {
        let service = try ServiceUnderTest()
        // An order identifier with a slash and a space, stored exactly as given.
        _ = try await service.store.intake().save(
            signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "A/B c"))
        try await service.run { client in
            let type = ServiceUnderTest.order.orderTypeIdentifier
            let ok = try await client.execute(uri: "/v1/orders/\(type)/A%2FB%20c", method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(ok.status == .ok)
            for broken in ["A%2", "A%ZZ", "%00", "%FF%FE"] {
                let answer = try await client.execute(uri: "/v1/orders/\(type)/\(broken)", method: .get, headers: ServiceUnderTest.appleOrder())
                #expect(answer.status == .badRequest, "\(broken)")
                #expect(answer.errorCode == "bad-path", "\(broken)")
            }
            let none = try await client.execute(uri: "/v1/nothing/here", method: .get)
            #expect(none.status == .notFound)
            #expect(none.errorCode == "no-such-route")
        }
    }

    @Test("GET the order: the archive with Apple's media type, Last-Modified and ETag; If-Modified-Since and If-None-Match give 304")
    func fetchAndCaching() async throws {
        let service = try ServiceUnderTest()
        let archive = try SampleVersions.archive(updatedAt: "2025-11-21T10:20:30.5Z")
        _ = try await service.store.intake().save(signedArchive: archive)
        try await service.run { client in
            let uri = "/v1/orders/\(ServiceUnderTest.orderPath)"
            let first = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(first.status == .ok)
            #expect(Array(first.body.readableBytesView) == archive)
            #expect(first.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(first.headers[.lastModified] == "Fri, 21 Nov 2025 10:20:30 GMT")
            let etag = try #require(first.headers[.eTag])
            let digestArchive = await SHA256Hex.of(archive)
            #expect(etag == "\"\(digestArchive)\"")
            #expect(first.headers[.cacheControl] == "private, no-cache")

            for headers: HTTPFields in [
                [.ifModifiedSince: "Fri, 21 Nov 2025 10:20:31 GMT"], [.ifModifiedSince: "Sat, 22 Nov 2025 00:00:00 GMT"],
                [.ifModifiedSince: "Friday, 21-Nov-25 10:20:31 GMT"], [.ifModifiedSince: "Fri Nov 21 10:20:31 2025"],
                [.ifNoneMatch: etag], [.ifNoneMatch: "\"other\", \(etag)"], [.ifNoneMatch: "*"],
                // Optional whitespace (spaces and tabs) around list members, and a weak tag.
                [.ifNoneMatch: "\"other\",\t \(etag) \t"], [.ifNoneMatch: "W/\(etag)"],
                // The list in two fields.
                [.ifNoneMatch: "\"other\"", .ifNoneMatch: etag],
            ] {
                var all = ServiceUnderTest.appleOrder()
                all.append(contentsOf: headers)
                let cached = try await client.execute(uri: uri, method: .get, headers: all)
                #expect(cached.status == .notModified, "\(headers)")
                #expect(cached.body.readableBytes == 0)
                #expect(cached.headers[.eTag] == etag)
            }
            for headers: HTTPFields in [
                [.ifModifiedSince: "Fri, 21 Nov 2025 10:20:29 GMT"], [.ifModifiedSince: "yesterday"],
                // Last-Modified's own second: updatedAt (10:20:30.5) is later than it, and another
                // version may have been saved within that second.
                [.ifModifiedSince: "Fri, 21 Nov 2025 10:20:30 GMT"],
                [.ifNoneMatch: "\"other\""],
                // If-None-Match decides when both are there (RFC 9110 §13.2.2).
                [.ifNoneMatch: "\"other\"", .ifModifiedSince: "Sat, 22 Nov 2025 00:00:00 GMT"],
                [.ifNoneMatch: "", .ifModifiedSince: "Sat, 22 Nov 2025 00:00:00 GMT"],
                // Only a whole tag matches.
                [.ifNoneMatch: String(etag.dropLast())], [.ifNoneMatch: "\(etag)x"],
            ] {
                var all = ServiceUnderTest.appleOrder()
                all.append(contentsOf: headers)
                let fresh = try await client.execute(uri: uri, method: .get, headers: all)
                #expect(fresh.status == .ok, "\(headers)")
            }
            let wrong = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder("nope"))
            #expect(wrong.status == .unauthorized)
            // The token with optional whitespace around it is the token; inside it, it isn't.
            let padded = try await client.execute(
                uri: uri, method: .get, headers: [.authorization: "AppleOrder \t \(ServiceUnderTest.token)\t "])
            #expect(padded.status == .ok)
            let token = ServiceUnderTest.token
            let split = try await client.execute(
                uri: uri, method: .get, headers: [.authorization: "AppleOrder \(token.prefix(4)) \(token.dropFirst(4))"])
            #expect(split.status == .unauthorized)
        }
    }

    @Test(
        "Two versions saved within one second: a device holding the first, asking with If-Modified-Since, gets the second; a whole-second version gets its 304"
    )
    func sameSecondVersions() async throws {
        let service = try ServiceUnderTest()
        let first = try SampleVersions.archive(updatedAt: "2025-11-21T10:20:30.100Z")
        let second = try SampleVersions.archive(updatedAt: "2025-11-21T10:20:30.900Z")
        let third = try SampleVersions.archive(updatedAt: "2025-11-21T10:20:31Z")
        _ = try await service.store.intake().save(signedArchive: first)
        try await service.run { client in
            let uri = "/v1/orders/\(ServiceUnderTest.orderPath)"
            let fetched = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
            let lastModified = try #require(fetched.headers[.lastModified])
            #expect(try await service.store.intake().save(signedArchive: second) == .added)
            var conditional = ServiceUnderTest.appleOrder()
            conditional[.ifModifiedSince] = lastModified
            let updated = try await client.execute(uri: uri, method: .get, headers: conditional)
            #expect(updated.status == .ok)
            let digestSecond = await SHA256Hex.of(second)
            #expect(updated.headers[.eTag] == "\"\(digestSecond)\"")

            #expect(try await service.store.intake().save(signedArchive: third) == .added)
            let latest = try await client.execute(uri: uri, method: .get, headers: conditional)
            let digestThird = await SHA256Hex.of(third)
            #expect(latest.headers[.eTag] == "\"\(digestThird)\"")
            let latestDate: String = try #require(latest.headers[.lastModified])
            conditional[.ifModifiedSince] = latestDate
            #expect(try await client.execute(uri: uri, method: .get, headers: conditional).status == .notModified)
        }
    }

    @Test("Last-Modified is never later than the answer's Date, for an order whose updatedAt is ahead of the clock")
    func lastModifiedNotAfterDate() async throws {
        let service = try ServiceUnderTest()
        let ahead = Timestamp(Date().addingTimeInterval(3_600)).text
        let archive = try SampleVersions.archive(updatedAt: ahead)
        #expect(try await service.store.intake().save(signedArchive: archive) == .added)
        // Live: the Date header is the HTTP server's.
        try await service.runLive { client in
            let uri = "/v1/orders/\(ServiceUnderTest.orderPath)"
            let fetched = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(fetched.status == .ok)
            let lastModified = try #require(fetched.headers[.lastModified].flatMap(HTTPDate.parse))
            let date = try #require(fetched.headers[.date].flatMap(HTTPDate.parse))
            #expect(lastModified <= date)
            // Asked again with that date, the order is sent again, never a 304 for a version later than it.
            var conditional = ServiceUnderTest.appleOrder()
            let fetchedDate: String = try #require(fetched.headers[.lastModified])
            conditional[.ifModifiedSince] = fetchedDate
            #expect(try await client.execute(uri: uri, method: .get, headers: conditional).status == .ok)
        }
    }

    @Test(
        "A repeated 200 is served from memory and is always the stored version: a version saved between fetches is the next answer, a deleted order a 401"
    )
    func repeatedFetchesFollowTheStore() async throws {
        let service = try ServiceUnderTest()
        let first = try SampleVersions.archive(updatedAt: "2025-11-21T10:20:30Z")
        let second = try SampleVersions.archive(updatedAt: "2025-11-21T11:00:00Z")
        _ = try await service.store.intake().save(signedArchive: first)
        try await service.run { client in
            let uri = "/v1/orders/\(ServiceUnderTest.orderPath)"
            for _ in 0..<3 {  // the first read from the store, the others from memory
                let fetched = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
                #expect(fetched.status == .ok)
                #expect(Array(fetched.body.readableBytesView) == first)
            }
            // Saved behind the service's back (as another instance on the same store would).
            _ = try await service.store.intake().save(signedArchive: second)
            let updated = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(Array(updated.body.readableBytesView) == second)
            let digestSecond = await SHA256Hex.of(second)
            #expect(updated.headers[.eTag] == "\"\(digestSecond)\"")
            // HEAD answers from the same bytes: their length, no body.
            let head = try await client.execute(uri: uri, method: .head, headers: ServiceUnderTest.appleOrder())
            #expect(head.headers[.contentLength] == String(second.count))
            #expect(head.body.readableBytes == 0)
            #expect(try await service.store.delete(ServiceUnderTest.order))
            let gone = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(gone.status == .unauthorized)
        }
    }

    @Test("Changed orders: all registered orders first, then only those changed after the tag; 204 when none; a foreign tag gets them all")
    func changedOrders() async throws {
        let service = try ServiceUnderTest()
        for id in ["nw-1", "nw-2", "nw-3"] {
            _ = try await service.store.intake().save(
                signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: id))
        }
        try await service.run { client in
            let type = ServiceUnderTest.order.orderTypeIdentifier
            for id in ["nw-1", "nw-2"] {
                let answer = try await client.execute(
                    uri: "/v1/devices/dev-9/registrations/\(type)/\(id)", method: .post, headers: ServiceUnderTest.appleOrder(),
                    body: ByteBuffer(string: #"{"pushToken": "0123456789abcdef"}"#))
                #expect(answer.status == .created)
            }
            let list = "/v1/devices/dev-9/registrations/\(type)"
            let all = try await client.execute(uri: list, method: .get)
            #expect(all.status == .ok)
            #expect(all.json["orderIdentifiers"] as? [String] == ["nw-1", "nw-2"])
            let tag = try #require(all.json["lastModified"] as? String)
            let none = try await client.execute(uri: "\(list)?ordersModifiedSince=\(tag)", method: .get)
            #expect(none.status == .noContent)

            _ = try await service.store.intake().save(
                signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: "nw-2"))
            _ = try await service.store.intake().save(
                signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: "nw-3"))
            let changed = try await client.execute(uri: "\(list)?ordersModifiedSince=\(tag)", method: .get)
            #expect(changed.status == .ok)
            #expect(changed.json["orderIdentifiers"] as? [String] == ["nw-2"], "nw-3 changed but the device isn't registered for it")
            #expect(changed.json["lastModified"] as? String != tag)

            let unknownDevice = try await client.execute(uri: "/v1/devices/nobody/registrations/\(type)", method: .get)
            #expect(unknownDevice.status == .noContent)
            let foreign = try await client.execute(uri: "\(list)?ordersModifiedSince=2025-11-22", method: .get)
            #expect(foreign.status == .ok)
            #expect(foreign.json["orderIdentifiers"] as? [String] == ["nw-1", "nw-2"])
        }
    }

    @Test(
        "Tags from elsewhere (the store before a store copy, another server's epoch or decimal, ahead of the store) get 200 and the full list, never 204; an absurdly long one is a 400"
    )
    func tagsFromElsewhere() async throws {
        let service = try ServiceUnderTest()
        let type = ServiceUnderTest.order.orderTypeIdentifier
        @Sendable func archive(_ id: String, _ updatedAt: String) throws -> [UInt8] {
            try SampleVersions.archive(updatedAt: updatedAt, orderIdentifier: id)
        }
        // The store the service ran on before: the device holds one of its tags, from well into
        // its sequence (most changes were to an order the device doesn't follow).
        let old = try SQLiteOrderStore(url: service.folder.file("old.sqlite"))
        for id in ["el-1", "el-2", "el-3"] { _ = try await old.intake().save(signedArchive: try archive(id, "2025-11-21T00:00:00Z")) }
        for id in ["el-1", "el-2"] {
            _ = try await old.register(deviceIdentifier: "dev-7", pushToken: "77aa77aa77aa77aa", for: SampleVersions.identifier(id))
        }
        let first = try #require(try await old.changedOrders(deviceIdentifier: "dev-7", orderTypeIdentifier: type, since: nil))
        for day in 1...9 { _ = try await old.intake().save(signedArchive: try archive("el-3", "2025-12-0\(day)T00:00:00Z")) }
        _ = try await old.intake().save(signedArchive: try archive("el-2", "2025-11-22T00:00:00Z"))
        let held = try #require(
            try await old.changedOrders(deviceIdentifier: "dev-7", orderTypeIdentifier: type, since: first.lastModified)
        ).lastModified
        let report = try await OrderStoreCopy.copy(from: old, to: service.store, validator: TestPKI.validator)
        #expect(report.registrations == 2)
        try old.close()
        _ = try await service.store.intake().save(signedArchive: try archive("el-1", "2025-11-23T00:00:00Z"))

        try await service.run { client in
            let list = "/v1/devices/dev-7/registrations/\(type)"
            let moved = try await client.execute(uri: "\(list)?ordersModifiedSince=\(held)", method: .get)
            #expect(moved.status == .ok, "a tag of the store before the copy is never answered 204")
            #expect((moved.json["orderIdentifiers"] as? [String])?.sorted() == ["el-1", "el-2"])
            let tag = try #require(moved.json["lastModified"] as? String)
            #expect(try await client.execute(uri: "\(list)?ordersModifiedSince=\(tag)", method: .get).status == .noContent)

            for foreign in ["1732612345", "1732612345.123", "1", tag + "9"] {
                let answer = try await client.execute(uri: "\(list)?ordersModifiedSince=\(foreign)", method: .get)
                #expect(answer.status == .ok, "\(foreign)")
                #expect((answer.json["orderIdentifiers"] as? [String])?.sorted() == ["el-1", "el-2"], "\(foreign)")
                #expect(answer.json["lastModified"] as? String == tag, "\(foreign)")
            }
            let long = try await client.execute(
                uri: "\(list)?ordersModifiedSince=\(String(repeating: "9", count: 2000))", method: .get)
            #expect(long.status == .badRequest)
            #expect(long.errorCode == "bad-orders-modified-since")

            _ = try await service.store.intake().save(signedArchive: try archive("el-2", "2025-11-24T00:00:00Z"))
            let next = try await client.execute(uri: "\(list)?ordersModifiedSince=\(tag)", method: .get)
            #expect(next.status == .ok)
            #expect(next.json["orderIdentifiers"] as? [String] == ["el-2"])
        }
    }

    @Test("After a store copy into a store that gave out links, the links of both stores open their orders")
    func linksOfBothStoresAfterACopy() async throws {
        // Seen: the copy replaced the destination's link secret, so its own links answered 404.
        let service = try ServiceUnderTest()
        _ = try await service.store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"))
        let old = try SQLiteOrderStore(url: service.folder.file("old.sqlite"))
        let moved = SampleVersions.identifier("moved-1")
        _ = try await old.intake().save(
            signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: moved.orderIdentifier))
        // The link the old store's service gave out for the moved order: an HMAC under its secret.
        let oldRecord = try #require(try await old.accessRecord(for: moved))
        let oldKey = CustomerLinks.key(for: oldRecord, secret: try await old.customerLinkSecret())
        try await service.run { client in
            let own = try await LandingPageBrowserTests.link(client)
            #expect(try await client.execute(uri: own, method: .get).status == .ok, "the destination's link before the copy")
            _ = try await OrderStoreCopy.copy(from: old, to: service.store, validator: TestPKI.validator)
            #expect(try await client.execute(uri: own, method: .get).status == .ok, "the destination's own link after the copy")
            let path = "/orders/\(moved.orderTypeIdentifier)/\(moved.orderIdentifier)/\(oldKey)"
            #expect(try await client.execute(uri: path, method: .get).status == .ok, "the old store's link after the copy")
            let forged = "/orders/\(moved.orderTypeIdentifier)/\(moved.orderIdentifier)/\(String(repeating: "A", count: CustomerLinks.keyLength))"
            #expect(try await client.execute(uri: forged, method: .get).status == .notFound)
        }
        try old.close()
    }

    @Test("POST /v1/log: accepted, bounded, rate-limited per client with Retry-After")
    func logEndpoint() async throws {
        let service = try ServiceUnderTest()
        try await service.run { client in
            let ok = try await client.execute(uri: "/v1/log", method: .post, body: ByteBuffer(string: #"{"logs": ["a\nb", "\u001b[31mred"]}"#))
            #expect(ok.status == .ok)
            let bad = try await client.execute(uri: "/v1/log", method: .post, body: ByteBuffer(string: #"["bare array"]"#))
            #expect(bad.status == .badRequest)
            let huge = try await client.execute(uri: "/v1/log", method: .post, body: ByteBuffer(repeating: 0x20, count: 70_000))
            #expect(huge.status == .contentTooLarge)
            // The test service allows bursts of 3, refilled at one a 100 s: the fourth is refused,
            // however slowly the requests go (under ThreadSanitizer, say).
            let limited = try await client.execute(uri: "/v1/log", method: .post, body: ByteBuffer(string: #"{"logs": []}"#))
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter].flatMap(Int.init) ?? 0 >= 1)
        }
    }
}

/// SHA-256 as lowercase hex, through the store's own record (what the ETag must carry).
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) async -> String {
        let result = try? await ExternalProgram.python(
            "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
            [(try? TemporaryFolder().write(bytes, to: "archive"))?.path ?? ""])
        return result?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
