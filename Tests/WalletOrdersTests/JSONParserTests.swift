import Foundation
import Testing
import WalletOrders
import WalletOrdersJSON
import WalletOrdersTestSupport

// MARK: - Helpers

/// Parses UTF-8 text.
private func parseJSON(_ text: String, maxDepth: Int = 512) -> JSONParseResult {
    JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// A position, shorter.
private func at(_ line: Int, _ column: Int, _ offset: Int) -> SourcePosition {
    SourcePosition(line: line, column: column, offset: offset)
}

/// One input that must fail with exactly one syntax problem.
struct SyntaxErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var message: String
    var position: SourcePosition

    init(_ name: String, _ text: String, _ message: String, _ position: SourcePosition) {
        self.init(name, Array(text.utf8), message, position)
    }

    init(_ name: String, _ bytes: [UInt8], _ message: String, _ position: SourcePosition) {
        self.name = name
        self.bytes = bytes
        self.message = message
        self.position = position
    }

    var testDescription: String { name }
}

/// A line ending, named for the test list.
struct LineEnding: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var testDescription: String { name }
}

@Suite struct JSONParserTests {
    // MARK: Conformance (nst/JSONTestSuite)

    /// The `test_parsing` folder of nst/JSONTestSuite, cloned beside the package by CI.
    static let conformanceFolder = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/conformance/json-parsing-test-suite/test_parsing", isDirectory: true)

    /// The only `y_` files that may report problems, and why. They are still parsed and must
    /// give a document whose problems are all of the kind named here.
    static let conformanceExclusions: [String: (kind: JSONProblem.Kind, reason: String)] = [
        "y_object_duplicated_key.json": (
            .duplicateKey,
            "RFC 8259 §4 lets names repeat (SHOULD be unique); the parser accepts the document but reports duplicateKey by design"
        ),
        "y_object_duplicated_key_and_value.json": (
            .duplicateKey,
            "RFC 8259 §4 lets names repeat (SHOULD be unique); the parser accepts the document but reports duplicateKey by design"
        ),
    ]

    @Test("JSONTestSuite: every y_ file is accepted without problems, every n_ file rejected, every i_ file finishes")
    func conformanceSuite() throws {
        let folder = Self.conformanceFolder
        var isDirectory: ObjCBool = false
        try #require(
            FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue,
            "JSONTestSuite is missing: expected its test_parsing folder at \(folder.path) (clone nst/JSONTestSuite to shared/conformance/json-parsing-test-suite beside the package)"
        )
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        let yes = names.filter { $0.hasPrefix("y_") }
        let no = names.filter { $0.hasPrefix("n_") }
        let either = names.filter { $0.hasPrefix("i_") }
        #expect(!yes.isEmpty && !no.isEmpty && !either.isEmpty, "no y_/n_/i_ files in \(folder.path)")
        #expect(yes.count + no.count + either.count == names.count, "files without a y_/n_/i_ prefix")
        for excluded in Self.conformanceExclusions.keys {
            #expect(yes.contains(excluded), "stale exclusion: \(excluded) is not in the suite")
        }

        func parseFile(_ name: String) throws -> JSONParseResult {
            let data = try #require(FileManager.default.contents(atPath: folder.appendingPathComponent(name).path), "\(name) unreadable")
            return JSONParser.parse([UInt8](data))
        }

        var accepted = 0
        for name in yes {
            let result = try parseFile(name)
            if result.root != nil { accepted += 1 }
            #expect(result.root != nil, "\(name) rejected: \(result.problems)")
            if let exclusion = Self.conformanceExclusions[name] {
                #expect(!result.problems.isEmpty && result.problems.allSatisfy { $0.kind == exclusion.kind }, "\(name): \(result.problems)")
            } else {
                #expect(result.problems.isEmpty, "\(name) has problems: \(result.problems)")
            }
        }

