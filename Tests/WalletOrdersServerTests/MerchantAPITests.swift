import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

@Suite("The merchant API: API keys, FinanceKit's answers over HTTP, status by status (SQLite store)", .temporaryFolder)
struct MerchantAPITests {
    static let orders = "/merchant/v1/orders"
    static let one = "/merchant/v1/orders/\(ServiceUnderTest.orderPath)"

    @Test("Every endpoint refuses a missing, wrong or order-token credential with 401; order tokens never open the merchant API")
    func keys() async throws {
        let service = try ServiceUnderTest()
        try await service.run { client in
            let credentials: [HTTPFields] = [
                [:], [.authorization: "Bearer wrong-key-0123456789"], ServiceUnderTest.appleOrder(),
                [.authorization: ServiceUnderTest.apiKey],
            ]
            for headers in credentials {
                for (method, uri) in [
                    (HTTPRequest.Method.post, Self.orders), (.get, Self.orders), (.get, Self.one), (.get, Self.one + "/contains"),
                    (.delete, Self.one), (.get, "/merchant/v1/history"),
                ] {
                    let answer = try await client.execute(uri: uri, method: method, headers: headers)
                    #expect(answer.status == .unauthorized, "\(method) \(uri) with \(headers)")
                    #expect(answer.errorCode == "unauthorized")
                }
            }
        }
    }

