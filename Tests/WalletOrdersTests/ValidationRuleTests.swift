import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// One negative case per content rule: start from a valid sample, break exactly one thing, and
/// expect exactly that rule, at that place, with that severity.
@Suite struct ValidationRuleTests {
    static let validator: OrderValidator = try! OrderValidator(verifier: TestPKI.verifier)

    /// A sample's files, changed by `change`.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var sample: String
        var change: @Sendable (inout Files) throws -> Void
        /// The findings expected: rule, severity, file and JSON pointer (nil: not checked).
        var expected: [Expected]
        var testDescription: String { name }
    }

    struct Expected: Sendable, Hashable, CustomStringConvertible {
        var rule: String
        var severity: Diagnostic.Severity
        var file: String
        var pointer: String?
        var description: String { "\(severity)[\(rule)] \(file) \(pointer ?? "")" }
    }

    /// A sample's files with JSON editing helpers.
    struct Files {
        var all: [String: [UInt8]]

        /// order.json as plain Swift values (`[String: Any]`, `[Any]`, …).
        var order: [String: Any] {
            get { (try? JSONSerialization.jsonObject(with: Data(all["order.json"]!))) as? [String: Any] ?? [:] }
            set {
                all["order.json"] = Array(
                    (try? JSONSerialization.data(withJSONObject: newValue, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
                )
            }
        }

        /// The value at a JSON Pointer in order.json.
        func get(_ pointer: String) -> Any? {
            Self.tokens(pointer).reduce(Any?(order)) { node, token in
                if let object = node as? [String: Any] { return object[token] }
                if let array = node as? [Any], let index = Int(token), array.indices.contains(index) { return array[index] }
                return nil
            }
        }

        /// Sets (or with `nil` removes) the value at a JSON Pointer in order.json.
        mutating func set(_ pointer: String, _ value: Any?) {
            order = Self.setting(order, Self.tokens(pointer)[...], value) as? [String: Any] ?? [:]
        }

        /// Appends a copy of element 0 of the array at `pointer`.
        mutating func duplicateFirst(_ pointer: String) {
            guard let array = get(pointer) as? [Any], let first = array.first else { return }
            set(pointer, array + [first])
        }

        static func tokens(_ pointer: String) -> [String] { pointer.split(separator: "/").map(String.init) }

        static func setting(_ node: Any, _ tokens: ArraySlice<String>, _ value: Any?) -> Any {
            guard let token = tokens.first else { return value as Any }
            if var object = node as? [String: Any] {
                if tokens.count == 1, value == nil {
                    object[token] = nil
                } else {
                    object[token] = setting(object[token] as Any, tokens.dropFirst(), value)
                }
                return object
            }
            if var array = node as? [Any], let index = Int(token) {
                array[index] = setting(array[index], tokens.dropFirst(), value)
                return array
            }
            return node
        }

        func strings(_ folder: String) -> String {
            let bytes = all["\(folder)/order.strings"]!
            if bytes.starts(with: [0xFF, 0xFE]) {
                let units = stride(from: 2, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
                return String(decoding: units, as: UTF16.self)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// PNG header bytes (signature + IHDR) for a given size and colour type: all the sniffing reads.
    static func pngHeader(width: UInt32, height: UInt32, colorType: UInt8 = 2) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        bytes += [8, colorType, 0, 0, 0, 0, 0, 0, 0]
        return bytes
    }

    /// Where the `localized` sample's order.json uses a key of its order.strings files.
    static let localizedKeyPointers = [
        "/statusDescription", "/merchant/displayName", "/lineItems/0/title", "/lineItems/0/subtitle", "/lineItems/1/title",
        "/lineItems/1/subtitle", "/payment/summaryItems/0/label", "/payment/summaryItems/1/label", "/fulfillments/0/statusDescription",
        "/fulfillments/0/notes", "/barcode/altText",
    ]

    static let cases: [Case] = [
        Case(
            name: "updated-before-created", sample: "shipped-ecommerce",
            change: { files in
                files.set("/updatedAt", "2020-01-01T00:00:00Z")
            }, expected: [.init(rule: "order.updated-before-created", severity: .error, file: "order.json", pointer: "/updatedAt")]),
        Case(
            name: "updated-at-in-future", sample: "shipped-ecommerce",
            change: { files in
                files.set("/updatedAt", "9999-12-31T23:59:59Z")
            }, expected: [.init(rule: "order.updated-at-in-future", severity: .warning, file: "order.json", pointer: "/updatedAt")]),
        Case(
            name: "shipped-before-order-created", sample: "shipped-ecommerce",
            change: { files in
                files.set("/fulfillments/0/shippedAt", "2020-01-01T00:00:00Z")
            }, expected: [.init(rule: "dates.before-order-created", severity: .warning, file: "order.json", pointer: "/fulfillments/0/shippedAt")]),
        Case(
            name: "delivered-before-shipped", sample: "returns-and-transactions",
            change: { files in
                let delivered = try Timestamp(rfc3339: try #require(files.get("/fulfillments/0/deliveredAt") as? String))
                files.set("/fulfillments/0/shippedAt", Timestamp(delivered.date.addingTimeInterval(3_600)).text)
            }, expected: [.init(rule: "dates.out-of-order", severity: .warning, file: "order.json", pointer: "/fulfillments/0/deliveredAt")]),
        Case(
            name: "returned-before-initiated", sample: "returns-and-transactions",
            change: { files in
                files.set("/returns/0/returnedAt", "2025-03-10T18:00:00Z")
            }, expected: [.init(rule: "dates.out-of-order", severity: .warning, file: "order.json", pointer: "/returns/0/returnedAt")]),
        Case(
            name: "delivered-without-delivery-date", sample: "returns-and-transactions",
            change: { files in
                files.set("/fulfillments/0/deliveredAt", nil)
            }, expected: [.init(rule: "dates.status-mismatch", severity: .warning, file: "order.json", pointer: "/fulfillments/0/status")]),
        Case(
            name: "picked-up-without-pickup-date", sample: "store-pickup",
            change: { files in
                files.set("/fulfillments/0/status", "pickedUp")
            }, expected: [.init(rule: "dates.status-mismatch", severity: .warning, file: "order.json", pointer: "/fulfillments/0/status")]),
        Case(
            name: "currency-usb-typo", sample: "shipped-ecommerce",
            change: { files in
                files.set("/lineItems/0/price/currency", "USB")
            }, expected: [.init(rule: "money.unknown-currency", severity: .error, file: "order.json", pointer: "/lineItems/0/price/currency")]),
        Case(
            name: "yen-with-decimals", sample: "store-pickup",
            change: { files in
                files.set("/lineItems/0/price/amount", "8800.50")
            }, expected: [.init(rule: "money.minor-units", severity: .warning, file: "order.json", pointer: "/lineItems/0/price/amount")]),
        Case(
            name: "amount-as-json-number", sample: "shipped-ecommerce",
            change: { files in
                files.set("/lineItems/0/price/amount", 89.5)
            }, expected: [.init(rule: "money.amount-number", severity: .warning, file: "order.json", pointer: "/lineItems/0/price/amount")]),
        Case(
            name: "summary-item-in-other-currency", sample: "shipped-ecommerce",
            change: { files in
                files.set("/payment/summaryItems/0/value/currency", "EUR")
            },
            expected: [
                .init(rule: "money.currency-mismatch", severity: .warning, file: "order.json", pointer: "/payment/summaryItems/0/value/currency")
            ]),
        Case(
            name: "country-uk-not-iso", sample: "shipped-ecommerce",
            change: { files in
                files.set("/fulfillments/0/recipient/address/countryCode", "UK")
            },
            expected: [
                .init(rule: "address.unknown-country", severity: .error, file: "order.json", pointer: "/fulfillments/0/recipient/address/countryCode")
            ]),
        Case(
            name: "image-reference-missing", sample: "shipped-ecommerce",
            change: { files in
                files.set("/lineItems/0/image", "nope.png")  // backpack.png stays: the fulfillment's line item names it
            }, expected: [.init(rule: "files.missing-reference", severity: .error, file: "order.json", pointer: "/lineItems/0/image")]),
        Case(
            name: "image-is-not-png", sample: "shipped-ecommerce",
            change: { files in
                files.all["backpack.png"] = Array("<html>not found</html>".utf8)
            }, expected: [.init(rule: "files.wrong-type", severity: .error, file: "backpack.png", pointer: nil)]),
        Case(
            name: "logo-64-pixels", sample: "shipped-ecommerce",
            change: { files in
                files.all["logo.png"] = pngHeader(width: 64, height: 64)
            }, expected: [.init(rule: "files.image-size", severity: .warning, file: "logo.png", pointer: nil)]),
        Case(
            name: "logo-with-alpha", sample: "shipped-ecommerce",
            change: { files in
                files.all["logo.png"] = pngHeader(width: 300, height: 300, colorType: 6)
            }, expected: [.init(rule: "files.image-transparency", severity: .warning, file: "logo.png", pointer: nil)]),
        Case(
            name: "unreferenced-file", sample: "shipped-ecommerce",
            change: { files in
                files.all["coupon.png"] = pngHeader(width: 300, height: 300)
            }, expected: [.init(rule: "files.unreferenced", severity: .info, file: "coupon.png", pointer: nil)]),
        Case(
            name: "localized-logo-missing-in-fr", sample: "localized",
            change: { files in
                files.all["fr.lproj/logo.png"] = nil
            }, expected: [.init(rule: "files.missing-reference", severity: .error, file: "order.json", pointer: "/merchant/logo")]),
        Case(
            name: "zh-hans-lacks-3x-logo", sample: "localized",
            change: { files in
                files.all["zh-Hans.lproj/logo@3x.png"] = nil
            }, expected: [.init(rule: "files.variants-inconsistent", severity: .warning, file: "order.json", pointer: "/merchant/logo")]),
        Case(
            name: "lproj-with-underscore", sample: "localized",
            change: { files in
                for (path, bytes) in files.all where path.hasPrefix("fr.lproj/") {
                    files.all[path] = nil
                    files.all["fr_FR.lproj/" + path.dropFirst("fr.lproj/".count)] = bytes
                }
            }, expected: [.init(rule: "localization.invalid-folder-name", severity: .error, file: "fr_FR.lproj/", pointer: nil)]),
        Case(
            name: "lproj-without-order-strings", sample: "localized",
            change: { files in
                files.all["fr.lproj/order.strings"] = nil
            },
            expected: [.init(rule: "localization.missing-strings", severity: .warning, file: "fr.lproj/", pointer: nil)]),
        Case(
            name: "top-level-logo-replaces-the-localized-ones", sample: "localized",
            change: { files in
                files.all["logo.png"] = files.all["en.lproj/logo.png"]
            }, expected: [.init(rule: "localization.top-level-file-overrides", severity: .warning, file: "logo.png", pointer: nil)]),
        Case(
            name: "localization-key-off-by-case", sample: "localized",
            change: { files in
                files.set("/merchant/displayName", "Merchant_Name")
            }, expected: [.init(rule: "localization.key-near-miss", severity: .warning, file: "order.json", pointer: "/merchant/displayName")]),
        Case(
            name: "localization-key-off-by-one-edit", sample: "localized",
            change: { files in
                files.set("/lineItems/0/title", "ITEM_1_TITEL")
            }, expected: [.init(rule: "localization.key-near-miss", severity: .warning, file: "order.json", pointer: "/lineItems/0/title")]),
        Case(
            name: "fulfillment-without-type-keeps-its-unknown-keys", sample: "shipped-ecommerce",
            change: { files in
                files.set("/fulfillments/0/fulfillmentType", nil)
                files.set("/fulfillments/0/estimatedDeliveryDate", files.get("/fulfillments/0/estimatedDeliveryAt"))
                files.set("/fulfillments/0/estimatedDeliveryAt", nil)
            },
            expected: [
                .init(rule: "schema.required", severity: .error, file: "order.json", pointer: "/fulfillments/0"),
                .init(rule: "schema.unknown-key", severity: .warning, file: "order.json", pointer: "/fulfillments/0/estimatedDeliveryDate"),
            ]),
        Case(
            name: "status-of-the-wrong-type-is-one-finding", sample: "shipped-ecommerce",
            change: { files in
                files.set("/status", 5)
            }, expected: [.init(rule: "schema.type", severity: .error, file: "order.json", pointer: "/status")]),
        Case(
            name: "missing-top-level-key", sample: "shipped-ecommerce",
            change: { files in
                files.set("/orderManagementURL", nil)
            }, expected: [.init(rule: "schema.required", severity: .error, file: "order.json", pointer: "")]),
        Case(
            name: "pass-strings-instead-of-order-strings", sample: "localized",
            change: { files in
                files.all["fr.lproj/pass.strings"] = files.all.removeValue(forKey: "fr.lproj/order.strings")
            },
            expected: [
                .init(rule: "localization.pass-strings", severity: .error, file: "fr.lproj/pass.strings", pointer: nil),
                .init(rule: "localization.missing-strings", severity: .warning, file: "fr.lproj/", pointer: nil),
            ]),
        Case(
            name: "strings-missing-semicolon", sample: "localized",
            change: { files in
                files.all["en.lproj/order.strings"] = Array(files.strings("en.lproj").replacingOccurrences(of: "\";\n", with: "\"\n").utf8)
            }, expected: [.init(rule: "localization.strings-syntax", severity: .error, file: "en.lproj/order.strings", pointer: nil)]),
        Case(
            name: "key-used-by-order-json-missing-in-zh-hans", sample: "localized",
            change: { files in
                let lines = files.strings("zh-Hans.lproj").split(separator: "\n", omittingEmptySubsequences: false)
                files.all["zh-Hans.lproj/order.strings"] = Array(lines.filter { !$0.hasPrefix("\"MERCHANT_NAME\"") }.joined(separator: "\n").utf8)
            },
            expected: [
                .init(rule: "localization.keys-differ", severity: .error, file: "zh-Hans.lproj/order.strings", pointer: nil),
                .init(rule: "localization.undefined-key", severity: .error, file: "order.json", pointer: "/merchant/displayName"),
            ]),
        Case(
            name: "strings-latin1-bytes", sample: "localized",
            change: { files in
                files.all["fr.lproj/order.strings"] = Array("\"MERCHANT_NAME\" = \"Maison Lumi".utf8) + [0xE8, 0x72, 0x65] + Array("\";\n".utf8)
            }, expected: [.init(rule: "localization.strings-encoding", severity: .error, file: "fr.lproj/order.strings", pointer: nil)]),
        Case(
            name: "strings-keys-differ", sample: "localized",
            change: { files in
                files.all["en.lproj/order.strings"] = Array((files.strings("en.lproj") + "\"EXTRA_KEY\" = \"Extra\";\n").utf8)
            },
            expected: [
                .init(rule: "localization.keys-differ", severity: .error, file: "fr.lproj/order.strings", pointer: nil),
                .init(rule: "localization.keys-differ", severity: .error, file: "zh-Hans.lproj/order.strings", pointer: nil),
            ]),
        Case(
            name: "strings-duplicate-key", sample: "localized",
            change: { files in
                let text = files.strings("en.lproj")
                let firstLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("\"") })
                files.all["en.lproj/order.strings"] = Array((text + firstLine + "\n").utf8)
            }, expected: [.init(rule: "localization.duplicate-key", severity: .warning, file: "en.lproj/order.strings", pointer: nil)]),
        Case(
            name: "strings-non-ascii-in-utf8", sample: "localized",
            change: { files in
                files.all["fr.lproj/order.strings"] = Array(files.strings("fr.lproj").utf8)
            },
            expected: [
                .init(rule: "localization.non-ascii-utf8", severity: .info, file: "fr.lproj/order.strings", pointer: nil),
                // the sample's en is UTF-8
                .init(rule: "localization.non-ascii-utf8", severity: .info, file: "en.lproj/order.strings", pointer: nil),
            ]),
        Case(
            name: "duplicate-fulfillment-identifier", sample: "shipped-ecommerce",
            change: { files in
                files.duplicateFirst("/fulfillments")
            },
            expected: [
                .init(
                    rule: "uniqueness.fulfillment-identifier", severity: .error, file: "order.json", pointer: "/fulfillments/1/fulfillmentIdentifier")
            ]),
        Case(
            name: "duplicate-return-identifier", sample: "returns-and-transactions",
            change: { files in
                files.duplicateFirst("/returns")
            }, expected: [.init(rule: "uniqueness.return-identifier", severity: .error, file: "order.json", pointer: "/returns/1/returnIdentifier")]),
        Case(
            // Seen: the order init wrote had no webServiceURL, so it could never be updated.
            name: "no-web-service", sample: "shipped-ecommerce",
            change: { files in
                files.set("/webServiceURL", nil)
                files.set("/authenticationToken", nil)
            }, expected: [.init(rule: "order.no-web-service", severity: .info, file: "order.json", pointer: "")]),
        Case(
            // Apple's reader takes it (Apple-signed passes with one are shown by Wallet): a warning, the order read as if it weren't there.
            name: "trailing-comma", sample: "store-pickup",
            change: { files in
                files.all["order.json"] = Array(
                    String(decoding: files.all["order.json"]!, as: UTF8.self).replacingOccurrences(of: "\n}", with: ",\n}").utf8)
            }, expected: [.init(rule: "json.trailing-comma", severity: .warning, file: "order.json", pointer: "")]),
        Case(
            name: "syntax-error", sample: "store-pickup",
            change: { files in
                files.all["order.json"] = Array(
                    String(decoding: files.all["order.json"]!, as: UTF8.self).replacingOccurrences(of: "\n}", with: ",,\n}").utf8)
            }, expected: [.init(rule: "json.syntax", severity: .error, file: "order.json", pointer: nil)]),
        Case(
            name: "duplicate-json-key", sample: "store-pickup",
            change: { files in
                files.all["order.json"] = Array(
                    String(decoding: files.all["order.json"]!, as: UTF8.self).replacingOccurrences(
                        of: "{\n", with: "{\n  \"status\": \"open\",\n", options: [],
                        range: String(decoding: files.all["order.json"]!, as: UTF8.self).range(of: "{\n")
                    ).utf8)
            }, expected: [.init(rule: "json.duplicate-key", severity: .error, file: "order.json", pointer: "/status")]),
        Case(
            name: "byte-order-mark", sample: "store-pickup",
            change: { files in
                files.all["order.json"] = [0xEF, 0xBB, 0xBF] + files.all["order.json"]!
            }, expected: [.init(rule: "json.byte-order-mark", severity: .warning, file: "order.json", pointer: nil)]),
        Case(
            name: "latin1-byte-in-string", sample: "store-pickup",
            change: { files in
                let text = String(decoding: files.all["order.json"]!, as: UTF8.self)
                let range = try #require(text.range(of: "\"orderNumber\": \""))
                var bytes = Array(text.utf8)
                bytes.insert(0xE9, at: text.utf8.distance(from: text.startIndex, to: range.upperBound))
                files.all["order.json"] = bytes
            }, expected: [.init(rule: "json.invalid-utf8", severity: .error, file: "order.json", pointer: nil)]),
    ]

    /// Changes after which every file is still referenced: no `files.unreferenced`, nothing else.
    static let stillReferenced: [Case] = [
        // Referenced names are matched as whole paths, whatever their characters: a name starting
        // with a combining mark (so "/" and the mark form one Character) in every .lproj folder,
        // and a name starting with a prepended mark at the top level, each with its variants.
        Case(
            name: "odd-names-are-referenced", sample: "localized",
            change: { files in
                files.set("/merchant/logo", "\u{301}logo.png")
                for folder in ["en.lproj", "fr.lproj", "zh-Hans.lproj"] {
                    for (old, new) in [("logo.png", "\u{301}logo.png"), ("logo@2x.png", "\u{301}logo@2x.png"), ("logo@3x.png", "\u{301}logo@3x.png")]
                    {
                        files.all["\(folder)/\(new)"] = files.all.removeValue(forKey: "\(folder)/\(old)")
                    }
                }
            }, expected: []),
        Case(
            name: "prepended-mark-names-are-referenced", sample: "shipped-ecommerce",
            change: { files in
                files.set("/merchant/logo", "\u{600}x.png")
                files.all["\u{600}x.png"] = files.all.removeValue(forKey: "logo.png")
                files.all["\u{600}x@2x.png"] = pngHeader(width: 600, height: 600)
            }, expected: []),
    ]

    @Test("Files named with unusual characters still count as referenced, with their variants", arguments: stillReferenced)
    func unusualNamesReferenced(testCase: Case) throws {
        var files = Files(all: try SampleBuilds.source(testCase.sample).files)
        try testCase.change(&files)
        let report = Self.validator.validate(OrderSource(files: files.all), subject: testCase.name)
        #expect(!report.contains(ruleID: "files.unreferenced"), "\(report.diagnostics.map(\.description))")
        #expect(report.diagnostics.allSatisfy { $0.severity == .info }, "\(report.diagnostics.map(\.description))")
    }

    @Test("Each broken sample gives exactly its rule, at its place, with its severity", arguments: cases)
    func ruleFires(testCase: Case) throws {
        var files = Files(all: try SampleBuilds.source(testCase.sample).files)
        try testCase.change(&files)
        let report = Self.validator.validate(OrderSource(files: files.all), subject: testCase.name)
        let expectedRules = Set(testCase.expected.map(\.rule))
        let found = report.diagnostics.filter { expectedRules.contains($0.ruleID) }.map { diagnostic in
            Expected(
                rule: diagnostic.ruleID, severity: diagnostic.severity, file: diagnostic.location.file ?? "",
                pointer: testCase.expected.contains { $0.rule == diagnostic.ruleID && $0.pointer == nil } ? nil : diagnostic.location.jsonPointer)
        }
        #expect(Set(found) == Set(testCase.expected), "all findings: \(report.diagnostics.map(\.description))")
        #expect(found.count == testCase.expected.count, "each expected once: \(found)")
        // Nothing else is wrong: no other errors or warnings.
        let others = report.diagnostics.filter { !expectedRules.contains($0.ruleID) && $0.severity != .info }
        #expect(others.isEmpty, "unexpected: \(others.map(\.description))")
        for diagnostic in report.diagnostics where expectedRules.contains(diagnostic.ruleID) {
            #expect(diagnostic.hint?.isEmpty == false || diagnostic.severity == .info, "\(diagnostic.ruleID) has a hint")
            // Hints are one or two sentences, never a schema's whole description.
            let hint = diagnostic.hint ?? ""
            #expect(hint.count <= 240, "\(diagnostic.ruleID)'s hint is \(hint.count) characters: \(hint)")
            #expect(Self.sentences(in: hint) <= 2, "\(diagnostic.ruleID)'s hint: \(hint)")
            #expect(ValidationRule.named(diagnostic.ruleID)?.severity == diagnostic.severity)
        }
    }

    /// Sentences in `text`: ". ", "? " or "! " followed by an uppercase letter, plus the last one.
    static func sentences(in text: String) -> Int {
        guard !text.isEmpty else { return 0 }
        let characters = Array(text)
        var count = 1
        for index in characters.indices.dropLast(2)
        where ".?!".contains(characters[index]) && characters[index + 1] == " " && characters[index + 2].isUppercase {
            count += 1
        }
        return count
    }

    @Test("Findings say which key and what to do: the did-you-means, the required key's short hint, the overriding file")
    func findingTexts() throws {
        func findings(_ sample: String, _ change: (inout Files) -> Void) throws -> [Diagnostic] {
            var files = Files(all: try SampleBuilds.source(sample).files)
            change(&files)
            return Self.validator.validate(OrderSource(files: files.all), subject: sample).diagnostics
        }
        let nearMiss = try findings("localized") { $0.set("/merchant/displayName", "Merchant_Name") }
            .first { $0.ruleID == "localization.key-near-miss" }
        #expect(nearMiss?.hint?.contains("Did you mean 'MERCHANT_NAME'?") == true, "\(String(describing: nearMiss))")
        let unknown = try findings("shipped-ecommerce") { files in
            files.set("/fulfillments/0/fulfillmentType", nil)
            files.set("/fulfillments/0/estimatedDeliveryDate", "2025-11-21T16:00:00Z")
        }.first { $0.ruleID == "schema.unknown-key" }
        #expect(unknown?.hint?.hasPrefix("Did you mean 'estimatedDeliveryAt'? Allowed here (") == true, "\(String(describing: unknown))")
        #expect(unknown?.hint?.hasSuffix(", …") == true, "\(String(describing: unknown))")
        // The root object's 24 keys don't fit a hint: the first ones (sorted) that do, then "…".
        let unknownAtRoot = try findings("shipped-ecommerce") { $0.set("/ordreNumber", "1") }.first { $0.ruleID == "schema.unknown-key" }
        let rootHint = try #require(unknownAtRoot?.hint)
        #expect(
            rootHint.hasPrefix("Did you mean 'orderNumber'? Allowed here (24): associatedApplicationIdentifiers, associatedApplications, "),
            "\(rootHint)")
        #expect(rootHint.hasSuffix(", …") && rootHint.count <= 240, "\(rootHint)")
        #expect(OrderValidator.allowedKeysSentence(["b", "a"], within: 240) == "Allowed here: a, b.")
        #expect(OrderValidator.allowedKeysSentence((1...20).map { "k\($0 + 10)" }, within: 240)?.hasSuffix("k24, k25, …") == true)
        #expect(OrderValidator.allowedKeysSentence([], within: 240) == nil)
        let required = try findings("shipped-ecommerce") { $0.set("/orderManagementURL", nil) }
            .first { $0.ruleID == "schema.required" }
        #expect(required?.message.contains("'orderManagementURL'") == true)
        #expect(required?.hint?.hasPrefix("Add it.") == true, "\(String(describing: required?.hint))")
        let overrides = try findings("localized") { $0.all["logo.png"] = $0.all["en.lproj/logo.png"] }
            .first { $0.ruleID == "localization.top-level-file-overrides" }
        #expect(overrides?.message.contains("en.lproj/logo.png") == true, "\(String(describing: overrides))")
    }

    @Test("Every content rule in the catalogue has a negative case here (or its own test below)")
    func everyRuleIsExercised() {
        let here = Set(Self.cases.flatMap { $0.expected.map(\.rule) })
        let containerAreas = [
            "file.", "zip.", "archive.", "bundle.", "manifest.", "signature.", "certificate.", "schema.", "build.", "order.invalid",
            "pass.", "fields.", "images.", "layout.",  // the pass rules: WalletPassesTests
        ]
        let contentRules = ValidationRule.all.filter { rule in !containerAreas.contains { rule.id.hasPrefix($0) } }
        let ownTests: Set<String> = [
            "compatibility.newer-field", "json.too-deep", "json.invalid-unicode-escape",
            "json.number-unrepresentable",  // NumberLimitTests
        ]
        for rule in contentRules where !ownTests.contains(rule.id) {
            #expect(here.contains(rule.id), "no negative case for \(rule.id)")
        }
    }

    /// ISO 8601-1 durations (spec §3.0): components may be left out, and the lowest-order one
    /// given may carry a decimal fraction, with `.` or `,`.
    static let validDurations = [
        "PT30M", "P0Y0M0DT0H30M0S", "PT4H", "P1D", "P2W", "PT1H30S", "P1Y2D", "P1DT30S", "P1Y2M", "PT90.5S", "PT0,5S",
        "PT1.5H", "PT1H0.5M", "P1.5D", "P0,5Y", "P1.5W", "P1DT1.25H", "PT36H",
    ]

    /// Not durations: free text, no component, units out of order or on the wrong side of `T`,
    /// a fraction that isn't on the last component, a sign, lowercase, weeks with other units.
    static let invalidDurations = [
        "30 minutes", "P", "PT", "P1H", "-PT1H", "+PT1H", "PT1.5H30M", "P1.5DT1H", "PT.5S", "PT1.S", "PT1,S", "P1M1Y", "PT1S1M",
        "P1DT", "pt30m", "PT30m", "P1W2D", "PT1H ", " PT1H", "P1.5.5D", "PT1H30", "T1H", "PT1H-30M", "P0.5Y1M", "",
    ]

    /// The samples with a window duration, and where it is.
    static let windowDurations = [
        ("shipped-ecommerce", "/fulfillments/0/estimatedDeliveryWindowDuration"), ("store-pickup", "/fulfillments/0/pickupWindowDuration"),
    ]

    @Test("A window duration in ISO 8601-1 form is accepted", arguments: validDurations)
    func validDuration(_ duration: String) throws {
        for (sample, pointer) in Self.windowDurations {
            var files = Files(all: try SampleBuilds.source(sample).files)
            files.set(pointer, duration)
            let report = Self.validator.validate(OrderSource(files: files.all), subject: duration)
            #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(sample): \(report.diagnostics.map(\.description))")
        }
    }

    @Test("Anything else in a window duration is a schema error at the duration", arguments: invalidDurations)
    func invalidDuration(_ duration: String) throws {
        for (sample, pointer) in Self.windowDurations {
            var files = Files(all: try SampleBuilds.source(sample).files)
            files.set(pointer, duration)
            let report = Self.validator.validate(OrderSource(files: files.all), subject: duration)
            #expect(
                report.errors.map { "\($0.ruleID) \($0.location.jsonPointer ?? "")" } == ["schema.pattern \(pointer)"],
                "\(sample): \(report.diagnostics.map(\.description))")
        }
    }

    @Test("A .lproj folder without order.strings (one that only localizes an image) is one warning, never an error")
    func folderWithoutStrings() throws {
        // Seen: peers' test sources with a .lproj holding only a localized logo failed validate
        // and blocked build, on the evidence of one checklist line.
        var files = Files(all: try SampleBuilds.source("localized").files)
        files.all["fr.lproj/order.strings"] = nil
        let report = Self.validator.validate(OrderSource(files: files.all), subject: "no-fr-strings")
        #expect(report.errors.isEmpty, "\(report.diagnostics.map(\.description))")
        let missing = try #require(report.diagnostics(ruleID: "localization.missing-strings").first)
        #expect(missing.severity == .warning)
        #expect(missing.message.contains("a checklist line, not a refusal Wallet is known to make"), "\(missing.message)")
        #expect(!report.contains(ruleID: "localization.undefined-key"), "\(report.diagnostics.map(\.description))")
        // Folders that only localize images (peers' test sources): no order.strings anywhere.
        var imagesOnly = Files(all: try SampleBuilds.source("localized").files)
        for path in imagesOnly.all.keys where path.hasSuffix("/order.strings") { imagesOnly.all[path] = nil }
        let imageReport = Self.validator.validate(OrderSource(files: imagesOnly.all), subject: "images-only")
        #expect(imageReport.errors.isEmpty, "\(imageReport.diagnostics.map(\.description))")
        #expect(imageReport.diagnostics(ruleID: "localization.missing-strings").map(\.severity) == [.warning, .warning, .warning])
        // Only one .lproj folder, without order.strings: no key is known, so nothing is undefined.
        let alone = files.all.filter { !$0.key.hasPrefix("en.lproj/") && !$0.key.hasPrefix("zh-Hans.lproj/") }
        let aloneReport = Self.validator.validate(OrderSource(files: alone), subject: "only-fr")
        #expect(aloneReport.diagnostics(ruleID: "localization.missing-strings").map(\.severity) == [.warning])
        #expect(!aloneReport.contains(ruleID: "localization.undefined-key"), "\(aloneReport.diagnostics.map(\.description))")
    }

    @Test(
        "A quantity of zero is accepted wherever a line item is; a negative one is refused",
        arguments: ["/lineItems/0/quantity", "/fulfillments/0/lineItems/0/quantity", "/returns/0/lineItems/0/quantity"])
    func zeroQuantity(_ pointer: String) throws {
        var files = Files(all: try SampleBuilds.source("returns-and-transactions").files)
        files.set(pointer, 0)
        let zero = Self.validator.validate(OrderSource(files: files.all), subject: "zero")
        #expect(zero.errors.isEmpty && zero.warnings.isEmpty, "\(zero.diagnostics.map(\.description))")
        files.set(pointer, -1)
        let negative = Self.validator.validate(OrderSource(files: files.all), subject: "negative")
        #expect(negative.errors.map { "\($0.ruleID) \($0.location.jsonPointer ?? "")" } == ["schema.range \(pointer)"])
    }

    @Test("A key that requires another is reported at itself, with its line and column, naming the missing key")
    func dependentRequiredAtTheKey() throws {
        var files = Files(all: try SampleBuilds.source("shipped-ecommerce").files)
        files.set("/authenticationToken", nil)
        let report = Self.validator.validate(OrderSource(files: files.all), subject: "no-token")
        #expect(report.errors.map(\.ruleID) == ["schema.dependent-required"], "\(report.diagnostics.map(\.description))")
        let finding = try #require(report.diagnostics(ruleID: "schema.dependent-required").first)
        #expect(finding.location.jsonPointer == "/webServiceURL")
        let lines = String(decoding: try #require(files.all["order.json"]), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains("\"webServiceURL\"") })
        let key = try #require(lines[index].range(of: "\"webServiceURL\""))
        #expect(finding.location.line == index + 1)
        #expect(finding.location.column == lines[index].distance(from: lines[index].startIndex, to: key.lowerBound) + 1)
        #expect(finding.message.contains("'authenticationToken'") && finding.message.contains("'webServiceURL'"), "\(finding.message)")
        let hint = try #require(finding.hint)
        #expect(hint.hasPrefix("Add authenticationToken"), "\(hint)")
        #expect(hint.count <= 240 && Self.sentences(in: hint) <= 2, "\(hint)")
    }

    /// The `money.amount-number` finding of the sample with its first amount written as the JSON
    /// number `number`.
    static func amountNumberFinding(_ number: String) throws -> Diagnostic {
        var files = Files(all: try SampleBuilds.source("shipped-ecommerce").files)
        let text = String(decoding: try #require(files.all["order.json"]), as: UTF8.self)
        let range = try #require(text.range(of: #""amount": "89.00""#))
        files.all["order.json"] = Array(text.replacingCharacters(in: range, with: #""amount": \#(number)"#).utf8)
        let report = validator.validate(OrderSource(files: files.all), subject: number)
        return try #require(report.diagnostics(ruleID: "money.amount-number").first, "\(report.diagnostics.map(\.description))")
    }

    @Test(
        "A JSON number amount's hint writes it as the plain decimal string the amount pattern accepts",
        arguments: [
            ("1.9293e2", "192.93"), ("89.5", "89.5"), ("1E+2", "100"), ("5e-3", "0.005"), ("-1.5E1", "-15"), ("1.50e1", "15.0"),
            ("0e5", "0"), ("12345e-2", "123.45"),
        ])
    func amountNumberHint(_ number: String, _ plain: String) throws {
        let finding = try Self.amountNumberFinding(number)
        #expect(finding.hint == "Write \"\(plain)\" (a string) so the decimal stays exact.")
        #expect(try DecimalAmount(plain).text == plain, "the hint's amount is one the schema's pattern accepts")
    }

    @Test(
        "A JSON number amount with an exponent at or past Int's limits is a finding, never a trap",
        arguments: ["1e-9223372036854775808", "1e-09223372036854775808", "1e9223372036854775807", "1e99999999999999999999"])
    func amountNumberExtremeExponent(_ number: String) throws {
        let finding = try Self.amountNumberFinding(number)
        #expect(finding.hint?.contains(number) == false, "no plain decimal for it: \(finding.hint ?? "")")
    }

    @Test("Currencies ISO 4217 added recently are known, with their minor units", arguments: ["XCG", "ZWG"])
    func recentCurrency(_ code: String) throws {
        var files = Files(all: try SampleBuilds.source("shipped-ecommerce").files)
        files.set("/lineItems/0/price/currency", code)
        files.set("/lineItems/0/price/amount", "89.50")
        let report = Self.validator.validate(OrderSource(files: files.all), subject: code)
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.diagnostics.map(\.description))")
        // Two minor units, as ISO 4217 lists them: a third decimal is one too many.
        files.set("/lineItems/0/price/amount", "89.505")
        let rounded = Self.validator.validate(OrderSource(files: files.all), subject: code)
        #expect(rounded.diagnostics.filter { $0.severity != .info }.map(\.ruleID) == ["money.minor-units"], "\(rounded.diagnostics)")
        #expect(rounded.diagnostics(ruleID: "money.minor-units").first?.message.hasSuffix("\(code) has 2.") == true)
    }

    @Test("Newer objects are named with the iOS version that shows them")
    func newerFields() throws {
        let report = Self.validator.validate(try SampleBuilds.source("returns-and-transactions"), subject: "returns")
        let infos = report.diagnostics(ruleID: "compatibility.newer-field")
        #expect(
            Set(infos.compactMap(\.location.jsonPointer)) == [
                "/returns", "/returnInfo", "/orderProvider", "/associatedApplicationIdentifiers", "/payment/transactions",
                "/fulfillments/0/shippingType",
            ])
        #expect(infos.first { $0.location.jsonPointer == "/returns" }?.message.contains("iOS 17.2") == true)
        #expect(infos.allSatisfy { $0.severity == .info })
    }
}
