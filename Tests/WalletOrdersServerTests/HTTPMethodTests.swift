import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// One request of the method tests: a path and the headers it needs.
struct MethodProbe: Sendable, CustomTestStringConvertible {
    var method: HTTPRequest.Method
    /// The path, with `{order}` for the sample's `type/order` and `{link}` for its customer link.
    var path: String
    /// The `Allow` a 405 must carry.
    var allow: String

    var testDescription: String { "\(method.rawValue) \(path)" }
}

@Suite("HTTP methods on every route: HEAD wherever GET, 405 with Allow for a wrong method, 404 for no route (live HTTP)")
struct HTTPMethodTests {
    static let type = ServiceUnderTest.order.orderTypeIdentifier

    /// A service on a fresh `store` holding the sample, a device registered for it, and the
    /// sample's customer link path.
    static func withService(
        on store: ServiceStore = .sqlite, _ body: @Sendable (any TestClientProtocol, _ link: String) async throws -> Void
    ) async throws {
        try await store.withStore { orders in
            _ = try await orders.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T10:20:30Z"))
            try await ServiceUnderTest.server(store: orders).application().test(.live) { client in
                let registered = try await client.execute(
                    uri: "/v1/devices/dev-1/registrations/\(ServiceUnderTest.orderPath)", method: .post, headers: ServiceUnderTest.appleOrder(),
                    body: ByteBuffer(string: #"{"pushToken": "0123456789abcdef"}"#))
                #expect(registered.status == .created)
                let link = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
                try await body(client, try #require(link.json["path"] as? String))
            }
        }
    }

    /// The headers of an answer that must agree between GET and HEAD (all but `Date`).
    static func comparable(_ headers: HTTPFields) -> [String] {
        headers.filter { $0.name != .date }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
    }

    @Test(
        "HEAD on every GET route answers the GET's status and headers (Content-Length, ETag, Last-Modified, 401, 304) without a body",
        arguments: ServiceStore.allCases)
    func headIsGetWithoutBody(store: ServiceStore) async throws {
        try await Self.withService(on: store) { client, link in
            let order = "/v1/orders/\(ServiceUnderTest.orderPath)"
            let requests: [(String, HTTPFields, HTTPResponse.Status)] = [
                ("/health", [:], .ok),
                (order, ServiceUnderTest.appleOrder(), .ok),
                (order, ServiceUnderTest.appleOrder("wrong-token"), .unauthorized),
                ("/v1/orders/\(Self.type)/no-such-order", ServiceUnderTest.appleOrder(), .unauthorized),
                ("/v1/devices/dev-1/registrations/\(Self.type)", [:], .ok),
                ("/v1/devices/nobody/registrations/\(Self.type)", [:], .noContent),
                (MerchantAPITests.orders, ServiceUnderTest.merchant, .ok),
                (MerchantAPITests.orders, [:], .unauthorized),
                (MerchantAPITests.one, ServiceUnderTest.merchant, .ok),
                (MerchantAPITests.one + "/contains?updatedDate=2025-11-21T10:20:30Z", ServiceUnderTest.merchant, .ok),
                (MerchantAPITests.one + "/link", ServiceUnderTest.merchant, .ok),
                ("/merchant/v1/history", ServiceUnderTest.merchant, .ok),
                (link, [:], .ok),
                (link + "/order", [:], .ok),
                ("/orders/\(ServiceUnderTest.orderPath)/wrong-key", [:], .notFound),
                ("/no/such/route", [:], .notFound),
            ]
            for (uri, headers, status) in requests {
                let get = try await client.execute(uri: uri, method: .get, headers: headers)
                let head = try await client.execute(uri: uri, method: .head, headers: headers)
                #expect(get.status == status, "GET \(uri)")
                #expect(head.status == get.status, "HEAD \(uri)")
                #expect(head.body.readableBytes == 0, "HEAD \(uri) has a body")
                #expect(Self.comparable(head.headers) == Self.comparable(get.headers), "HEAD \(uri)")
                if get.status != .noContent {  // a 204 has no Content-Length at all
                    #expect(head.headers[.contentLength] == String(get.body.readableBytes), "HEAD \(uri): Content-Length of the GET's body")
                }
            }

            // Conditional HEAD: the GET's 304, with its validators.
            let first = try await client.execute(uri: order, method: .get, headers: ServiceUnderTest.appleOrder())
            let etag = try #require(first.headers[.eTag])
            #expect(first.headers[.contentType] == "application/vnd.apple.finance.order")
            for conditional: HTTPFields in [[.ifNoneMatch: etag], [.ifModifiedSince: "Fri, 21 Nov 2025 10:20:30 GMT"]] {
                var headers = ServiceUnderTest.appleOrder()
                headers.append(contentsOf: conditional)
                let get = try await client.execute(uri: order, method: .get, headers: headers)
                let head = try await client.execute(uri: order, method: .head, headers: headers)
                #expect(get.status == .notModified)
                #expect(head.status == .notModified, "\(conditional)")
                #expect(head.body.readableBytes == 0)
                #expect(head.headers[.eTag] == etag)
                #expect(head.headers[.lastModified] == "Fri, 21 Nov 2025 10:20:30 GMT")
                #expect(Self.comparable(head.headers) == Self.comparable(get.headers))
            }
            // The answer to HEAD on the wire: headers, then nothing, and the connection still answers.
            let raw = try await MalformedHTTPTests.exchange(
                "HEAD /health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                port: try #require(client.port))
            let answers = raw.components(separatedBy: "HTTP/1.1 200 OK")
            #expect(answers.count == 3, "\(raw)")
            #expect(answers[1].hasSuffix("\r\n\r\n"), "the HEAD answer has no body: \(raw)")
            #expect(raw.hasSuffix(#"{"status":"ok"}"# + "\n"))
        }
    }

    static let wrongMethods: [MethodProbe] = [
        MethodProbe(method: .put, path: "/health", allow: "GET, HEAD"),
        MethodProbe(method: .post, path: "/v1/orders/{order}", allow: "GET, HEAD"),
        MethodProbe(method: .get, path: "/v1/devices/dev-1/registrations/{order}", allow: "DELETE, POST"),
        MethodProbe(method: .delete, path: "/v1/devices/dev-1/registrations/\(type)", allow: "GET, HEAD"),
        MethodProbe(method: .get, path: "/v1/log", allow: "POST"),
        MethodProbe(method: .head, path: "/v1/log", allow: "POST"),
        MethodProbe(method: .delete, path: "/merchant/v1/orders", allow: "GET, HEAD, POST"),
        MethodProbe(method: .get, path: "/merchant/v1/orders/build", allow: "POST"),
        MethodProbe(method: .post, path: "/merchant/v1/orders/{order}", allow: "DELETE, GET, HEAD"),
        MethodProbe(method: .patch, path: "/merchant/v1/orders/{order}/contains", allow: "GET, HEAD"),
        MethodProbe(method: .post, path: "/merchant/v1/orders/{order}/link", allow: "GET, HEAD"),
        MethodProbe(method: .delete, path: "/merchant/v1/history", allow: "GET, HEAD"),
        MethodProbe(method: .post, path: "{link}", allow: "GET, HEAD"),
        MethodProbe(method: .options, path: "{link}/order", allow: "GET, HEAD"),
    ]

    @Test(
        "A wrong method on a real route is 405 with Allow listing the path's methods (HEAD wherever GET), before any credential is looked at",
        arguments: ServiceStore.allCases)
    func wrongMethodIs405(store: ServiceStore) async throws {
        try await Self.withService(on: store) { client, link in
            for probe in Self.wrongMethods {
                let uri = probe.path.replacingOccurrences(of: "{order}", with: ServiceUnderTest.orderPath)
                    .replacingOccurrences(of: "{link}", with: link)
                let answer = try await client.execute(uri: uri, method: probe.method)
                #expect(answer.status == .methodNotAllowed, "\(probe.testDescription)")
                #expect(answer.headers[.allow] == probe.allow, "\(probe.testDescription)")
                if probe.method == .head {
                    #expect(answer.body.readableBytes == 0)
                } else {
                    #expect(answer.errorCode == "method-not-allowed", "\(probe.testDescription)")
                }
            }
        }
    }

    @Test("A path no route has stays 404 whatever the method; an unknown order stays 401")
    func unknownPathsStay404() async throws {
        try await Self.withService { client, _ in
            for (method, uri) in [
                (HTTPRequest.Method.get, "/no/such/route"), (.post, "/v1/nothing"), (.delete, "/merchant/v1/orders/a/b/c/d"),
                (.get, "/v1/orders/\(Self.type)"), (.put, "/healthz"),
            ] {
                let answer = try await client.execute(uri: uri, method: method)
                #expect(answer.status == .notFound, "\(method) \(uri)")
                #expect(answer.headers[.allow] == nil)
                #expect(answer.errorCode == "no-such-route")
            }
            let unknown = try await client.execute(
                uri: "/v1/orders/\(Self.type)/no-such-order", method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(unknown.status == .unauthorized)
        }
    }

    @Test("preview --serve: HEAD on its pages is the GET's head, a wrong method 405 with Allow, an unknown path 404")
    func previewServer() async throws {
        try await PreviewServerAttackTests.withServer { port in
            func exchange(_ method: String, _ path: String) async throws -> (status: Int?, head: String, body: String) {
                let raw = try await MalformedHTTPTests.exchange(
                    "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", port: port)
                let parts = raw.components(separatedBy: "\r\n\r\n")
                return (PreviewServerAttackTests.status(raw), parts[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
            }
            func fields(_ head: String) -> [String] {
                head.components(separatedBy: "\r\n").dropFirst().filter { !$0.lowercased().hasPrefix("date:") }.sorted()
            }
            for path in ["/", "/version"] {
                let get = try await exchange("GET", path)
                let head = try await exchange("HEAD", path)
                #expect(get.status == 200 && head.status == 200, "\(path)")
                #expect(fields(head.head) == fields(get.head), "\(path)")
                #expect(head.body.isEmpty && !get.body.isEmpty, "\(path)")
                let wrong = try await exchange("POST", path)
                #expect(wrong.status == 405, "\(path)")
                #expect(wrong.head.lowercased().contains("\r\nallow: get, head"), "\(wrong.head)")
            }
            let missing = try await exchange("GET", "/nothing")
            #expect(missing.status == 404)
            #expect(!missing.head.lowercased().contains("\r\nallow:"))
        }
    }
}
