import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Every API that takes `[UInt8]` also takes `Data` and other collections of bytes, with the
/// same answer as for the array.
@Suite struct ByteCollectionTests {
    static func archive() throws -> [UInt8] { try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z") }

    @Test("OrderArchive, OrderValidator and OrderArchiveVerifier give the array's answer for Data and slices")
    func archivesFromAnyCollection() throws {
        let bytes = try Self.archive()
        let expectedOrder = try OrderArchive(bytes: bytes).order()
        let expected = TestPKI.validator.validate(archiveBytes: bytes, subject: "a.order")
        #expect(expected.isValid)
        let data = Data(bytes)
        #expect(try OrderArchive(bytes: data).order() == expectedOrder)
        #expect(try OrderArchive(bytes: bytes[...]).order() == expectedOrder)
        #expect(TestPKI.validator.validate(archiveBytes: data, subject: "a.order") == expected)
        #expect(TestPKI.verifier.verify(archiveBytes: data, subject: "a.order") == TestPKI.verifier.verify(archiveBytes: bytes, subject: "a.order"))
        // A validator trusting a root held as Data accepts what the fixture validator accepts.
        let validator = try OrderValidator(additionalTrustAnchors: [Data(TestPKI.rootAnchor)])
        #expect(validator.validate(archiveBytes: data, subject: "a.order") == expected)
        let verifier = try OrderArchiveVerifier(additionalTrustAnchors: [Data(TestPKI.rootAnchor)])
        #expect(verifier.verify(archiveBytes: ContiguousArray(bytes), subject: "a.order").isValid)
        // Without it, the test chain isn't trusted.
        #expect(!(try OrderValidator(additionalTrustAnchors: [Data]())).validate(archiveBytes: data, subject: "a.order").isValid)
    }

    @Test("OrderSource and Manifest from Data hold the same bytes as from arrays")
    func sourcesFromData() throws {
        let archive = try OrderArchive(bytes: try Self.archive())
        let manifestBytes = try #require(archive.contents(of: "manifest.json"))
        #expect(try Manifest(jsonBytes: Data(manifestBytes)) == (try Manifest(jsonBytes: manifestBytes)))
        let orderJSON = try #require(archive.contents(of: OrderArchive.orderPath))
        let source = OrderSource(files: [OrderArchive.orderPath: Data(orderJSON)])
        #expect(source.orderJSON == orderJSON)
        #expect(OrderBatchInput(origin: .line(1), orderJSON: Data(orderJSON)).orderJSON == orderJSON)
    }
}
