import Foundation
import Testing
import WalletOrdersTestSupport
import WalletPasses

/// `validate` of a pass: each mistake of the passes specification's list is named by its rule at
/// its line and column in pass.json, and every real pass Wallet accepts validates without an error.
@Suite struct PassValidationTests {
    static let validator = try! PassValidator()

    /// A pass that validates clean (the specification's minimal pass, §3.12), with Apple's
    /// sample icon; `edit` changes its text.
    static func report(_ edit: (String) -> String = { $0 }, dropIcon: Bool = false) throws -> ValidationReport {
        let json = """
            {
              "formatVersion": 1,
              "passTypeIdentifier": "pass.com.example.member",
              "serialNumber": "M-000123",
              "teamIdentifier": "ABCDE12345",
              "organizationName": "Example",
              "description": "Example membership",
              "generic": {
                "primaryFields": [{"key": "name", "label": "Member", "value": "Ada"}],
                "secondaryFields": [{"key": "level", "label": "Level", "value": "Gold"}]
              }
            }
            """
        let icon = try RealPasses.bytes("sources/apple-devpubs-boardingpass.pass/icon.png")
        var files: [String: [UInt8]] = ["pass.json": Array(edit(json).utf8)]
        if !dropIcon { files["icon.png"] = icon }
        return validator.validate(PassSource(files: files), subject: "pass")
    }

    @Test("The minimal pass of the specification validates without an error or warning (its icon at @1x only is a note)")
    func minimalPassIsClean() throws {
        let report = try Self.report()
        #expect(report.diagnostics.map(\.ruleID) == ["images.missing-scale"], "\(report.diagnostics)")
    }

