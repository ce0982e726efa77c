import APNsStandIn
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("The access log: route templates, never the secrets in paths; client text stays one field")
struct AccessLogTests {
    static let device = "secret-device-library-identifier-7f3a"

    @Test(
        "A customer link, a registration and a device log: the log names routes, statuses and durations, and never the link key or the device identifier"
    )
    func secretsStayOutOfTheLog() async throws {
        let folder = try TemporaryFolder("access-log")
        defer { folder.remove() }
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        #expect(try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")) == .added)
        let log = CapturedLog()
        var configuration = try OrderServer.Configuration(
            port: 0, apiKeys: [MerchantAPIKey(ServiceUnderTest.apiKey, scope: .allOrderTypes)], validator: TestPKI.validator)
        configuration.connections = .liveTestClient
        let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: log.logger())
        let linkKey: String = try await server.application().test(.live) { client in
            let link = try await client.execute(
                uri: "/merchant/v1/orders/\(ServiceUnderTest.orderPath)/link", method: .get, headers: ServiceUnderTest.merchant)
            #expect(link.status == .ok)
            let url = try #require(link.json["url"] as? String)
            let path = try #require(URLComponents(string: url)?.path)
            #expect(try await client.execute(uri: path, method: .get).status == .ok)
            var headers = ServiceUnderTest.appleOrder()
            headers[.contentType] = "application/json"
            let registered = try await client.execute(
                uri: "/v1/devices/\(Self.device)/registrations/\(ServiceUnderTest.orderPath)", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"pushToken": "0123456789abcdef"}"#))
            #expect(registered.status == .created)
            let logged = try await client.execute(
                uri: "/v1/log", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"logs": ["a\" client=10.0.0.1 x=\"", "second \\ entry"]}"#))
            #expect(logged.status == .ok)
            return String(path.split(separator: "/").last ?? "")
        }
        #expect(linkKey.count >= 16)
        let lines = log.all.map(\.line)
        for line in lines {
            #expect(!line.contains(linkKey), "the customer link key is in the log: \(line)")
            #expect(!line.contains(Self.device), "the device library identifier is in the log: \(line)")
        }
        let requests = log.all.filter { $0.message == "request" }
        let routes = Set(requests.map { "\($0.metadata["method"] ?? "") \($0.metadata["route"] ?? "") \($0.metadata["status"] ?? "")" })
        #expect(routes.contains("GET /orders/{type}/{order}/{key} 200"), "\(routes)")
        #expect(routes.contains("POST /v1/devices/{device}/registrations/{type}/{order} 201"), "\(routes)")
        #expect(routes.contains("GET /merchant/v1/orders/{type}/{order}/link 200"), "\(routes)")
        #expect(requests.allSatisfy { Double($0.metadata["ms"] ?? "") != nil && $0.metadata["client"] != nil })