        var rejected = 0
        for name in no {
            let result = try parseFile(name)
            if result.root == nil { rejected += 1 }
            #expect(result.root == nil, "\(name) accepted")
            #expect(result.problems.filter(\.isFatal).count == (result.root == nil ? 1 : 0), "\(name): \(result.problems)")
            if name == "n_structure_100000_opening_arrays.json" {
                #expect(result.problems.last?.kind == .tooDeep, "\(name): \(result.problems)")
            }
        }

        var outcomes: [String] = []
        var eitherAccepted = 0
        for name in either {
            let result = try parseFile(name)
            #expect((result.root == nil) == result.problems.contains(where: \.isFatal), "\(name): \(result.problems)")
            if result.root != nil { eitherAccepted += 1 }
            let kinds = result.problems.map(\.kind.rawValue).joined(separator: ", ")
            outcomes.append("  \(name): \(result.root != nil ? "accepted" : "rejected")\(kinds.isEmpty ? "" : " (\(kinds))")")
        }

        print(
            "JSONTestSuite: y_ \(accepted)/\(yes.count) accepted, n_ \(rejected)/\(no.count) rejected, i_ \(either.count) (\(eitherAccepted) accepted, \(either.count - eitherAccepted) rejected); \(Self.conformanceExclusions.count) y_ files excluded from the no-problems check"
        )
        print(outcomes.joined(separator: "\n"))
    }

    // MARK: Positions

    static let lineEndings = [
        LineEnding(name: "LF", text: "\n"), LineEnding(name: "CRLF", text: "\r\n"), LineEnding(name: "CR", text: "\r"),
    ]

    @Test("Keys and nested values have exact line, column and offset", arguments: lineEndings)
    func positions(ending: LineEnding) throws {
        let text = ["{", #"  "a": [1, {"b": true}],"#, #"  "c": "x""#, "}"].joined(separator: ending.text)
        let result = parseJSON(text)
        #expect(result.problems.isEmpty)
        let root = try #require(result.root)
        // Offsets for LF; each earlier line ending adds (length - 1) bytes.
        let extra = ending.text.utf8.count - 1
        func expected(_ line: Int, _ column: Int, _ lfOffset: Int) -> SourcePosition {
            at(line, column, lfOffset + (line - 1) * extra)
        }
        #expect(root.position == expected(1, 1, 0))
        let members = try #require(root.members)
        #expect(members.map(\.key) == ["a", "c"])
        #expect(members[0].keyPosition == expected(2, 3, 4))
        #expect(members[0].value.position == expected(2, 8, 9))
        let elements = try #require(members[0].value.elements)
        #expect(elements[0].position == expected(2, 9, 10))
        #expect(elements[0].numberText == "1")
        #expect(elements[1].position == expected(2, 12, 13))
        let inner = try #require(elements[1].members?.first)
        #expect(inner.key == "b")
        #expect(inner.keyPosition == expected(2, 13, 14))
        #expect(inner.value.position == expected(2, 18, 19))
        #expect(inner.value.value == .bool(true))
        #expect(members[1].keyPosition == expected(3, 3, 29))
        #expect(members[1].value.position == expected(3, 8, 34))
        #expect(members[1].value.stringValue == "x")
    }

    @Test("CRLF is one line end, and LF then CR is two")
    func mixedLineEnds() throws {
        let root = try #require(parseJSON("[\r\n\n\r1,\n\r\n2]").root)
        let elements = try #require(root.elements)
        #expect(elements[0].position == at(4, 1, 5))
        #expect(elements[1].position == at(6, 1, 10))
    }

    @Test("Columns count UTF-16 code units: a non-BMP character takes two, é and € one each")
    func utf16Columns() throws {
        let root = try #require(parseJSON(#"{"e":"😀","k":1}"#).root)
        let members = try #require(root.members)
        #expect(members[0].value.stringValue == "😀")
        #expect(members[1].keyPosition == at(1, 11, 12))
        #expect(members[1].value.position == at(1, 15, 16))

        let mixed = try #require(parseJSON(#"["é€", 2]"#).root?.elements)
        #expect(mixed[1].position == at(1, 8, 10))

        // A key's emoji does not shift the next line.
        let nextLine = try #require(parseJSON("{\"😀\":\n1}").root?.members?.first)
        #expect(nextLine.key == "😀")
        #expect(nextLine.value.position == at(2, 1, 9))

        // Escapes are counted as written.
        let escaped = try #require(parseJSON(#"["\u00e9", 1]"#).root?.elements)
        #expect(escaped[1].position == at(1, 12, 11))
    }

    // MARK: Values

    @Test("Numbers keep their exact source text")
    func numberText() throws {
        let root = try #require(parseJSON("[28.80, -0, 1E+2, 0.5e-10, 123456789012345678901234567890, -12.5E3, 0]").root)
        #expect(root.elements?.compactMap(\.numberText) == ["28.80", "-0", "1E+2", "0.5e-10", "123456789012345678901234567890", "-12.5E3", "0"])
        #expect(parseJSON(" 1e2 ").root?.numberText == "1e2")
    }

    @Test("Escapes decode: quote, backslash, solidus, \\u00e9, a surrogate pair, control escapes")
    func escapes() throws {
        let result = parseJSON(#"["\"\\\/\u00e9\ud83d\ude00\b\f\n\r\t\u0000", "plain \u0041"]"#)
        #expect(result.problems.isEmpty)
        let elements = try #require(result.root?.elements)
        #expect(elements[0].stringValue == "\"\\/é😀\u{8}\u{C}\n\r\t\u{0}")
        #expect(elements[1].stringValue == "plain A")
    }

    @Test("Literals, empty containers and top-level scalars")
    func literalsAndContainers() throws {
        let root = try #require(parseJSON(#" [true, false, null, {}, [], { }, [ ], ""] "#).root)
        #expect(root.position == at(1, 2, 1))
        #expect(
            root.elements?.map(\.value) == [.bool(true), .bool(false), .null, .object([]), .array([]), .object([]), .array([]), .string("")])
        #expect(root.elements?[6].position == at(1, 35, 34))
        #expect(parseJSON(#""top""#).root?.stringValue == "top")
        #expect(parseJSON("null").root?.value == .null)
    }

    @Test("Strings of every length around the 8-byte fast path decode and keep columns", arguments: 0..<20)
    func stringLengths(length: Int) throws {
        let prefix = String(repeating: "a", count: length)
        for (body, decoded, columns) in [("", "", 0), (#"\n"#, "\n", 2), ("é", "é", 1), ("😀", "😀", 2)] {
            for suffix in ["", "bcdefghijk"] {
                let text = #"[""# + prefix + body + suffix + #"", 7]"#
                let result = parseJSON(text)
                #expect(result.problems.isEmpty, "\(text)")
                let elements = try #require(result.root?.elements, "\(text)")
                #expect(elements[0].stringValue == prefix + decoded + suffix)
                #expect(elements[1].position.column == 1 + 2 + length + columns + suffix.count + 3, "\(text)")
                #expect(elements[1].position.offset == text.utf8.count - 2, "\(text)")
            }
        }
        // And at the very end of the input.
        let unterminated = parseJSON(#"""# + prefix)
        #expect(unterminated.root == nil)
        #expect(unterminated.problems.first?.position == at(1, length + 2, length + 1))
    }

    // MARK: Non-fatal problems

    @Test("A duplicate key is reported at the second key with its pointer, and both members are kept")
    func duplicateKey() throws {
        let result = parseJSON(#"{"merchant": {"url": "a", "name": "n", "url": "b"}}"#)
        let merchant = try #require(result.root?["merchant"])
        #expect(merchant.members?.map(\.key) == ["url", "name", "url"])
        #expect(merchant.members?.compactMap(\.value.stringValue) == ["a", "n", "b"])
        #expect(
            result.problems == [
                JSONProblem(
                    kind: .duplicateKey, message: #"Duplicate key "url" (first at 1:15); expected each key once in an object"#,
                    position: at(1, 40, 39), pointer: "/merchant/url")
            ])
    }

    @Test("Each extra occurrence of a key is its own problem; pointers escape ~ and / and go through arrays")
    func duplicateKeyPointers() throws {
        let triple = parseJSON(#"{"a":1,"a":2,"a":3}"#)
        #expect(triple.problems.map(\.position) == [at(1, 8, 7), at(1, 14, 13)])
        #expect(triple.problems.map(\.pointer) == ["/a", "/a"])
        #expect(triple.root?.members?.count == 3)

        let escaped = parseJSON(#"{"x": [{"q": 0}, {"a/b~": 1, "a/b~": 2}]}"#)
        #expect(escaped.problems.map(\.pointer) == ["/x/1/a~1b~0"])
        #expect(escaped.problems.map(\.kind) == [.duplicateKey])
    }

    @Test("Duplicates are found in large objects too (hashed keys)")
    func duplicateKeyLargeObject() throws {
        let keys = (0..<40).map { "k\($0)" } + ["k3", "k39", "k0"]
        let text = "{" + keys.enumerated().map { #""\#($1)": \#($0)"# }.joined(separator: ", ") + "}"
        let result = parseJSON(text)
        #expect(result.root?.members?.count == 43)
        #expect(result.problems.map(\.pointer) == ["/k3", "/k39", "/k0"])
        #expect(result.problems.map(\.kind) == [.duplicateKey, .duplicateKey, .duplicateKey])
    }

    @Test("Keys that differ only in Unicode normalization are distinct")
    func keysCompareByCodePoints() throws {
        let result = parseJSON(#"{"\u00e9": 1, "e\u0301": 2}"#)
        #expect(result.problems.isEmpty)
        #expect(result.root?.members?.map { Array($0.key.unicodeScalars) } == [["\u{E9}"], ["e", "\u{301}"]])
    }

    @Test("A UTF-8 byte-order mark is reported and skipped; positions after it start at column 1")
    func byteOrderMark() throws {
        let result = JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8))
        #expect(result.problems.map(\.kind) == [.byteOrderMark])
        #expect(result.problems.first?.position == at(1, 1, 0))
        #expect(result.problems.first?.isFatal == false)
        let root = try #require(result.root)
        #expect(root.position == at(1, 1, 3))
        #expect(root.members?.first?.keyPosition == at(1, 2, 4))
        #expect(root["a"]?.numberText == "1")
    }

    @Test("Invalid UTF-8 in a string is reported per bad sequence and replaced by U+FFFD")
    func invalidUTF8InString() throws {
        let result = JSONParser.parse(Array(#"["a"#.utf8) + [0xFF] + Array(#"b", "c"]"#.utf8))
        #expect(result.problems.map(\.kind) == [.invalidUTF8])
        #expect(result.problems.first?.position == at(1, 4, 3))
        #expect(result.problems.first?.pointer == "/0")
        #expect(result.problems.first?.message == "Expected UTF-8 text in a string, found the invalid UTF-8 byte 0xFF (replaced by U+FFFD)")
        let elements = try #require(result.root?.elements)
        #expect(elements.compactMap(\.stringValue) == ["a\u{FFFD}b", "c"])
        #expect(elements[1].position == at(1, 9, 8))

        // A truncated sequence is one replacement; an overlong one is one per byte.
        let truncated = JSONParser.parse(Array(#"["x"#.utf8) + [0xE2, 0x82] + Array(#""]"#.utf8))
        #expect(truncated.root?.elements?.first?.stringValue == "x\u{FFFD}")
        #expect(truncated.problems.map(\.position) == [at(1, 4, 3)])
        let overlong = JSONParser.parse(Array(#"[""#.utf8) + [0xC0, 0xAF] + Array(#"", 1]"#.utf8))
        #expect(overlong.root?.elements?.first?.stringValue == "\u{FFFD}\u{FFFD}")
        #expect(overlong.problems.map(\.position) == [at(1, 3, 2), at(1, 4, 3)])
        #expect(overlong.root?.elements?.last?.position == at(1, 8, 7))

        // In a key, the pointer names the member with the replaced key.
        let key = JSONParser.parse(Array(#"{"k"#.utf8) + [0xC3] + Array(#"": {"\u0041": 1}}"#.utf8))
        #expect(key.root?.members?.first?.key == "k\u{FFFD}")
        #expect(key.problems.map(\.pointer) == ["/k\u{FFFD}"])
    }

    @Test("An unpaired surrogate escape is reported and replaced by U+FFFD")
    func loneSurrogates() throws {
        let high = parseJSON(#"["\uD800x"]"#)
        #expect(high.root?.elements?.first?.stringValue == "\u{FFFD}x")
        #expect(high.problems.map(\.kind) == [.invalidUnicodeEscape])
        #expect(high.problems.first?.position == at(1, 3, 2))
        #expect(high.problems.first?.pointer == "/0")
        #expect(
            high.problems.first?.message
                == #"Unpaired surrogate escape \uD800: a high surrogate must be followed by a \uDC00–\uDFFF escape (replaced by U+FFFD)"#)

        let low = parseJSON(#"["\uDC00"]"#)
        #expect(low.root?.elements?.first?.stringValue == "\u{FFFD}")
        #expect(low.problems.map(\.kind) == [.invalidUnicodeEscape])

        let highThenLetter = parseJSON(#"["\uD800\u0041"]"#)
        #expect(highThenLetter.root?.elements?.first?.stringValue == "\u{FFFD}A")
        #expect(highThenLetter.problems.count == 1)

        let highThenPair = parseJSON(#"{"k": "\uD83D\uD83D\uDE00"}"#)
        #expect(highThenPair.root?["k"]?.stringValue == "\u{FFFD}😀")
        #expect(highThenPair.problems.map(\.pointer) == ["/k"])
        #expect(highThenPair.problems.map(\.position) == [at(1, 8, 7)])
    }

    // MARK: Fatal problems

    static let syntaxErrors: [SyntaxErrorCase] = [
        SyntaxErrorCase(
            "trailing comma in an object", #"{"a":1,}"#,
            #"Expected '"' to start the next object key after ',', found '}' (trailing commas are not allowed)"#, at(1, 8, 7)),
        SyntaxErrorCase(
            "trailing comma in an array", "[1,2,]",
            "Expected a value after ',' in an array, found ']' (trailing commas are not allowed)", at(1, 6, 5)),
        SyntaxErrorCase(
            "missing comma between members", #"{"a":1 "b":2}"#, #"Expected ',' or '}' after an object member, found '"'"#,
            at(1, 8, 7)),
        SyntaxErrorCase(
            "missing comma between members on separate lines", "{\n  \"a\": 1\n  \"b\": 2\n}",
            #"Expected ',' or '}' after an object member, found '"'"#, at(3, 3, 13)),
        SyntaxErrorCase(
            "missing comma between elements", "[1 2]", "Expected ',' or ']' after an array element, found '2'", at(1, 4, 3)),
        SyntaxErrorCase(
            "wrong closing bracket", #"{"a": 1]"#, "Expected ',' or '}' after an object member, found ']'", at(1, 8, 7)),
        SyntaxErrorCase(
            "unterminated string", #"{"a":"abc"#,
            #"Unterminated string: expected '"' to close the string that starts at 1:6, found the end of the input"#, at(1, 10, 9)),
        SyntaxErrorCase(
            "line break in a string", "[\"ab\ncd\"]",
            #"Unterminated string: expected '"' to close the string that starts at 1:2 before the end of the line, found a line feed (write a line break in a string as \n)"#,
            at(1, 5, 4)),
        SyntaxErrorCase(
            "unescaped tab in a string", "[\"a\tb\"]",
            #"Expected '"' or a character that may appear unescaped in a string, found a tab (escape it as \t)"#, at(1, 4, 3)),
        SyntaxErrorCase(
            "leading zero", "01",
            "Numbers must not have leading zeros: expected '.', 'e' or the end of the number after '0', found '1'", at(1, 2, 1)),
        SyntaxErrorCase(
            "leading zero after a minus", "[-01]",
            "Numbers must not have leading zeros: expected '.', 'e' or the end of the number after '0', found '1'", at(1, 4, 3)),
        SyntaxErrorCase(
            "NaN", "NaN", "Expected a JSON value (object, array, string, number, true, false or null), found 'N'", at(1, 1, 0)),
        SyntaxErrorCase("NaN as a member value", #"{"a": NaN}"#, "Expected a value after ':' in an object, found 'N'", at(1, 7, 6)),
        SyntaxErrorCase("a bare minus", "[-]", "Expected a digit after '-' in a number, found ']'", at(1, 3, 2)),
        SyntaxErrorCase("no digit after the point", "[1.]", "Expected a digit after the decimal point in a number, found ']'", at(1, 4, 3)),
        SyntaxErrorCase("no digit in the exponent", "[1e+]", "Expected a digit in the exponent of a number, found ']'", at(1, 5, 4)),
        SyntaxErrorCase("a leading point", "[.5]", "Expected a value or ']' in an array, found '.'", at(1, 2, 1)),
        SyntaxErrorCase("a plus sign", "[+1]", "Expected a value or ']' in an array, found '+'", at(1, 2, 1)),
        SyntaxErrorCase("a hex number", "[0x1]", "Expected ',' or ']' after an array element, found 'x'", at(1, 3, 2)),
        SyntaxErrorCase("a truncated literal", "tru", "Expected 'e' to complete 'true', found the end of the input", at(1, 4, 3)),
        SyntaxErrorCase("a misspelled literal", "[nul]", "Expected 'l' to complete 'null', found ']'", at(1, 5, 4)),
        SyntaxErrorCase(
            "text after the value", "[1] x", "Expected the end of the input after the top-level value, found 'x'", at(1, 5, 4)),
        SyntaxErrorCase(
            "empty input", "",
            "Expected a JSON value (object, array, string, number, true, false or null), found the end of the input", at(1, 1, 0)),
        SyntaxErrorCase(
            "only whitespace", "  \n ",
            "Expected a JSON value (object, array, string, number, true, false or null), found the end of the input", at(2, 2, 4)),
        SyntaxErrorCase(
            "a key without quotes", "{a:1}", #"Expected '"' to start an object key or '}' to close the object, found 'a'"#,
            at(1, 2, 1)),
        SyntaxErrorCase("a missing colon", #"{"a" 1}"#, #"Expected ':' after the object key "a", found '1'"#, at(1, 6, 5)),
        SyntaxErrorCase(
            "an invalid escape", #"["\x"]"#,
            #"Invalid escape in a string: expected one of " \ / b f n r t u after '\', found 'x'"#, at(1, 3, 2)),
        SyntaxErrorCase("a bad \\u escape", #"["\u12G4"]"#, #"Expected 4 hexadecimal digits after '\u', found 'G'"#, at(1, 7, 6)),
        SyntaxErrorCase(
            "invalid UTF-8 outside a string", [0x5B, 0xFF, 0x5D],
            "Expected a value or ']' in an array, found the invalid UTF-8 byte 0xFF", at(1, 2, 1)),
        SyntaxErrorCase(
            "a no-break space as whitespace", "[\u{A0}1]", "Expected a value or ']' in an array, found '\u{A0}' (U+00A0)", at(1, 2, 1)),
        SyntaxErrorCase(
            "a form feed as whitespace", "[\u{C}1]", "Expected a value or ']' in an array, found the control character U+000C",
            at(1, 2, 1)),
        SyntaxErrorCase(
            "a NUL byte after a value", [0x31, 0x32, 0x33, 0x00],
            "Expected the end of the input after the top-level value, found a NUL byte", at(1, 4, 3)),
        SyntaxErrorCase(
            "UTF-16LE without a BOM", Array("[\"é\"]".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
            "order.json must be UTF-8 (this looks like UTF-16)", at(1, 1, 0)),
        SyntaxErrorCase(
            "UTF-16BE without a BOM", Array("[1]".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
            "order.json must be UTF-8 (this looks like UTF-16)", at(1, 1, 0)),
        SyntaxErrorCase(
            "UTF-16LE with a BOM", [0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00], "order.json must be UTF-8 (this looks like UTF-16)", at(1, 1, 0)),
        SyntaxErrorCase("UTF-16BE with a BOM", [0xFE, 0xFF, 0x00, 0x31], "order.json must be UTF-8 (this looks like UTF-16)", at(1, 1, 0)),
        SyntaxErrorCase(
            "UTF-32LE", [0x5B, 0x00, 0x00, 0x00, 0x5D, 0x00, 0x00, 0x00], "order.json must be UTF-8 (this looks like UTF-32)", at(1, 1, 0)),
        SyntaxErrorCase(
            "an incomplete UTF-8 BOM", [0xEF, 0xBB, 0x7B, 0x7D],
            "Expected a JSON value (object, array, string, number, true, false or null), found the invalid UTF-8 sequence 0xEF 0xBB",
            at(1, 1, 0)),
    ]

    @Test("The first syntax error is the only fatal problem, with its message and exact position", arguments: syntaxErrors)
    func syntaxError(example: SyntaxErrorCase) throws {
        let result = JSONParser.parse(example.bytes)
        #expect(result.root == nil)
        let problem = try #require(result.problems.last)
        #expect(result.problems.count == 1)
        #expect(problem.kind == .syntax)
        #expect(problem.isFatal)
        #expect(problem.message == example.message)
        #expect(problem.position == example.position)
        #expect(problem.pointer == nil)
    }

    @Test("Only the first syntax error is reported, after the non-fatal problems found before it")
    func onlyFirstSyntaxError() throws {
        let several = parseJSON("[1,,2,,]")
        #expect(several.problems.map(\.position) == [at(1, 4, 3)])

        let afterBOM = JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1, "a": 2,}"#.utf8))
        #expect(afterBOM.root == nil)
        #expect(afterBOM.problems.map(\.kind) == [.byteOrderMark, .duplicateKey, .syntax])
        #expect(afterBOM.problems.last?.position == at(1, 17, 19))
    }

    @Test("600 nested arrays are too deep for the default limit; 512 are fine")
    func tooDeep() throws {
        let deep = JSONParser.parse(Array(repeating: UInt8(ascii: "["), count: 600) + Array(repeating: UInt8(ascii: "]"), count: 600))
        #expect(deep.root == nil)
        #expect(deep.problems.count == 1)
        let problem = try #require(deep.problems.first)
        #expect(problem.kind == .tooDeep)
        #expect(problem.isFatal)
        #expect(problem.position == at(1, 513, 512))
        #expect(problem.pointer == String(repeating: "/0", count: 512))
        #expect(problem.message == "Arrays and objects are nested more than 512 deep; expected at most 512 levels")

        let limit = JSONParser.parse(Array(repeating: UInt8(ascii: "["), count: 512) + Array(repeating: UInt8(ascii: "]"), count: 512))
        #expect(limit.problems.isEmpty)
        var node = try #require(limit.root)
        var depth = 1
        while let first = node.elements?.first {
            node = first
            depth += 1
        }
        #expect(depth == 512)
    }

    @Test("maxDepth counts objects and arrays alike, and the tooDeep pointer names the container")
    func customDepth() throws {
        let result = parseJSON(#"{"a": {"b": [1]}}"#, maxDepth: 2)
        #expect(result.root == nil)
        #expect(result.problems.map(\.kind) == [.tooDeep])
        #expect(result.problems.first?.pointer == "/a/b")
        #expect(result.problems.first?.position == at(1, 13, 12))
        #expect(parseJSON(#"{"a": {"b": 1}}"#, maxDepth: 2).problems.isEmpty)
        #expect(parseJSON("[]", maxDepth: 0).problems.map(\.kind) == [.tooDeep])
        #expect(parseJSON("1", maxDepth: 0).root?.numberText == "1")
    }

    @Test("100,000 opening brackets are rejected as too deep without recursion")
    func hundredThousandBrackets() throws {
        let result = JSONParser.parse(Array(repeating: UInt8(ascii: "["), count: 100_000))
        #expect(result.root == nil)
        #expect(result.problems.map(\.kind) == [.tooDeep])
        #expect(result.problems.first?.position.offset == 512)
    }

    // MARK: Pointers and the document

    @Test("resolve(pointer:) follows ~0 and ~1 escapes and array indices on a parsed document")
    func resolvePointer() throws {
        let root = try #require(parseJSON(#"{"a/b": {"m~n": [10, 20, {"x": null}]}, "": {"": 1}, "arr": [[0, 1], [2, 3]]}"#).root)
        #expect(root.resolve(pointer: "")?.typeName == "object")
        #expect(root.resolve(pointer: "/a~1b/m~0n/2/x")?.value == .null)
        let twenty = try #require(root.resolve(pointer: "/a~1b/m~0n/1"))
        #expect(twenty.numberText == "20")
        #expect(twenty.position == at(1, 22, 21))
        #expect(root.resolve(pointer: "/a~1b/m~0n/01") == nil)
        #expect(root.resolve(pointer: "/a~1b/m~0n/3") == nil)
        #expect(root.resolve(pointer: "/a~1b/m~0n/-") == nil)
        #expect(root.resolve(pointer: "/a/b") == nil)
        #expect(root.resolve(pointer: "/")?.typeName == "object")
        #expect(root.resolve(pointer: "//")?.numberText == "1")
        #expect(root.resolve(pointer: "/arr/1/0")?.numberText == "2")
    }

    @Test("The shipped-ecommerce sample parses without problems")
    func shippedSample() throws {
        let data = try #require(
            FileManager.default.contents(atPath: Repository.sample("shipped-ecommerce").appendingPathComponent("order.json").path))
        let result = JSONParser.parse([UInt8](data))
        #expect(result.problems.isEmpty)
        let root = try #require(result.root)
        #expect(root.members?.first?.key == "schemaVersion")
        #expect(root.members?.first?.keyPosition == at(2, 3, 4))
        #expect(root["schemaVersion"]?.numberText == "1")
        #expect(root.resolve(pointer: "/merchant/displayName")?.stringValue == "Northwind Outfitters")
        #expect(root.resolve(pointer: "/lineItems/0/price/amount")?.stringValue == "89.00")
        #expect(root.resolve(pointer: "/merchant/address/addressLines/1")?.position.line == 21)
    }

    @Test("A problem describes itself as line:column, kind, message and pointer; only syntax and tooDeep are fatal")
    func problemDescription() throws {
        let problem = JSONProblem(kind: .duplicateKey, message: "Duplicate", position: at(2, 3, 10), pointer: "/a")
        #expect(problem.description == #"2:3: duplicateKey: Duplicate (at "/a")"#)
        #expect(JSONProblem(kind: .syntax, message: "Bad", position: at(1, 1, 0)).description == "1:1: syntax: Bad")
        let fatal = Dictionary(
            uniqueKeysWithValues: [JSONProblem.Kind.syntax, .tooDeep, .duplicateKey, .byteOrderMark, .invalidUTF8, .invalidUnicodeEscape].map {
                ($0, JSONProblem(kind: $0, message: "", position: at(1, 1, 0)).isFatal)
            })
        #expect(
            fatal == [.syntax: true, .tooDeep: true, .duplicateKey: false, .byteOrderMark: false, .invalidUTF8: false, .invalidUnicodeEscape: false])
        let encoded = try JSONEncoder().encode([JSONProblem.Kind.invalidUTF8, .tooDeep])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["invalidUTF8","tooDeep"]"#)
    }
}