    @Test("Images are checked against their style and their size in points at each scale")
    func images() throws {
        let icon = try RealPasses.bytes("sources/apple-devpubs-boardingpass.pass/icon.png")
        var files: [String: [UInt8]] = [
            "icon.png": icon, "icon@2x.png": icon, "icon@3x.png": icon, "footer.png": icon, "strip.png": Array("not a png".utf8),
        ]
        files["pass.json"] = Array(
            #"{"formatVersion": 1, "passTypeIdentifier": "pass.x", "serialNumber": "1", "teamIdentifier": "T", "organizationName": "O", "description": "D", "coupon": {}}"#
                .utf8)
        let report = Self.validator.validate(PassSource(files: files), subject: "pass")
        let rules = report.diagnostics.map { "\($0.location.file ?? ""): \($0.ruleID)" }
        #expect(rules.contains("footer.png: images.unused-for-style"), "\(rules)")
        #expect(rules.contains("icon@2x.png: images.size"), "\(rules)")  // a 29×29 image where 58×58 belongs
        #expect(rules.contains("strip.png: images.not-png"), "\(rules)")
        #expect(!rules.contains("icon.png: images.size"), "\(rules)")
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    @Test("A posterGeneric pass with its generic twin uses the images either style shows: the twin's logo and thumbnail are not unused")
    func posterGenericTwinImages() throws {
        let icon = try RealPasses.bytes("sources/apple-devpubs-boardingpass.pass/icon.png")
        let files: [String: [UInt8]] = [
            "icon.png": icon, "logo.png": icon, "thumbnail.png": icon, "background.png": icon, "footer.png": icon,
            "pass.json": Array(
                #"{"formatVersion": 1, "passTypeIdentifier": "pass.x", "serialNumber": "1", "teamIdentifier": "T", "organizationName": "O", "description": "D", "posterGeneric": {}, "generic": {}}"#
                    .utf8),
        ]
        let unused = Self.validator.validate(PassSource(files: files), subject: "pass").diagnostics.filter { $0.ruleID == "images.unused-for-style" }
        #expect(unused.map(\.location.file) == ["footer.png"], "\(unused)")
        #expect(unused.first?.message.contains("a posterGeneric and generic pass") == true, "\(unused)")
    }

    @Test("Values that suit their options, and IANA encodings their messages fit, raise nothing")
    func wellFormattedFields() throws {
        let report = try Self.report {
            $0.replacingOccurrences(
                of: "\"value\": \"Ada\"}",
                with: #""value": "2027-05-15T08:00:00.000+02:00", "dateStyle": "PKDateStyleShort", "timeStyle": "PKDateStyleNone", "row": 1}"#
            )
            .replacingOccurrences(of: "\"value\": \"Gold\"}", with: #""value": 21.75, "currencyCode": "USD"}"#)
            .replacingOccurrences(
                of: "  \"generic\"",
                with: #"""
                      "barcodes": [{"format": "PKBarcodeFormatQR", "message": "Zoë 10 €", "messageEncoding": "UTF-8"}, {"format": "PKBarcodeFormatPDF417", "message": "Zoë", "messageEncoding": "ISO-8859-1"}, {"format": "PKBarcodeFormatAztec", "message": "– €", "messageEncoding": "windows-1252"}],
                      "nfc": {"message": "M-000123", "encryptionPublicKey": "MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgACWpF1zC3h+dCh+eWyqV8unVddh2LQaUoV8LQrgb3BKkM="},
                      "generic"
                    """#)
        }
        #expect(report.diagnostics.filter { $0.ruleID != "images.missing-scale" }.isEmpty, "\(report.diagnostics)")
    }

    struct Mistake: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: @Sendable (String) -> String
        var dropIcon = false
        var rule: String
        var line: Int?
        var message: String?
        var testDescription: String { name }
    }

    static let elevenLocations = Array(repeating: #"{"latitude": 48.1, "longitude": 11.5}"#, count: 11).joined(separator: ", ")

    static let mistakes: [Mistake] = [
        Mistake(name: "no icon", edit: { $0 }, dropIcon: true, rule: "pass.icon-missing", message: "Pass does not contain icon.png"),
        Mistake(
            name: "no description", edit: { $0.replacingOccurrences(of: "  \"description\": \"Example membership\",\n", with: "") },
            rule: "pass.missing-key", message: "Pass dictionary must contain key 'description'."),
        Mistake(
            name: "no style", edit: { $0.replacingOccurrences(of: "\"generic\"", with: "\"genric\"") }, rule: "pass.style-missing",
            line: 1, message: "must have an entry for one of"),
        Mistake(
            name: "two styles", edit: { $0.replacingOccurrences(of: "  \"generic\": {", with: "  \"coupon\": {},\n  \"generic\": {") },
            rule: "pass.style-multiple", line: 9),
        Mistake(
            name: "a field key used twice, in secondary fields (logged)",
            edit: { $0.replacingOccurrences(of: "\"key\": \"level\"", with: "\"key\": \"name\"") }, rule: "fields.duplicate-key-logged",
            line: 10, message: "more than one field has the key 'name'"),
        Mistake(
            name: "a field key used twice, in auxiliary fields (refused)",
            edit: {
                $0.replacingOccurrences(
                    of: "\"value\": \"Gold\"}]", with: "\"value\": \"Gold\"}],\n    \"auxiliaryFields\": [{\"key\": \"name\", \"value\": \"Ada\"}]")
            }, rule: "fields.duplicate-key", line: 11),
        Mistake(
            name: "a change message without %@",
            edit: { $0.replacingOccurrences(of: "\"label\": \"Member\",", with: "\"label\": \"Member\", \"changeMessage\": \"Member changed\",") },
            rule: "fields.change-message", line: 9, message: "needs to contain %%@"),
        Mistake(
            name: "a change message with two placeholders",
            edit: {
                $0.replacingOccurrences(of: "\"label\": \"Level\",", with: "\"label\": \"Level\", \"changeMessage\": \"%@ is now %@\",")
            }, rule: "fields.change-message-logged", line: 10, message: "more than one %@"),
        Mistake(
            name: "more header fields than Wallet shows",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\": {\n",
                    with:
                        "  \"generic\": {\n    \"headerFields\": [{\"key\": \"h1\", \"value\": \"1\"}, {\"key\": \"h2\", \"value\": \"2\"}, {\"key\": \"h3\", \"value\": \"3\"}, {\"key\": \"h4\", \"value\": \"4\"}],\n"
                )
            }, rule: "fields.too-many", line: 9, message: "at most 3"),
        Mistake(
            name: "formatVersion 2", edit: { $0.replacingOccurrences(of: "\"formatVersion\": 1", with: "\"formatVersion\": 2") },
            rule: "schema.const", line: 2),
        Mistake(
            name: "a colour in no format Wallet reads",
            edit: { $0.replacingOccurrences(of: "  \"generic\"", with: "  \"backgroundColor\": \"blue\",\n  \"generic\"") },
            rule: "schema.pattern", line: 8),
        Mistake(
            name: "a date without a time zone",
            edit: { $0.replacingOccurrences(of: "  \"generic\"", with: "  \"expirationDate\": \"2026-12-31T23:59\",\n  \"generic\"") },
            rule: "schema.pattern", line: 8),
        Mistake(
            name: "a latitude out of range",
            edit: {
                $0.replacingOccurrences(of: "  \"generic\"", with: "  \"locations\": [{\"latitude\": 100, \"longitude\": 2}],\n  \"generic\"")
            }, rule: "schema.range", line: 8),
        Mistake(
            name: "a web service over http",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with: "  \"webServiceURL\": \"http://example.com/passes\",\n  \"authenticationToken\": \"0123456789abcdef0123\",\n  \"generic\"")
            }, rule: "pass.web-service-not-https", line: 8, message: "needs to be an https rather than http"),
        Mistake(
            name: "an authentication token under 16 characters",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with: "  \"webServiceURL\": \"https://example.com/passes\",\n  \"authenticationToken\": \"short\",\n  \"generic\"")
            }, rule: "schema.length", line: 9),
        Mistake(
            name: "a web service without a token",
            edit: { $0.replacingOccurrences(of: "  \"generic\"", with: "  \"webServiceURL\": \"https://example.com/passes\",\n  \"generic\"") },
            rule: "schema.dependent-required", line: 8),
        Mistake(
            name: "a misspelt key",
            edit: {
                $0.replacingOccurrences(
                    of: "\"organizationName\": \"Example\",", with: "\"organizationName\": \"Example\",\n  \"logoTxt\": \"Example\",")
            },
            rule: "schema.unknown-key", line: 7, message: "Unknown key 'logoTxt'"),
        Mistake(
            name: "a poster event ticket without its semantics",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\": {", with: "  \"preferredStyleSchemes\": [\"posterEventTicket\", \"eventTicket\"],\n  \"eventTicket\": {")
            }, rule: "layout.poster-falls-back", line: 8, message: "shows as a classic event ticket"),
        Mistake(
            name: "a semantic boarding pass that isn't a flight",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\": {",
                    with:
                        "  \"preferredStyleSchemes\": [\"semanticBoardingPass\", \"boardingPass\"],\n  \"boardingPass\": {\"transitType\": \"PKTransitTypeTrain\","
                )
            }, rule: "layout.semantic-boarding-falls-back", line: 8),
        Mistake(
            name: "posterGeneric without generic", edit: { $0.replacingOccurrences(of: "  \"generic\": {", with: "  \"posterGeneric\": {") },
            rule: "layout.poster-generic-without-generic", line: 8, message: "iOS 26 and earlier can't add the pass"),
        Mistake(
            name: "a barcode only iOS 27 draws",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with:
                        "  \"barcodes\": [{\"format\": \"PKBarcodeFormatEAN13\", \"message\": \"4006381333931\", \"messageEncoding\": \"iso-8859-1\"}],\n  \"generic\""
                )
            }, rule: "layout.barcode-without-fallback", line: 8),
        Mistake(
            name: "a date style on a value that is no date (a primary field: refused)",
            edit: { $0.replacingOccurrences(of: "\"label\": \"Member\",", with: "\"label\": \"Member\", \"dateStyle\": \"PKDateStyleShort\",") },
            rule: "fields.invalid", line: 9, message: "this should be a string parseable as a date"),
        Mistake(
            name: "a currency code on a string value (a secondary field: logged)",
            edit: { $0.replacingOccurrences(of: "\"label\": \"Level\",", with: "\"label\": \"Level\", \"currencyCode\": \"USD\",") },
            rule: "fields.invalid-logged", line: 10, message: "isn't a number"),
        Mistake(
            name: "both a number style and a currency code",
            edit: {
                $0.replacingOccurrences(
                    of: "\"value\": \"Ada\"}", with: "\"value\": 12.5, \"numberStyle\": \"PKNumberStyleDecimal\", \"currencyCode\": \"EUR\"}")
            }, rule: "fields.invalid", line: 9, message: "both a numberStyle and a currencyCode"),
        Mistake(
            name: "an auxiliary row past the second",
            edit: { $0.replacingOccurrences(of: "\"label\": \"Member\",", with: "\"label\": \"Member\", \"row\": 2,") },
            rule: "fields.invalid", line: 9, message: "two rows"),
        Mistake(
            name: "a legacy barcode its encoding can't hold",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with:
                        "  \"barcode\": {\"format\": \"PKBarcodeFormatQR\", \"message\": \"Zoë\", \"messageEncoding\": \"us-ascii\"},\n  \"generic\"")
            }, rule: "pass.barcode-encoding", line: 8, message: "isn't encodable with encoding 'us-ascii'"),
        Mistake(
            name: "a barcode of the array its encoding can't hold (logged)",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with:
                        "  \"barcodes\": [{\"format\": \"PKBarcodeFormatQR\", \"message\": \"10 €\", \"messageEncoding\": \"iso-8859-1\"}],\n  \"generic\""
                )
            }, rule: "pass.barcode-encoding-logged", line: 8, message: "U+20AC"),
        Mistake(
            name: "a barcode encoding that is no character set name",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"",
                    with:
                        "  \"barcodes\": [{\"format\": \"PKBarcodeFormatQR\", \"message\": \"M-1\", \"messageEncoding\": \"latin-1\"}],\n  \"generic\""
                )
            }, rule: "pass.barcode-encoding-unknown", line: 8, message: "is not an IANA character set name"),
        Mistake(
            name: "an NFC key that is no P-256 public key",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"", with: "  \"nfc\": {\"message\": \"M-1\", \"encryptionPublicKey\": \"bm90IGEga2V5\"},\n  \"generic\"")
            },
            rule: "pass.nfc-key", line: 8, message: "Valid curves are secp256r1"),
        Mistake(
            name: "an NFC payload over 64 bytes",
            edit: {
                $0.replacingOccurrences(
                    of: "  \"generic\"", with: "  \"nfc\": {\"message\": \"\(String(repeating: "x", count: 65))\"},\n  \"generic\"")
            },
            rule: "pass.nfc-message-length", line: 8, message: "65 bytes"),
        Mistake(
            name: "Apple's sharing key", edit: { $0.replacingOccurrences(of: "  \"generic\"", with: "  \"sharing\": {},\n  \"generic\"") },
            rule: "pass.reserved-key", line: 8,
            message: "Pass is not permitted to contain the sharing key."),
        Mistake(
            name: "a key only Apple's passes use", edit: { $0.replacingOccurrences(of: "  \"generic\"", with: "  \"cardType\": 1,\n  \"generic\"") },
            rule: "pass.reserved-key-unread", line: 8),
        Mistake(
            name: "eleven locations",
            edit: {
                $0.replacingOccurrences(of: "  \"generic\"", with: "  \"locations\": [\(Self.elevenLocations)],\n  \"generic\"")
            }, rule: "pass.too-many-entries", line: 8, message: "at most 10"),
        Mistake(
            name: "a boarding pass without transitType",
            edit: { $0.replacingOccurrences(of: "  \"generic\": {", with: "  \"boardingPass\": {") }, rule: "pass.missing-key", line: 8,
            message: "Pass dictionary must contain key 'transitType'."),
        Mistake(
            name: "a trailing comma", edit: { $0.replacingOccurrences(of: "\"value\": \"Gold\"}]", with: "\"value\": \"Gold\"},]") },
            rule: "json.trailing-comma", line: 10),
    ]

    @Test("Each mistake is named by its rule, in pass.json at its line", arguments: mistakes)
    func mistake(_ mistake: Mistake) throws {
        let report = try Self.report(mistake.edit, dropIcon: mistake.dropIcon)
        let finding = try #require(report.diagnostics.first { $0.ruleID == mistake.rule }, "\(report.diagnostics)")
        if let line = mistake.line {
            #expect(finding.location.file == "pass.json")
            #expect(finding.location.line == line, "\(finding)")
            #expect((finding.location.column ?? 0) >= 1)
        }
        if let message = mistake.message { #expect(finding.message.contains(message), "\(finding.message)") }
        // One mistake, one error at most: no other rule reports the same fault.
        #expect(report.errors.count <= 1, "\(report.errors)")
    }

    @Test(
        "Every real pass Wallet accepts validates without an error (keys Apple doesn't document are warnings)",
        arguments: RealPasses.entries.filter { $0.verdict == "accept" && $0.file.hasSuffix(".pkpass") }.map(\.file))
    func realAcceptedPasses(_ file: String) throws {
        let report = Self.validator.validate(archiveBytes: try RealPasses.bytes(file), subject: file, now: RealPasses.now)
        #expect(report.errors.isEmpty, "\(report.errors.map { "\($0.location): \($0.ruleID): \($0.message)" })")
    }
}
