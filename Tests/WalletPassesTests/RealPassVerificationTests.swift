import Foundation
import Testing
import WalletOrdersTestSupport
import WalletPasses

/// Every real pass gets the verdict Wallet is expected to give it: each `accept` passes with no
/// error, each `uncertain` passes with a warning that says what is uncertain, and each `refuse` is
/// refused with the rule that names its fault (the table below, written from each pass's reasons
/// in `index.json`). A bundle's verdict is its passes'.
@Suite struct RealPassVerificationTests {
    /// The rules a refused pass must be refused with, from its reasons in `index.json`; a set
    /// means any one of them names the fault.
    static let refusalRules: [String: [Set<String>]] = [
        "signed-apple/westbahn-train-boardingpass-2014.pkpass": [["manifest.extra-entry"]],
        "signed-apple/pkpassvalidator-bad-marker-2020.pkpass": [["signature.signer-pass-type-mismatch"]],
        "signed-apple/thrive-event-teammismatch-2020.pkpass": [["signature.signer-team-mismatch"]],
        "signed-apple/novabase-boardingpass-idmismatch-2014.pkpass": [
            ["signature.signer-pass-type-mismatch"], ["signature.signer-team-mismatch"],
        ],
        "signed-apple/rewardjar-storecard-idmismatch-2025.pkpass": [
            ["signature.signer-pass-type-mismatch"], ["signature.signer-team-mismatch"],
        ],
        // No signed attributes at all, so no signing time.
        "signed-apple/rewardjar-storecard-nosigningtime-2025.pkpass": [["signature.missing-signing-time", "signature.missing-signed-attributes"]],
        "signed-apple/rewardjar-storecard-cmsdigest-2025.pkpass": [["signature.digest-mismatch"]],
        "signed-apple/apple-devpubs-generic-badchecksum.pkpass": [["manifest.hash-mismatch"]],
        "signed-apple/apple-devpubs-generic-missingchecksum.pkpass": [
            ["manifest.hash-mismatch"], ["manifest.missing-entry"], ["signature.digest-mismatch"],
        ],
        "signed-apple/apple-devpubs-boardingpass-jsonfixed.pkpass": [["manifest.hash-mismatch"]],
        "signed-apple/keefmoon-generic-macosx-2013.pkpass": [["manifest.missing-entry"]],
        "signed-apple/lucardio-starbucks-storecard-2012.pkpass": [["pass.missing-key"], ["signature.signer-team-mismatch"]],
        "signed-apple/lucardio-event-cmsdigest-2012.pkpass": [
            ["pass.missing-key"], ["signature.digest-mismatch"], ["signature.signer-team-mismatch"],
        ],
        "signed-apple/mahmoudfaleh-badjson-2024.pkpass": [["pass.invalid"], ["manifest.hash-mismatch"]],
        "signed-other/dotnet-passbook-event-nocerts-2012.pkpass": [["signature.signer-certificate-missing"]],
        "signed-other/rewardjar-storecard-selfsigned.pkpass": [["certificate.untrusted"]],
        "signed-other/acnepatch-coupon-fakesig.pkpass": [["signature.invalid-encoding", "signature.not-der"]],
        "signed-other/skyline-boardingpass-fakesig.pkpass": [
            ["archive.missing-file"], ["signature.invalid-encoding", "signature.not-der"],
        ],
        "signed-other/rewardjar-storecard-fakesig.pkpass": [["signature.invalid-encoding", "signature.not-der"]],
        "malformed/passandroid-broken-notzip.pkpass": [["zip.unreadable"]],
    ]

    static let verifier = try! PassArchiveVerifier()

    static func reports(_ entry: RealPasses.Entry) throws -> [ValidationReport] {
        let bytes = try RealPasses.bytes(entry.file)
        if entry.file.hasSuffix(".pkpasses") {
            return PassBundle.verify(bytes: bytes, subject: entry.file, with: verifier, now: RealPasses.now)
        }
        return [verifier.verify(archiveBytes: bytes, subject: entry.file, now: RealPasses.now)]
    }

    @Test("The real passes are beside the repository, all 62 of them")
    func corpusIsThere() {
        #expect(RealPasses.folder != nil, "../shared/reference/real-passes is missing (or set WALLET_ORDERS_REAL_PASSES)")
        #expect(RealPasses.entries.count == 62)
    }

