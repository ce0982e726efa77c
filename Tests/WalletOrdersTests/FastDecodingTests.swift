import Foundation
import Testing
import WalletOrders
import WalletOrdersJSON
import WalletOrdersTestSupport

/// `Order.decodeFast` (JSONParser + JSONNodeDecoder) must give JSONDecoder's result: the same
/// order when both succeed, and no order of its own where JSONDecoder fails.
@Suite struct FastDecodingTests {
    static let fixtures: [URL] = {
        let folder = Repository.tests.appendingPathComponent("WalletOrdersTests/Fixtures/invalid-orders")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "expectations.json" }.sorted().map { folder.appendingPathComponent($0) }
    }()

    /// Variations JSONDecoder and the fast path must agree on, written into a valid order.
    static let edits: [(String, @Sendable (String) -> String)] = [
        ("as is", { $0 }),
        ("quantity 1.0", { $0.replacingOccurrences(of: "\"quantity\": 1,", with: "\"quantity\": 1.0,") }),
        ("quantity 1e0", { $0.replacingOccurrences(of: "\"quantity\": 1,", with: "\"quantity\": 1e0,") }),
        ("quantity -0", { $0.replacingOccurrences(of: "\"quantity\": 1,", with: "\"quantity\": -0,") }),
        ("quantity huge", { $0.replacingOccurrences(of: "\"quantity\": 1,", with: "\"quantity\": 99999999999999999999,") }),
        ("amount as number", { $0.replacingOccurrences(of: "\"amount\": \"89.00\"", with: "\"amount\": 89.00") }),
        ("null status", { $0.replacingOccurrences(of: "\"status\": \"open\"", with: "\"status\": null") }),
        ("null subtitle", { $0.replacingOccurrences(of: "\"subtitle\": \"Rust, one size\"", with: "\"subtitle\": null") }),
        ("duplicate key", { $0.replacingOccurrences(of: "\"status\": \"open\"", with: "\"status\": \"open\", \"status\": \"open\"") }),
        ("escapes", { $0.replacingOccurrences(of: "\"Northwind Outfitters\"", with: "\"North\\u0077ind \\/ \\ud83d\\ude00\"") }),
        ("lone surrogate", { $0.replacingOccurrences(of: "\"Northwind Outfitters\"", with: "\"\\ud83d\"") }),
        ("byte-order mark", { "\u{FEFF}" + $0 }),
        ("unknown key with number", { $0.replacingOccurrences(of: "\"status\": \"open\"", with: "\"status\": \"open\", \"x\": 1e400") }),
        ("trailing comma", { $0.replacingOccurrences(of: "\"status\": \"open\",", with: "\"status\": \"open\",,") }),
    ]

    static func expectSameOutcome(_ bytes: [UInt8], _ label: String) {
        let foundation = try? JSONDecoder().decode(Order.self, from: Data(bytes))
        let fast = Order.decodeWithoutFoundation(bytes)
        if let fast {
            #expect(fast == foundation, "\(label): the fast path decoded what JSONDecoder did not, or differently")
        }
        #expect((try? Order.decodeFast(bytes)) == foundation, "\(label)")
    }

    @Test("Every sample decodes the fast way, to JSONDecoder's order", arguments: Repository.sampleNames)
    func samples(sample: String) throws {
        let bytes = try #require(FileManager.default.contents(atPath: Repository.sample(sample).appendingPathComponent("order.json").path))
        let fast = try #require(Order.decodeWithoutFoundation(Array(bytes)))
        #expect(fast == (try Order.decode(from: bytes)))
    }

    @Test("A trailing comma is read as Apple's readers read it: the order it would be without the comma, by every decoding entry")
    func trailingComma() throws {
        let bytes = try #require(
            FileManager.default.contents(atPath: Repository.sample("shipped-ecommerce").appendingPathComponent("order.json").path))
        let text = String(decoding: bytes, as: UTF8.self)
        let plain = try Order.decode(from: bytes)
        for edited in [text.replacingOccurrences(of: "\n}", with: ",\n}"), text.replacingOccurrences(of: "}\n  ]", with: "},\n  ]")] {
            #expect(edited != text)
            #expect(try Order.decode(from: Data(edited.utf8)) == plain)
            #expect(try Order.decodeFast(Array(edited.utf8)) == plain)
        }
    }

    @Test("Edited orders: the fast path agrees with JSONDecoder or steps aside")
    func edited() throws {
        let bytes = try #require(
            FileManager.default.contents(atPath: Repository.sample("shipped-ecommerce").appendingPathComponent("order.json").path))
        let text = String(decoding: bytes, as: UTF8.self)
        for (label, edit) in Self.edits {
            Self.expectSameOutcome(Array(edit(text).utf8), label)
        }
    }

    @Test("Negative fixtures: the fast path agrees with JSONDecoder or steps aside")
    func fixtures() throws {
        #expect(!Self.fixtures.isEmpty)
        for url in Self.fixtures {
            let bytes = try #require(FileManager.default.contents(atPath: url.path))
            Self.expectSameOutcome(Array(bytes), url.lastPathComponent)
        }
    }

    @Test("Errors are JSONDecoder's, word for word")
    func sameErrors() throws {
        for url in Self.fixtures {
            let bytes = try #require(FileManager.default.contents(atPath: url.path))
            var foundation: String?
            var fast: String?
            do { _ = try Order.decode(from: bytes) } catch { foundation = "\(error)" }
            do { _ = try Order.decodeFast(Array(bytes)) } catch { fast = "\(error)" }
            #expect(fast == foundation, "\(url.lastPathComponent)")
        }
    }

    @Test("A manifest reads the same through JSONParser as through JSONDecoder")
    func manifest() throws {
        let cases = [
            #"{"a.png": "00", "b\/c.png": "\u0031"}"#, #"{}"#, #"{"a": 1}"#, #"{"a": "x", "a": "y"}"#, #"["a"]"#,
            #"{"a": {"b": "c"}}"#, "\u{FEFF}{\"a\": \"b\"}", #"{"a": "b",}"#,
        ]
        for text in cases {
            let bytes = Array(text.utf8)
            let foundation = try? JSONDecoder().decode([String: String].self, from: Data(bytes))
            #expect((try? Manifest(jsonBytes: bytes))?.hashes == foundation, "\(text)")
        }
    }
}
