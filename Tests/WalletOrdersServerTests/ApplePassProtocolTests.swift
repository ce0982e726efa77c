import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport
import WalletPasses

/// Apple's pass web service on the same `/v1/` as the order service, status by status, on SQLite
/// and PostgreSQL (wallet-passes-spec §5).
@Suite("Apple's pass web service protocol, status by status")
struct ApplePassProtocolTests {
    static let type = SamplePasses.passTypeIdentifier
    static let serial = "WS-1"
    static let registration = "/v1/devices/device-1/registrations/\(type)/\(serial)"
    static let passPath = "/v1/passes/\(type)/\(serial)"
    static func applePass(_ token: String = SamplePasses.authenticationToken) -> HTTPFields {
        [.authorization: "ApplePass \(token)"]
    }
    /// An IMF-fixdate (RFC 9110 §5.6.7).
    static func httpDate(_ secondsSince1970: Int64) -> String {
        httpDateFormatter.string(from: Date(timeIntervalSince1970: TimeInterval(secondsSince1970)))
    }
    static var httpDateFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
    static let pushToken = ByteBuffer(string: #"{"pushToken": "aa11bb22cc33dd44"}"#)

    /// Runs `body` against a service on a fresh store of `kind` holding the pass `WS-1`.
    static func withService(_ kind: ServiceStore, _ body: @Sendable @escaping (any OrderServiceStore, any TestClientProtocol) async throws -> Void)
        async throws
    {
        try await kind.withStore { store in
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: serial))
            let server = try ServiceUnderTest.server(store: store)
            try await server.application().test(.router) { client in try await body(store, client) }
        }
    }

    @Test(
        "Register: 201, then 200; no token, a wrong one, the order scheme and an unknown serial give one identical 401; unregister 200",
        arguments: ServiceStore.available)
    func registrations(kind: ServiceStore) async throws {
        try await Self.withService(kind) { store, client in
            var answer = try await client.execute(uri: Self.registration, method: .post, headers: Self.applePass(), body: Self.pushToken)
            #expect(answer.status == .created)
            answer = try await client.execute(uri: Self.registration, method: .post, headers: Self.applePass(), body: Self.pushToken)
            #expect(answer.status == .ok)
            let identifier = SamplePasses.identifier(Self.serial)
            let registered = DeviceRegistration(deviceIdentifier: "device-1", pushToken: "aa11bb22cc33dd44")
            #expect(try await store.registrations(for: identifier) == [registered])

            var refused: [TestResponse] = []
            let cases: [(String, HTTPFields)] = [
                (Self.registration, HTTPFields()), (Self.registration, Self.applePass("wrong")),
                (Self.registration, [.authorization: "AppleOrder \(SamplePasses.authenticationToken)"]),
                ("/v1/devices/device-1/registrations/\(Self.type)/unknown", Self.applePass()),
            ]
            for (uri, headers) in cases {
                refused.append(try await client.execute(uri: uri, method: .post, headers: headers, body: Self.pushToken))
            }
            #expect(refused.allSatisfy { $0.status == .unauthorized })
            #expect(Set(refused.map { Data($0.body.readableBytesView) }).count == 1, "the same body whatever was wrong")

            answer = try await client.execute(
                uri: Self.registration, method: .post, headers: Self.applePass(), body: ByteBuffer(string: #"{"token": 1}"#))
            #expect(answer.status == .badRequest)
            #expect(answer.errorCode == "bad-body")

            answer = try await client.execute(uri: Self.registration, method: .delete, headers: [:])
            #expect(answer.status == .unauthorized)
            answer = try await client.execute(uri: Self.registration, method: .delete, headers: Self.applePass())
            #expect(answer.status == .ok)
            #expect(try await store.registrations(for: identifier).isEmpty)
        }
    }

    @Test(
        "Serial numbers: every pass first, lastUpdated a string; the tag back a 204, a change only its serial, another server's tag everything",
        arguments: ServiceStore.available)
    func serialNumbers(kind: ServiceStore) async throws {
        try await Self.withService(kind) { store, client in
            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "WS-2"))
            for serial in [Self.serial, "WS-2"] {
                let answer = try await client.execute(
                    uri: "/v1/devices/device-1/registrations/\(Self.type)/\(serial)", method: .post, headers: Self.applePass(),
                    body: Self.pushToken)
                #expect(answer.status == .created)
            }
            let list = "/v1/devices/device-1/registrations/\(Self.type)"
            var answer = try await client.execute(uri: list, method: .get)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.json["serialNumbers"] as? [String] == [Self.serial, "WS-2"])
            let tag = try #require(answer.json["lastUpdated"] as? String, "lastUpdated is a JSON string")

            answer = try await client.execute(uri: "\(list)?passesUpdatedSince=\(tag)", method: .get)
            #expect(answer.status == .noContent)

            _ = try await store.save(verifiedPass: try SamplePasses.verified(serialNumber: "WS-2", event: "Moved"))
            answer = try await client.execute(uri: "\(list)?passesUpdatedSince=\(tag)", method: .get)
            #expect(answer.status == .ok)
            #expect(answer.json["serialNumbers"] as? [String] == ["WS-2"])
            #expect(answer.json["lastUpdated"] as? String != tag)

            // Apple's sample server's tag (epoch seconds): not ours, so every pass.
            answer = try await client.execute(uri: "\(list)?passesUpdatedSince=1351981923", method: .get)
            #expect(answer.json["serialNumbers"] as? [String] == [Self.serial, "WS-2"])
            answer = try await client.execute(uri: "\(list)?passesUpdatedSince=\(String(repeating: "1", count: 1025))", method: .get)
            #expect(answer.status == .badRequest)
            #expect(answer.errorCode == "bad-passes-updated-since")

            // A device with no registrations: 204, for passes and orders alike.
            answer = try await client.execute(uri: "/v1/devices/device-9/registrations/\(Self.type)", method: .get)
            #expect(answer.status == .noContent)
        }
    }

    @Test(
        "The pass: 200 as application/vnd.apple.pkpass with ETag and Last-Modified, 304 to either, HEAD, one 401, //v1/ too",
        arguments: ServiceStore.available)
    func fetch(kind: ServiceStore) async throws {
        try await Self.withService(kind) { store, client in
            let bytes = try #require(try await store.passArchive(for: SamplePasses.identifier(Self.serial)))
            var answer = try await client.execute(uri: Self.passPath, method: .get, headers: Self.applePass())
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/vnd.apple.pkpass")
            #expect(answer.headers[.contentDisposition] == #"attachment; filename="WS-1.pkpass""#)
            #expect(Array(answer.body.readableBytesView) == bytes)
            let entityTag = try #require(answer.headers[.eTag])
            let lastModified = try #require(answer.headers[.lastModified])

            answer = try await client.execute(uri: Self.passPath, method: .get, headers: Self.applePass() + [.ifNoneMatch: entityTag])
            #expect(answer.status == .notModified)
            #expect(answer.body.readableBytes == 0)
            // Last-Modified is never later than the answer's Date (two seconds before the clock), so a
            // pass saved this second is not "not modified since" it yet; since the second it was
            // saved, it is.
            let record = try #require(try await store.passAccessRecord(for: SamplePasses.identifier(Self.serial)))
            let served = try #require(Self.httpDateFormatter.date(from: lastModified))
            #expect(Int64(served.timeIntervalSince1970) <= record.modifiedAt)
            answer = try await client.execute(
                uri: Self.passPath, method: .get, headers: Self.applePass() + [.ifModifiedSince: Self.httpDate(record.modifiedAt)])
            #expect(answer.status == .notModified)
            answer = try await client.execute(
                uri: Self.passPath, method: .get, headers: Self.applePass() + [.ifModifiedSince: Self.httpDate(record.modifiedAt - 1)])
            #expect(answer.status == .ok)
            answer = try await client.execute(uri: Self.passPath, method: .head, headers: Self.applePass())
            #expect(answer.status == .ok)
            #expect(answer.body.readableBytes == 0)
            #expect(answer.headers[.eTag] == entityTag)
            answer = try await client.execute(uri: "/" + Self.passPath, method: .get, headers: Self.applePass())
            #expect(answer.status == .ok, "a webServiceURL ending in / makes //v1/")

            var refused: [TestResponse] = []
            let cases: [(String, HTTPFields)] = [
                (Self.passPath, HTTPFields()), (Self.passPath, Self.applePass("wrong")), ("/v1/passes/\(Self.type)/unknown", Self.applePass()),
            ]
            for (uri, headers) in cases {
                refused.append(try await client.execute(uri: uri, method: .get, headers: headers))
            }
            #expect(refused.allSatisfy { $0.status == .unauthorized })
            #expect(Set(refused.map { Data($0.body.readableBytesView) }).count == 1)

            // A new version with a new token: the old tag gets it, the old token still opens it.
            let replacement = try SamplePasses.verified(
                serialNumber: Self.serial, event: "Moved", authenticationToken: "a-new-token-of-16-or-more-characters")
            _ = try await store.save(verifiedPass: replacement)
            answer = try await client.execute(uri: Self.passPath, method: .get, headers: Self.applePass() + [.ifNoneMatch: entityTag])
            #expect(answer.status == .ok)
            #expect(Array(answer.body.readableBytesView) == replacement.bytes)
            answer = try await client.execute(uri: Self.passPath, method: .get, headers: Self.applePass("a-new-token-of-16-or-more-characters"))
            #expect(answer.status == .ok)
        }
    }

    @Test("A pass's registration and an order's of the same device live side by side on the shared paths", arguments: ServiceStore.available)
    func beside(kind: ServiceStore) async throws {
        try await Self.withService(kind) { store, client in
            _ = try await store.intake().save(signedArchive: try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z"))
            var answer = try await client.execute(
                uri: "/v1/devices/device-1/registrations/\(ServiceUnderTest.orderPath)", method: .post, headers: ServiceUnderTest.appleOrder(),
                body: Self.pushToken)
            #expect(answer.status == .created)
            answer = try await client.execute(uri: Self.registration, method: .post, headers: Self.applePass(), body: Self.pushToken)
            #expect(answer.status == .created)
            answer = try await client.execute(uri: "/v1/devices/device-1/registrations/\(ServiceUnderTest.order.orderTypeIdentifier)", method: .get)
            #expect(answer.json["orderIdentifiers"] as? [String] == [ServiceUnderTest.order.orderIdentifier])
            answer = try await client.execute(uri: "/v1/devices/device-1/registrations/\(Self.type)", method: .get)
            #expect(answer.json["serialNumbers"] as? [String] == [Self.serial])
        }
    }
}