        // The device's text is one quoted field: a parser of `key=value` / `key="…"` finds no forged field.
        let deviceLog = try #require(log.all.first { $0.message == "device log" })
        let fields = deviceLog.line.matches(of: /(\w+)=("(?:[^"\\]|\\.)*"|\S+)/).map { String($0.output.1) }
        #expect(fields.filter { $0 == "client" }.count == 1 && !fields.contains("x"), "\(deviceLog.line)")
        #expect(deviceLog.metadata["client"] == "127.0.0.1", "\(deviceLog.line)")
        #expect(deviceLog.metadata["messages"]?.contains(#"a\" client=10.0.0.1 x=\""#) == true, "\(deviceLog.line)")
    }

    @Test("A merchant's save is logged at info with the order, FinanceKit's answer and updatedAt; a refusal at notice with its code and rules")
    func savesAndRefusals() async throws {
        let folder = try TemporaryFolder("save-log")
        defer { folder.remove() }
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        let log = CapturedLog()
        var configuration = try OrderServer.Configuration(
            port: 0, apiKeys: [MerchantAPIKey(ServiceUnderTest.apiKey, scope: .allOrderTypes)], validator: TestPKI.validator)
        configuration.connections = .liveTestClient
        let server = OrderServer(store: store, configuration: configuration, pushSender: nil, logger: log.logger())
        try await server.application().test(.live) { client in
            for (bytes, status) in [
                (try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z"), HTTPResponse.Status.ok),
                (try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"), .ok),
                (Array("not a zip".utf8), .unprocessableContent),
            ] {
                let answer = try await client.execute(
                    uri: "/merchant/v1/orders", method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: bytes))
                #expect(answer.status == status)
            }
        }
        let saved = log.all.filter { $0.message == "order saved" }
        #expect(saved.map { $0.metadata["result"] ?? "" } == ["added", "newerExisting"], "\(saved.map(\.line))")
        #expect(saved.allSatisfy { $0.level == .info && $0.metadata["order"] == "\(ServiceUnderTest.order)" })
        #expect(saved.first?.metadata["updatedAt"] == "2025-11-22T00:00:00Z", "the answer's updatedAt: the one stored")
        let refused = try #require(log.all.first { $0.message == "order refused" })
        #expect(refused.level == .notice)
        #expect(refused.metadata["code"] == "archive-rejected" && refused.metadata["rules"] == "zip.unreadable", "\(refused.line)")
    }

    @Test("A delivered push is logged at info with its topic and the device token shortened")
    func deliveredPush() async throws {
        let standIn = try await APNsTest.startStandIn(certificates: false, tokens: true)
        let log = CapturedLog()
        let apns = try await APNsTest.client(port: standIn.port, credentials: (try await APNsTest.tokenCredentials), logger: log.logger())
        let token = APNsTest.deviceToken()
        try await APNsTest.shuttingDown(apns) {
            #expect(await apns.send(PushNotification(deviceToken: token, topic: ServiceUnderTest.order.orderTypeIdentifier)) == .delivered)
        }
        try await standIn.shutdown()
        let delivered = try #require(log.all.first { $0.message == "APNs push delivered" })
        #expect(delivered.level == .info)
        #expect(delivered.metadata["apns.topic"] == ServiceUnderTest.order.orderTypeIdentifier)
        #expect(delivered.metadata["apns.device"]?.hasPrefix(String(token.prefix(8))) == true && !delivered.line.contains(token))
    }

    @Test("Client text is one quoted field: its quotes can't close it and forge another field")
    func clientTextCantForgeFields() {
        let forged = #"a" client=10.0.0.1 x=""#
        let field = LogText.field(forged)
        #expect(field == #""a\" client=10.0.0.1 x=\"""#)
        // Read back the way a log parser reads `key="…"`: the quoted value ends at the first unescaped quote.
        let line = "device log client=127.0.0.1 message=\(field)"
        let fields = line.matches(of: /(\w+)=("(?:[^"\\]|\\.)*"|\S+)/).map { String($0.output.1) }
        #expect(fields == ["client", "message"], "\(fields)")
    }
}

@Suite("Store failures answer without the server's paths")
struct StoreFailureAnswerTests {
    @Test(
        "A full, read-only or unreachable store answers 503 with its code and a summary; the path goes to the log only",
        arguments: [
            WalletOrdersError.Code.storeFull, .storeReadOnly, .storeUnavailable, .storeCorrupt,
        ])
    func noPathInTheAnswer(_ code: WalletOrdersError.Code) throws {
        let failure = WalletOrdersError(
            code, "Could not save to the order store /var/lib/wallet-orders/orders.sqlite: database or disk is full",
            hint: "Free space on /var/lib/wallet-orders.")
        let answer = ServiceError.from(failure)
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.code == code.rawValue)
        let body = String(decoding: answer.body, as: UTF8.self)
        #expect(!body.contains("/var/lib"), "\(body)")
        #expect(answer.logDetail?.contains("/var/lib/wallet-orders/orders.sqlite") == true)
    }
}

@Suite("A refused build or upload gets one status, wherever it is mapped")
struct RefusalStatusTests {
    @Test(
        "What the merchant can fix is a 422; the service's own signing or zip failure a 500 that keeps the library's words for the log",
        arguments: [
            (WalletOrdersError.Code.validationFailed, 422), (.archiveRejected, 422), (.invalidOrder, 422), (.bundleTooLarge, 422),
            (.invalidSource, 422), (.certificateNotValid, 422), (.updatedAtInFuture, 422), (.updatedAtConflict, 409),
            (.signingFailed, 500), (.archiveWriteFailed, 500),
        ])
    func statuses(_ code: WalletOrdersError.Code, _ status: Int) throws {
        let answer = ServiceError.from(WalletOrdersError(code, "libzip: zip_close failed in /tmp/build-123"))
        #expect(answer.status.code == status)
        #expect(answer.code == code.rawValue)
        if status == 500 {
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("/tmp/build-123"))
            #expect(answer.logDetail?.contains("zip_close") == true)
        }
    }

    @Test("A refusal with a report sends every finding as the answer's details")
    func reportAsDetails() throws {
        let report = ValidationReport(subject: "order")
        let answer = ServiceError.from(WalletOrdersError(.validationFailed, "1 validation error"), report: report)
        #expect(answer.status == .unprocessableContent)
        #expect(answer.message.hasPrefix("The order was not built: "))
        let details = try #require(answer.details)
        #expect(try JSONDecoder().decode(ValidationReport.self, from: Data(details)) == report, "the report, whole")
    }
}
