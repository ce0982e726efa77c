import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersPostgres
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Two merchants on one service: A (the shipped sample's order type) and B (a rival's), each with
/// a key scoped to its own type, and the operator with `*`. The service holds both signing identities.
struct TwoMerchants {
    static let typeA = SampleVersions.identifier.orderTypeIdentifier
    static let typeB = "order.com.contoso.tickets"
    static let keyA = MerchantAPIKey("merchant-a-key-0123456789abcdef", scope: MerchantScope(orderTypes: [typeA]))
    static let keyB = MerchantAPIKey("merchant-b-key-0123456789abcdef", scope: MerchantScope(orderTypes: [typeB]))
    static let keyAll = MerchantAPIKey("operator-key-0123456789abcdef", scope: .allOrderTypes)
    static let orderA = FullyQualifiedOrderIdentifier(orderTypeIdentifier: typeA, orderIdentifier: "a-1")
    static let orderB = FullyQualifiedOrderIdentifier(orderTypeIdentifier: typeB, orderIdentifier: "b-1")
    static let missingB = FullyQualifiedOrderIdentifier(orderTypeIdentifier: typeB, orderIdentifier: "b-never-stored")

    typealias Store = ServiceStore

    /// The sample's files as an order of `type`, with `order` and `updatedAt`.
    static func source(_ order: FullyQualifiedOrderIdentifier, updatedAt: String) throws -> OrderSource {
        var files = try OrderSource(directory: Repository.sample(SampleVersions.sampleName)).files
        var json = String(decoding: try #require(files[OrderArchive.orderPath]), as: UTF8.self)
        for (old, new) in [
            (#""orderTypeIdentifier": "\#(typeA)""#, #""orderTypeIdentifier": "\#(order.orderTypeIdentifier)""#),
            (#""orderIdentifier": "\#(SampleVersions.identifier.orderIdentifier)""#, #""orderIdentifier": "\#(order.orderIdentifier)""#),
            (SampleVersions.updatedAtLine, #""updatedAt": "\#(updatedAt)""#),
        ] {
            let range = try #require(json.range(of: old), "the sample changed: \(old)")
            json.replaceSubrange(range, with: new)
        }
        files[OrderArchive.orderPath] = Array(json.utf8)
        return OrderSource(files: files)
    }

    /// `order` signed with its own type's certificate, as its merchant would.
    static func archive(_ order: FullyQualifiedOrderIdentifier, updatedAt: String) throws -> [UInt8] {
        try OrderArchiveBuilder(identity: TestPKI.identity(for: order.orderTypeIdentifier))
            .build(try source(order, updatedAt: updatedAt), signingTime: TestPKI.signingTime).bytes
    }

    static func path(_ order: FullyQualifiedOrderIdentifier) -> String {
        "/merchant/v1/orders/\(order.orderTypeIdentifier)/\(order.orderIdentifier)"
    }

    static func bearer(_ key: MerchantAPIKey, contentType: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [.authorization: "Bearer \(key.key)"]
        if let contentType { fields[.contentType] = contentType }
        return fields
    }

    /// Runs `body` against a live service on a fresh `store` holding A's and B's orders.
    static func run(
        on store: Store, _ body: @Sendable (any OrderServiceStore, any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = try OrderServer.Configuration(port: 0, apiKeys: [keyA, keyB, keyAll], validator: TestPKI.validator)
        var identities: [String: SigningIdentities.Entry] = [:]
        for type in [typeA, typeB] {
            let template = OrderBatchTemplate(
                files: try source(
                    FullyQualifiedOrderIdentifier(orderTypeIdentifier: type, orderIdentifier: "template"), updatedAt: "2025-11-21T00:00:00Z"
                ).files)
            identities[type] = .init(identity: TestPKI.identity(for: type), template: template)
        }
        configuration.signing = SigningIdentities(identities)
        configuration.connections = .liveTestClient
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        func serve(_ orders: any OrderServiceStore) async throws {
            for order in [orderA, orderB] {
                #expect(try await orders.intake().save(signedArchive: try archive(order, updatedAt: "2025-11-21T00:00:00Z")) == .added)
            }
            let server = OrderServer(store: orders, configuration: configuration, pushSender: nil, logger: logger)
            try await server.application().test(.live) { client in try await body(orders, client) }
        }
        try await store.withStore(serve)
    }
}

@Suite("Merchant API keys act only on their own order types: two merchants on one service (live HTTP)")
struct MerchantScopeTests {
    typealias M = TwoMerchants

    @Test(
        "Key A gets one 403 for B's existing and missing orders alike on fetch, contains, delete, link and devices, and B's order is untouched",
        arguments: TwoMerchants.Store.allCases)
    func pathAddressedEndpoints(store: TwoMerchants.Store) async throws {
        try await M.run(on: store) { orders, client in
            let before = try await orders.archive(for: M.orderB)
            for (method, suffix) in [
                (HTTPRequest.Method.get, ""), (.get, "/contains"), (.get, "/contains?updatedDate=2025-11-21T00:00:00Z"),
                (.delete, ""), (.get, "/link"), (.get, "/devices"), (.head, ""),
            ] {
                let existing = try await client.execute(uri: M.path(M.orderB) + suffix, method: method, headers: M.bearer(M.keyA))
                let missing = try await client.execute(uri: M.path(M.missingB) + suffix, method: method, headers: M.bearer(M.keyA))
                #expect(existing.status == .forbidden, "\(method) \(suffix)")
                #expect(missing.status == existing.status, "\(method) \(suffix)")
                #expect(existing.body == missing.body, "\(method) \(suffix): the body tells nothing about which exists")
                #expect(existing.headers[.contentLength] == missing.headers[.contentLength])
                if method != .head {
                    #expect(existing.errorCode == "order-type-not-permitted")
                    #expect(!String(buffer: existing.body).contains(M.orderB.orderIdentifier))
                }
            }
            #expect(try await orders.archive(for: M.orderB) == before, "the refused DELETE deleted nothing")
            // Key A on its own order, and B's key on B's: answered as before.
            let own = try await client.execute(uri: M.path(M.orderA), method: .get, headers: M.bearer(M.keyA))
            #expect(own.status == .ok)
            let theirs = try await client.execute(uri: M.path(M.orderB) + "/link", method: .get, headers: M.bearer(M.keyB))
            #expect(theirs.status == .ok)
            let ownMissing = try await client.execute(uri: M.path(M.orderA) + "x", method: .get, headers: M.bearer(M.keyA))
            #expect(ownMissing.status == .notFound)
        }
    }

    @Test(
        "List and history show key A only A's orders; naming B's type is 403; B's key sees only B's; a * key sees both",
        arguments: TwoMerchants.Store.allCases)
    func listAndHistory(store: TwoMerchants.Store) async throws {
        try await M.run(on: store) { orders, client in
            func listed(_ key: MerchantAPIKey, _ query: String = "") async throws -> [String] {
                let answer = try await client.execute(uri: "/merchant/v1/orders" + query, method: .get, headers: M.bearer(key))
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                return (answer.json["orders"] as? [[String: Any]] ?? []).compactMap {
                    ($0["identifier"] as? [String: Any])?["orderIdentifier"] as? String
                }
            }
            func history(_ key: MerchantAPIKey) async throws -> [String] {
                let answer = try await client.execute(uri: "/merchant/v1/history", method: .get, headers: M.bearer(key))
                #expect(answer.status == .ok)
                return (answer.json["inserted"] as? [[String: Any]] ?? []).compactMap { $0["orderIdentifier"] as? String }
            }
            #expect(try await listed(M.keyA) == ["a-1"])
            #expect(try await listed(M.keyA, "?limit=1") == ["a-1"])
            #expect(try await listed(M.keyA, "?orderTypeIdentifier=\(M.typeA)") == ["a-1"])
            #expect(try await listed(M.keyB) == ["b-1"])
            #expect(try await listed(M.keyAll).sorted() == ["a-1", "b-1"])
            #expect(try await listed(M.keyAll, "?orderTypeIdentifier=\(M.typeB)") == ["b-1"])
            let named = try await client.execute(
                uri: "/merchant/v1/orders?orderTypeIdentifier=\(M.typeB)", method: .get, headers: M.bearer(M.keyA))
            #expect(named.status == .forbidden)
            #expect(named.errorCode == "order-type-not-permitted")
            #expect(try await history(M.keyA) == ["a-1"])
            #expect(try await history(M.keyB) == ["b-1"])
            #expect(try await history(M.keyAll).sorted() == ["a-1", "b-1"])
        }
    }

    @Test(
        "Key A can't upload B's genuine archive nor have the service build and sign an order of B's type: 403, nothing signed or stored",
        arguments: TwoMerchants.Store.allCases)
    func uploadAndBuild(store: TwoMerchants.Store) async throws {
        let genuineB = try M.archive(M.orderB, updatedAt: "2025-11-22T00:00:00Z")
        let phishing = String(
            decoding: try #require(try M.source(M.orderB, updatedAt: "2025-11-23T00:00:00Z").orderJSON), as: UTF8.self
        ).replacingOccurrences(of: "Northwind Outfitters", with: "Pay here: evil.example")
        let missingPhishing = phishing.replacingOccurrences(
            of: #""orderIdentifier": "b-1""#, with: #""orderIdentifier": "\#(M.missingB.orderIdentifier)""#)
        try await M.run(on: store) { orders, client in
            let before = try await orders.archive(for: M.orderB)
            let token = try await orders.history(since: nil, limit: nil).newToken
            let upload = try await client.execute(
                uri: "/merchant/v1/orders", method: .post, headers: M.bearer(M.keyA), body: ByteBuffer(bytes: genuineB))
            #expect(upload.status == .forbidden)
            #expect(upload.errorCode == "order-type-not-permitted")
            var answers: [TestResponse] = []
            for json in [phishing, missingPhishing] {
                answers.append(
                    try await client.execute(
                        uri: "/merchant/v1/orders/build", method: .post, headers: M.bearer(M.keyA, contentType: "application/json"),
                        body: ByteBuffer(string: json)))
            }
            for answer in answers {
                #expect(answer.status == .forbidden, "\(String(buffer: answer.body))")
                #expect(answer.errorCode == "order-type-not-permitted")
                #expect(answer.body == answers[0].body, "the same answer whether or not B's order exists")
            }
            #expect(try await orders.archive(for: M.orderB) == before, "B's stored order is unchanged")
            #expect(try await orders.archive(for: M.missingB) == nil)
            let changes = try await orders.history(since: token, limit: nil)
            #expect(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty, "nothing new was stored")

            // B's own key uploads and builds B's orders; the * key too.
            let own = try await client.execute(
                uri: "/merchant/v1/orders", method: .post, headers: M.bearer(M.keyB), body: ByteBuffer(bytes: genuineB))
            #expect(own.status == .ok)
            let built = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: M.bearer(M.keyAll, contentType: "application/json"),
                body: ByteBuffer(string: phishing.replacingOccurrences(of: "Pay here: evil.example", with: "Northwind Outfitters")))
            #expect(built.status == .ok, "\(String(buffer: built.body))")
        }
    }
}

@Suite("Merchant API keys: the key file's format")
struct MerchantAPIKeyFormatTests {
    @Test("Keys with their order types or *, comments, blank lines, spaces after commas and CRLF")
    func parses() throws {
        let text = "# merchant A\r\nkey-a-0123456789abcdef order.a, order.b  # two types\r\n\r\n  key-all-0123456789abcdef *\n"
        let keys = try MerchantAPIKey.parse(text, source: "keys.txt")
        #expect(keys.map(\.key) == ["key-a-0123456789abcdef", "key-all-0123456789abcdef"])
        #expect(keys[0].scope == MerchantScope(orderTypes: ["order.a", "order.b"]))
        #expect(keys[0].scope.permits("order.b") && !keys[0].scope.permits("order.c"))
        #expect(keys[1].scope == .allOrderTypes && keys[1].scope.permits("anything"))
        #expect(!"\(keys[0])".contains("key-a"), "the key never prints")
    }

    @Test(
        "A key without its order types, a bad list, a short key or a repeated key is refused naming the line, never the key",
        arguments: [
            ("# c\nkey-a-0123456789abcdef\n", "line 2", "no list of the order types"),
            ("key-a-0123456789abcdef # comment only\n", "line 1", "no list of the order types"),
            ("key-a-0123456789abcdef,key-b-0123456789abcdef", "line 1", "no longer separated by commas"),
            ("key-a-0123456789abcdef order.a,,order.b", "line 1", "comma-separated list"),
            ("key-a-0123456789abcdef *,order.a", "line 1", "single `*`"),
            ("short order.a", "line 1", "shorter than 16 characters"),
            ("key-a-0123456789abcdef order.a\n\nkey-a-0123456789abcdef order.b", "line 3", "first on line 1"),
        ])
    func refuses(text: String, line: String, problem: String) throws {
        let error = try #require(throws: WalletOrdersError.self) { try MerchantAPIKey.parse(text, source: "keys.txt") }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("keys.txt, \(line):"), "\(error.message)")
        #expect(error.message.contains(problem), "\(error.message)")
        #expect(error.hint?.isEmpty == false, "a hint says how to write the line")
        #expect(!error.message.contains("0123456789abcdef") && !(error.hint ?? "").contains("0123456789abcdef"))
    }
}