    @Test("Upload: added, added again (idempotent), newerExisting, 409 for other content at the same updatedAt, 422 with the report")
    func upload() async throws {
        let service = try ServiceUnderTest()
        let first = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        let older = try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z")
        let sameTimeOtherContent = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", status: "completed")
        try await service.run { client in
            func post(_ bytes: [UInt8]) async throws -> TestResponse {
                try await client.execute(
                    uri: Self.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: bytes))
            }
            var answer = try await post(first)
            #expect(answer.status == .ok)
            #expect(answer.json["result"] as? String == "added")
            #expect(answer.json["orderIdentifier"] as? String == ServiceUnderTest.order.orderIdentifier)
            #expect(answer.json["updatedAt"] as? String == "2025-11-22T00:00:00Z")
            answer = try await post(first)
            #expect(answer.json["result"] as? String == "added")
            answer = try await post(older)
            #expect(answer.status == .ok)
            #expect(answer.json["result"] as? String == "newerExisting")
            answer = try await post(sameTimeOtherContent)
            #expect(answer.status == .conflict)
            #expect(answer.errorCode == "updated-at-conflict")
            let message = (answer.json["error"] as? [String: Any])?["message"] as? String ?? ""
            let digestFirst = await SHA256Hex.of(first)
            #expect(message.contains(String(digestFirst.prefix(12))), "names the stored version's hash: \(message)")

            var broken = first
            broken[broken.count / 2] ^= 0xFF
            answer = try await post(broken)
            #expect(answer.status == .unprocessableContent)
            let details = try #require(answer.json["details"] as? [String: Any])
            let findings = try #require(details["diagnostics"] as? [[String: Any]])
            #expect(!findings.isEmpty)
            #expect(findings.allSatisfy { $0["ruleID"] as? String != nil })
            answer = try await post(Array("not a zip".utf8))
            #expect(answer.status == .unprocessableContent)
        }
        #expect(try await service.store.archive(for: ServiceUnderTest.order) == first)
    }

    @Test(
        "An order whose identifier Wallet's requests could not name (a control character, over 1,024 bytes) is refused with 422 and not stored; one with spaces, slashes and non-ASCII letters is served"
    )
    func unservableIdentifiers() async throws {
        let service = try MerchantBuildTests.service()
        let source = try OrderSource(directory: Repository.sample(SampleVersions.sampleName))
        let json = String(decoding: try #require(source.orderJSON), as: UTF8.self)
        let sampleLine = #""orderIdentifier": "\#(ServiceUnderTest.order.orderIdentifier)""#
        try await service.run { client in
            for identifier in ["del\u{7F}", String(repeating: "L", count: 1_025), String(repeating: "é", count: 513)] {
                let archive = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: identifier)
                let answer = try await client.execute(
                    uri: Self.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: archive))
                #expect(answer.status == .unprocessableContent, "\(identifier.prefix(12))")
                #expect(answer.errorCode == "identifier-not-servable")
                #expect(try await service.store.archive(for: SampleVersions.identifier(identifier)) == nil)
            }
            // Built from order.json, where a control character is written as an escape.
            var headers = ServiceUnderTest.merchant
            headers[.contentType] = "application/json"
            for (escaped, identifier) in [(#"tab\tid"#, "tab\tid"), (#"line\nbreak"#, "line\nbreak")] {
                let body = json.replacingOccurrences(of: sampleLine, with: #""orderIdentifier": "\#(escaped)""#)
                let answer = try await client.execute(
                    uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(answer.status == .unprocessableContent, "\(escaped)")
                #expect(answer.errorCode == "identifier-not-servable")
                #expect(try await service.store.archive(for: SampleVersions.identifier(identifier)) == nil)
            }
            let served = "A/B é ü+%#?" + String(repeating: "L", count: 1_000)
            let archive = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z", orderIdentifier: served)
            let answer = try await client.execute(
                uri: Self.orders, method: .post, headers: ServiceUnderTest.merchant, body: ByteBuffer(bytes: archive))
            #expect(answer.json["result"] as? String == "added")
            let path = served.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let fetched = try await client.execute(
                uri: "/v1/orders/\(ServiceUnderTest.order.orderTypeIdentifier)/\(path)", method: .get, headers: ServiceUnderTest.appleOrder())
            #expect(fetched.status == .ok)
        }
    }

    @Test("contains answers FinanceKit's four ways with the stored updatedAt; fetch, list, history and delete")
    func queries() async throws {
        let service = try ServiceUnderTest()
        let archive = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        _ = try await service.store.intake().save(signedArchive: archive)
        try await service.run { client in
            let headers = ServiceUnderTest.merchant
            for (date, expected) in [
                ("2025-11-22T00:00:00Z", "exists"), ("2025-11-21T00:00:00Z", "newerExists"), ("2025-11-23T00:00:00Z", "olderExists"),
            ] {
                let answer = try await client.execute(uri: Self.one + "/contains?updatedDate=\(date)", method: .get, headers: headers)
                #expect(answer.json["result"] as? String == expected)
                #expect(answer.json["storedUpdatedAt"] as? String == "2025-11-22T00:00:00Z")
            }
            let unknown = try await client.execute(
                uri: "/merchant/v1/orders/\(ServiceUnderTest.order.orderTypeIdentifier)/nope/contains", method: .get, headers: headers)
            #expect(unknown.json["result"] as? String == "notFound")
            #expect(unknown.json["storedUpdatedAt"] == nil)
            let badDate = try await client.execute(uri: Self.one + "/contains?updatedDate=tomorrow", method: .get, headers: headers)
            #expect(badDate.status == .badRequest)

            let fetched = try await client.execute(uri: Self.one, method: .get, headers: headers)
            #expect(Array(fetched.body.readableBytesView) == archive)
            let list = try await client.execute(uri: Self.orders + "?limit=10", method: .get, headers: headers)
            #expect((list.json["orders"] as? [[String: Any]])?.count == 1)
            for bad in ["?limit=0", "?limit=x", "?after=garbage", "?updatedSince=never"] {
                let answer = try await client.execute(uri: Self.orders + bad, method: .get, headers: headers)
                #expect(answer.status == .badRequest, "\(bad)")
            }
            let history = try await client.execute(uri: "/merchant/v1/history", method: .get, headers: headers)
            #expect((history.json["inserted"] as? [Any])?.count == 1)
            let badToken = try await client.execute(uri: "/merchant/v1/history?since=nonsense", method: .get, headers: headers)
            #expect(badToken.status == .badRequest)

            let deleted = try await client.execute(uri: Self.one, method: .delete, headers: headers)
            #expect(deleted.status == .ok)
            let again = try await client.execute(uri: Self.one, method: .delete, headers: headers)
            #expect(again.status == .notFound)
            #expect(again.errorCode == "not-found")
        }
    }
}

@Suite("Add to Apple Wallet: one unguessable link per order", .temporaryFolder)
struct CustomerLinkTests {
    @Test("The merchant gets the link; the page has the button; the archive comes with Apple's media type; wrong keys and unknown orders get one 404")
    func links() async throws {
        let service = try ServiceUnderTest()
        let archive = try SampleVersions.archive(updatedAt: "2025-11-22T00:00:00Z")
        _ = try await service.store.intake().save(signedArchive: archive)
        try await service.run { client in
            let answer = try await client.execute(uri: MerchantAPITests.one + "/link", method: .get, headers: ServiceUnderTest.merchant)
            let path = try #require(answer.json["path"] as? String)
            #expect(path.hasPrefix("/orders/order.com.northwindoutfitters.shop/nw-2025-118734/"))
            #expect(path.split(separator: "/").last?.count == 32)

            let page = try await client.execute(uri: path, method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains("Northwind Outfitters"))
            #expect(html.contains(#"href="\#(path)/order">Add to Apple Wallet</a>"#))

            let order = try await client.execute(uri: path + "/order", method: .get)
            #expect(order.status == .ok)
            #expect(order.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(order.headers[.contentDisposition] == #"attachment; filename="nw-2025-118734.order""#)
            #expect(Array(order.body.readableBytesView) == archive)

            var wrongKey = path
            wrongKey.removeLast()
            wrongKey += path.hasSuffix("A") ? "B" : "A"
            let unknown = path.replacingOccurrences(of: "nw-2025-118734", with: "nw-0000")
            var refusals: [TestResponse] = []
            for uri in [wrongKey, wrongKey + "/order", unknown, unknown + "/order"] {
                refusals.append(try await client.execute(uri: uri, method: .get))
            }
            for refusal in refusals {
                #expect(refusal.status == .notFound)
                #expect(refusal.body == refusals[0].body)
            }
        }
    }
}

@Suite("The merchant API builds and signs with the identity the service holds", .temporaryFolder)
struct MerchantBuildTests {
    static func service(steps: IntakeSteps? = nil) throws -> ServiceUnderTest {
        let source = try OrderSource(directory: Repository.sample(SampleVersions.sampleName))
        let template = OrderBatchTemplate(files: source.files)
        let type = ServiceUnderTest.order.orderTypeIdentifier
        var onStep: (@Sendable (OrderIntake.Step) -> Void)?
        if let steps { onStep = { steps.record($0) } }
        return try ServiceUnderTest(
            signing: SigningIdentities([type: .init(identity: TestPKI.identity(for: type), template: template)]), onIntakeStep: onStep)
    }

    /// The sample's order.json with `updatedAt` moved to `updatedAt`.
    static func orderJSON(updatedAt: String) throws -> String {
        let source = try OrderSource(directory: Repository.sample(SampleVersions.sampleName))
        return String(decoding: try #require(source.orderJSON), as: UTF8.self)
            .replacingOccurrences(of: SampleVersions.updatedAtLine, with: #""updatedAt": "\#(updatedAt)""#)
    }

    @Test("An order with errors posted to build costs no signature: 422 with the report; nothing signed, stored or notified")
    func invalidOrderIsNotSigned() async throws {
        let steps = IntakeSteps()
        let service = try Self.service(steps: steps)
        let invalid = try Self.orderJSON(updatedAt: "2025-11-25T00:00:00Z")
            .replacingOccurrences(of: #""status": "open""#, with: #""status": "opne""#)
        try await service.run { client in
            var headers = ServiceUnderTest.merchant
            headers[.contentType] = "application/json"
            let refused = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: invalid))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "validation-failed")
            let details = try #require(refused.json["details"] as? [String: Any])
            let findings = try #require(details["diagnostics"] as? [[String: Any]])
            let pointers = findings.compactMap { ($0["location"] as? [String: Any])?["jsonPointer"] as? String }
            #expect(pointers.contains("/status"), "the report names the bad status: \(findings)")
        }
        #expect(steps.recorded == [.validating], "validation refused it before any signature")
        #expect(try await service.store.archive(for: ServiceUnderTest.order) == nil)
    }

    @Test("The archive the build endpoint stores is byte for byte what the builder makes of the same files at the same time")
    func storedIsWhatTheBuilderMade() async throws {
        let steps = IntakeSteps()
        let service = try Self.service(steps: steps)
        let json = try Self.orderJSON(updatedAt: "2025-11-25T00:00:00Z")
        try await service.run { client in
            var headers = ServiceUnderTest.merchant
            headers[.contentType] = "application/json"
            let answer = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: json))
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
        }
        #expect(steps.recorded == [.validating, .signing, .saving])
        let stored = try #require(try await service.store.archive(for: ServiceUnderTest.order))
        let signingTime = try #require(try OrderArchive(bytes: stored).signatureInfo().signingTime)
        var files = try OrderSource(directory: Repository.sample(SampleVersions.sampleName)).files
        files[OrderArchive.orderPath] = Array(json.utf8)
        let type = ServiceUnderTest.order.orderTypeIdentifier
        let rebuilt = try OrderArchiveBuilder(identity: TestPKI.identity(for: type)).build(OrderSource(files: files), signingTime: signingTime)
        #expect(stored == rebuilt.bytes)
    }

    @Test("order.json alone (the template brings the images), or a zip of it and a changed file: built, signed, stored, verified")
    func build() async throws {
        let service = try Self.service()
        let source = try OrderSource(directory: Repository.sample(SampleVersions.sampleName))
        let json = String(decoding: try #require(source.orderJSON), as: UTF8.self)
        let newer = json.replacingOccurrences(of: SampleVersions.updatedAtLine, with: #""updatedAt": "2025-11-25T00:00:00Z""#)
        let folder = try TemporaryFolder.ofTest
        let zipPath = folder.file("source.zip").path
        let zipped = try await ExternalProgram.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('order.json', sys.argv[2])\n    z.writestr('en.lproj/order.strings', '\"x\" = \"y\";')",
            [zipPath, newer.replacingOccurrences(of: #""updatedAt": "2025-11-25T00:00:00Z""#, with: #""updatedAt": "2025-11-26T00:00:00Z""#)])
        #expect(zipped.status == 0, "\(zipped)")
        let zip = try Data(contentsOf: URL(fileURLWithPath: zipPath))
        // Seen: `zip -r update.zip my-order`, every file under my-order/.
        let foldedPath = folder.file("folded.zip").path
        let folded = try await ExternalProgram.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('my-order/order.json', sys.argv[2])",
            [foldedPath, newer])
        #expect(folded.status == 0, "\(folded)")
        let foldedZip = try Data(contentsOf: URL(fileURLWithPath: foldedPath))
        try await service.run { client in
            var headers = ServiceUnderTest.merchant
            headers[.contentType] = "application/json"
            let answer = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: newer))
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(answer.json["result"] as? String == "added")
            #expect(answer.json["updatedAt"] as? String == "2025-11-25T00:00:00Z")
            #expect(answer.json["notes"] == nil, "an order with webServiceURL needs no note")

            headers[.contentType] = "application/zip"
            let fromZip = try await client.execute(uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(bytes: zip))
            #expect(fromZip.status == .ok, "\(String(buffer: fromZip.body))")
            #expect(fromZip.json["updatedAt"] as? String == "2025-11-26T00:00:00Z")

            let inAFolder = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(bytes: foldedZip))
            #expect(inAFolder.status == .unprocessableContent)
            #expect(inAFolder.errorCode == "zip-in-a-folder", "\(String(buffer: inAFolder.body))")
            #expect(String(buffer: inAFolder.body).contains("sit in the folder 'my-order/'"), "\(String(buffer: inAFolder.body))")

            // What curl's --data-binary sends without -H: a 415 that says which header to set.
            headers[.contentType] = "application/x-www-form-urlencoded"
            let wrongType = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: newer))
            #expect(wrongType.status == .unsupportedMediaType)
            let wrongTypeError = try #require(wrongType.json["error"] as? [String: Any])
            #expect((wrongTypeError["message"] as? String)?.contains("this body was application/x-www-form-urlencoded") == true, "\(wrongTypeError)")
            #expect((wrongTypeError["hint"] as? String)?.contains("Content-Type header to application/json") == true, "\(wrongTypeError)")
            headers[.contentType] = "application/json"
            let otherType = newer.replacingOccurrences(of: ServiceUnderTest.order.orderTypeIdentifier, with: "order.com.other.shop")
            let noIdentity = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: otherType))
            #expect(noIdentity.status == .unprocessableContent)
            #expect(noIdentity.errorCode == "no-signing-identity")
            // No order type to choose an identity by (not JSON, or no orderTypeIdentifier): 422 invalid-order.
            for body in ["{not json", newer.replacingOccurrences(of: #""orderTypeIdentifier""#, with: #""orderType""#)] {
                let untyped = try await client.execute(
                    uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(untyped.status == .unprocessableContent)
                #expect(untyped.errorCode == "invalid-order", "\(String(buffer: untyped.body))")
            }
            let invalid = newer.replacingOccurrences(of: #""status": "open""#, with: #""status": "opne""#)
            let refused = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: invalid))
            #expect(refused.status == .unprocessableContent)
            // A posted order.json is no archive: the refusal says nothing was built.
            let refusal = try #require(refused.json["error"] as? [String: Any])
            #expect((refusal["message"] as? String)?.hasPrefix("The order was not built: ") == true, "\(refusal)")

            // Without webServiceURL the order is stored, and the answer says Wallet won't ask this service about it.
            // (Another order, so the one checked below stays as the zip left it.)
            var withoutService = try #require(try JSONSerialization.jsonObject(with: Data(newer.utf8)) as? [String: Any])
            withoutService["webServiceURL"] = nil
            withoutService["authenticationToken"] = nil
            withoutService["orderIdentifier"] = "without-a-service"
            let noService = try await client.execute(
                uri: "/merchant/v1/orders/build", method: .post, headers: headers,
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: withoutService)))
            #expect(noService.status == .ok, "\(String(buffer: noService.body))")
            let notes = try #require(noService.json["notes"] as? [String], "\(String(buffer: noService.body))")
            #expect(notes.first?.contains("Wallet won't ask this service for updates to the order") == true, "\(notes)")
        }
        let stored = try #require(try await service.store.archive(for: ServiceUnderTest.order))
        let archive = try OrderArchive(bytes: stored)
        #expect(archive.contents(of: "en.lproj/order.strings") == Array(#""x" = "y";"#.utf8))
        #expect(TestPKI.validator.validate(archiveBytes: stored, subject: "stored").errors.isEmpty)
    }

    @Test(
        "A new authenticationToken doesn't strand registered devices: the previous token still fetches and registers, the one before it no longer does"
    )
    func rotatedToken() async throws {
        let service = try Self.service()
        let source = try OrderSource(directory: Repository.sample(SampleVersions.sampleName))
        let json = String(decoding: try #require(source.orderJSON), as: UTF8.self)
        let first = ServiceUnderTest.token
        let second = "S3condT0kenForTheOrder0123456789"
        let third = "Th1rdT0kenForTheOrder01234567890"
        @Sendable func version(_ day: Int, token: String) -> String {
            json.replacingOccurrences(of: SampleVersions.updatedAtLine, with: #""updatedAt": "2025-11-2\#(day)T00:00:00Z""#)
                .replacingOccurrences(of: first, with: token)
        }
        try await service.run { client in
            var headers = ServiceUnderTest.merchant
            headers[.contentType] = "application/json"
            func build(_ body: String) async throws -> String? {
                let answer = try await client.execute(
                    uri: "/merchant/v1/orders/build", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(answer.json["result"] as? String == "added")
                return answer.json["sha256"] as? String
            }
            let uri = "/v1/orders/\(ServiceUnderTest.orderPath)"
            let registration = "/v1/devices/device-1/registrations/\(ServiceUnderTest.orderPath)"
            let pushToken = ByteBuffer(string: #"{"pushToken": "aa11bb22cc33dd44"}"#)
            _ = try await build(version(1, token: first))
            #expect(
                try await client.execute(uri: registration, method: .post, headers: ServiceUnderTest.appleOrder(first), body: pushToken).status
                    == .created)

            let rotated = try #require(try await build(version(2, token: second)))
            let fetched = try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(first))
            #expect(fetched.status == .ok, "the device's token fetches the version that carries the new one")
            #expect(fetched.headers[.eTag] == "\"\(rotated)\"")
            #expect(try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(second)).status == .ok)
            #expect(
                try await client.execute(uri: registration, method: .post, headers: ServiceUnderTest.appleOrder(first), body: pushToken).status == .ok
            )

            _ = try await build(version(3, token: third))
            #expect(try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(first)).status == .unauthorized)
            #expect(try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(second)).status == .ok)
            #expect(try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(third)).status == .ok)

            // A version without a token (no web service) is open to no one, its previous token included.
            let withoutToken = version(4, token: third).replacingOccurrences(
                of: ",\n  \"webServiceURL\": \"https://api.northwindoutfitters.example/wallet\",\n  \"authenticationToken\": \"\(third)\"", with: "")
            #expect(!withoutToken.contains(third))
            _ = try await build(withoutToken)
            for token in [second, third] {
                #expect(try await client.execute(uri: uri, method: .get, headers: ServiceUnderTest.appleOrder(token)).status == .unauthorized)
            }
        }
    }
}

/// The steps of the service's intake, in the order they began.
final class IntakeSteps: Sendable {
    private let steps = Mutex<[OrderIntake.Step]>([])
    func record(_ step: OrderIntake.Step) { steps.withLock { $0.append(step) } }
    var recorded: [OrderIntake.Step] { steps.withLock { $0 } }
}