    @Test("Each pass Wallet accepts verifies without an error", arguments: RealPasses.entries.filter { $0.verdict == "accept" }.map(\.file))
    func accepted(_ file: String) throws {
        let entry = try #require(RealPasses.entries.first { $0.file == file })
        for report in try Self.reports(entry) {
            let errors = report.diagnostics.filter { $0.severity == .error }
            #expect(errors.isEmpty, "\(report.subject): \(errors.map { "\($0.ruleID): \($0.message)" })")
        }
    }

    @Test(
        "Each pass whose verdict is uncertain verifies with a warning saying what is uncertain",
        arguments: RealPasses.entries.filter { $0.verdict == "uncertain" }.map(\.file))
    func uncertain(_ file: String) throws {
        let entry = try #require(RealPasses.entries.first { $0.file == file })
        let report = try #require(try Self.reports(entry).first)
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map { "\($0.ruleID): \($0.message)" })")
        // Every uncertain pass of the corpus lacks the WWDR intermediate that issued it.
        let warning = report.diagnostics.first { $0.ruleID == "signature.intermediate-not-included" }
        #expect(warning?.severity == .warning)
        #expect(warning?.message.contains("no device test settles it") == true)
    }

    @Test(
        "Each pass Wallet refuses is refused with the rule naming its fault",
        arguments: RealPasses.entries.filter { $0.verdict == "refuse" }.map(\.file))
    func refused(_ file: String) throws {
        let entry = try #require(RealPasses.entries.first { $0.file == file })
        let reports = try Self.reports(entry)
        if file.hasSuffix(".pkpasses") {
            // Wallet adds each pass of a bundle on its own: every one of this bundle is refused.
            let passes = reports.filter { $0.subject.hasSuffix(".pkpass") }
            #expect(!passes.isEmpty)
            for report in passes {
                #expect(report.diagnostics.contains { $0.severity == .error }, "\(report.subject)")
            }
            return
        }
        let report = try #require(reports.first)
        let errorRules = Set(report.diagnostics.filter { $0.severity == .error }.map(\.ruleID))
        if let expected = Self.refusalRules[file] {
            for alternatives in expected {
                #expect(!errorRules.isDisjoint(with: alternatives), "\(file): expected one of \(alternatives), got \(errorRules.sorted())")
            }
        } else {
            // The unsigned passes: no signature (Wallet: "Signature is missing").
            #expect(file.hasPrefix("unsigned/"), "\(file) has no row in the refusal table")
            let missing = report.diagnostics.first { $0.ruleID == "archive.missing-file" && $0.location.file == "signature" }
            #expect(missing?.message.contains("Signature is missing") == true, "\(file): \(errorRules.sorted())")
        }
    }

    @Test("A genuine certificate whose marker names another pass type is refused for the marker, not the UID")
    func markerNotUID() throws {
        let report = try Self.reports(try #require(RealPasses.entries.first { $0.file.contains("bad-marker") }))[0]
        let finding = try #require(report.diagnostics.first { $0.ruleID == "signature.signer-pass-type-mismatch" })
        #expect(finding.location.file == "pass.json")
        // At the passTypeIdentifier key of pass.json, as a reader counts its lines.
        let entry = try #require(RealPasses.entries.first { $0.file.contains("bad-marker") })
        let passJSON = String(decoding: try #require(try PassArchive(bytes: RealPasses.bytes(entry.file)).contents(of: "pass.json")), as: UTF8.self)
        let keyLine = try #require(
            passJSON.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"passTypeIdentifier\"") })
        #expect(finding.location.line == keyLine + 1)
        #expect(finding.message.contains("may not match your certificate"))
    }

    @Test("The Apple-signed passes with a trailing comma are accepted with a warning at its line and column")
    func trailingComma() throws {
        let report = try Self.reports(try #require(RealPasses.entries.first { $0.file == "signed-apple/apple-devpubs-boardingpass-2015.pkpass" }))[0]
        let finding = try #require(report.diagnostics.first { $0.ruleID == "json.trailing-comma" })
        #expect(finding.severity == .warning)
        #expect(finding.location.file == "pass.json")
        // The comma itself (Python's json names the '}' after it, on line 76).
        #expect(finding.location.line == 75)
    }
}
