import Foundation
import Testing
import WalletOrders
import WalletOrdersFuzzTargets
import WalletOrdersInterop
import WalletOrdersTestSupport

/// What the code under test says about each input the fuzzers found (`Tests/Fuzz/Regressions/`),
/// through the same entry point as the fuzz target, now that each bug is fixed.
@Suite struct FuzzFindingTests {
    static func input(_ target: FuzzTarget, _ name: String) throws -> [UInt8] {
        try Array(Data(contentsOf: FuzzRegressionTests.regressions.appendingPathComponent("\(target.rawValue)/\(name)")))
    }

    static let validator = try! OrderValidator()

    /// zip/empty: `ZipReader` gave libzip a one-byte buffer for no bytes, which libzip skips and
    /// so never freed (LeakSanitizer: 1 byte per empty archive). No bytes are no archive.
    @Test func emptyArchive() throws {
        let bytes = try Self.input(.zip, "empty")
        #expect(bytes.isEmpty)
        let reader = try ZipReader(bytes: bytes)
        #expect(reader.entries.isEmpty)
        #expect(ZipLayout(bytes).problems.map(\.kind) == [.centralDirectoryInvalid])
        let report = Self.validator.validate(archiveBytes: bytes, subject: "empty.order")
        #expect(report.contains(ruleID: "zip.central-directory-invalid"))
        #expect(!report.isValid)
    }

    /// zip/local-header-offset-past-end: a central directory record places its local header far
    /// past the end of the data. The layout names that offset as the record gives it (the fuzz
    /// target's first invariant wrongly required offsets inside the data).
    @Test func localHeaderOffsetPastTheEnd() throws {
        let bytes = try Self.input(.zip, "local-header-offset-past-end")
        let layout = ZipLayout(bytes)
        let mismatch = try #require(layout.problems.first { $0.offset > bytes.count })
        #expect(mismatch.kind == .localHeaderMismatch)
        #expect(mismatch.offset == 3_233_818_002)
        #expect(mismatch.recordIndex.map { layout.untrustedRecords.contains($0) } == true)
        let report = Self.validator.validate(archiveBytes: bytes, subject: "fuzz.order")
        #expect(report.contains(ruleID: "zip.local-header-mismatch"))
    }

    /// der/certificate-not-der: a signature of the usual shape whose second certificate holds a
    /// length that runs past its container. `StrictSignedData` (the verifier's fast path) read
    /// the certificates without checking inside them, so it took bytes the strict DER check
    /// refuses; OpenSSL also takes certificates with BER inside, so the fast path could accept
    /// what the general path rejects as `signature.not-der`. Now it declines, and the general
    /// path names the byte.
    @Test func certificateThatIsNotDER() throws {
        let bytes = try Self.input(.der, "certificate-not-der")
        #expect(StrictSignedData(bytes)?.certificates == nil)
        let violation = try #require(DERReader.violation(in: bytes))
        #expect(violation.offset == 1_489)
        #expect(violation.reason.contains("doesn't fit"))
    }
}
