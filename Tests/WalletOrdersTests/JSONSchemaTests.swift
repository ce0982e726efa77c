import Foundation
import Testing
import WalletOrders
import WalletOrdersJSON
import WalletOrdersTestSupport

/// Parses JSON text with ``JSONParser``, so positions are real.
private func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONNode {
    let result = JSONParser.parse(Array(text.utf8))
    return try #require(result.root, "not JSON: \(result.problems)", sourceLocation: sourceLocation)
}

/// Compiles a schema written as JSON text.
private func schema(_ text: String, registry: [String: String] = [:]) throws -> JSONSchema {
    var documents: [String: JSONNode] = [:]
    for (uri, document) in registry { documents[uri] = try json(document) }
    return try JSONSchema(document: try json(text), registry: documents)
}

/// The error compiling `text` throws.
private func compileError(_ text: String) throws -> JSONSchemaError {
    let node = try json(text)
    do {
        _ = try JSONSchema(document: node)
    } catch let error as JSONSchemaError {
        return error
    }
    Issue.record("the schema compiled")
    return JSONSchemaError(.invalidSchema, at: "", "")
}

@Suite struct JSONSchemaTests {
    // MARK: Violation details

    @Test("a missing required key is reported at the object, naming the key, the schema location and its description")
    func requiredDetails() throws {
        let validator = try schema(
            """
            {
              "type": "object",
              "properties": { "merchant": { "$ref": "#/$defs/Merchant" } },
              "$defs": {
                "Merchant": {
                  "description": "The merchant that sold the order.",
                  "type": "object",
                  "required": ["merchantIdentifier", "displayName"],
                  "properties": { "displayName": { "type": "string" }, "merchantIdentifier": { "type": "string" } }
                }
              }
            }
            """)
        let violations = validator.validate(
            try json(
                """
                {
                  "merchant": {
                    "displayName": "Northwind"
                  }
                }
                """))
        #expect(violations.count == 1)
        let violation = try #require(violations.first)
        #expect(violation.keyword == "required")
        #expect(violation.instancePointer == "/merchant")
        #expect(violation.instancePosition == SourcePosition(line: 2, column: 15, offset: 16))
        #expect(violation.schemaPointer == "/$defs/Merchant/required")
        #expect(violation.property == "merchantIdentifier")
        #expect(violation.message == "missing required key 'merchantIdentifier'")
        #expect(violation.schemaDescription == "The merchant that sold the order.")
        #expect(violation.allowedValues == nil)
    }

    @Test("an unexpected key is reported at the key itself, with the object's pointer and a spelling suggestion")
    func additionalPropertiesDetails() throws {
        let validator = try schema(
            """
            {
              "description": "A line item.",
              "type": "object",
              "properties": { "color": { "type": "string" }, "quantity": { "type": "integer" } },
              "additionalProperties": false
            }
            """)
        let violations = validator.validate(
            try json(
                """
                {
                  "color": "red",
                  "colour": "blue"
                }
                """))
        let violation = try #require(violations.first)
        #expect(violations.count == 1)
        #expect(violation.keyword == "additionalProperties")
        #expect(violation.instancePointer == "")
        #expect(violation.instancePosition.line == 3)
        #expect(violation.instancePosition.column == 3)
        #expect(violation.schemaPointer == "/additionalProperties")
        #expect(violation.property == "colour")
        #expect(violation.message == "unexpected key 'colour'; did you mean 'color'?")
        #expect(violation.schemaDescription == "A line item.")
    }

    @Test("an enum violation lists the allowed values as JSON text and suggests the near miss")
    func enumDetails() throws {
        let validator = try schema(
            """
            {
              "properties": {
                "status": {
                  "description": "Where the order is.",
                  "enum": ["open", "processing", "onTheWay", "completed", "cancelled"]
                }
              }
            }
            """)
        let violations = validator.validate(try json(#"{"status": "OnTheWay"}"#))
        let violation = try #require(violations.first)
        #expect(violation.keyword == "enum")
        #expect(violation.instancePointer == "/status")
        #expect(violation.instancePosition == SourcePosition(line: 1, column: 12, offset: 11))
        #expect(violation.schemaPointer == "/properties/status/enum")
        #expect(violation.allowedValues == [#""open""#, #""processing""#, #""onTheWay""#, #""completed""#, #""cancelled""#])
        #expect(
            violation.message
                == "'OnTheWay' is not one of open, processing, onTheWay, completed or cancelled; did you mean 'onTheWay'?")
        #expect(violation.schemaDescription == "Where the order is.")
    }

    @Test("const compares numbers by value and objects without regard to member order")
    func constEquality() throws {
        let number = try schema(#"{"const": 1}"#)
        #expect(number.validate(try json("1.0")).isEmpty)
        #expect(number.validate(try json("10e-1")).isEmpty)
        let violation = try #require(number.validate(try json("1.5")).first)
        #expect(violation.keyword == "const")
        #expect(violation.allowedValues == ["1"])
        #expect(violation.message == "expected 1, found 1.5")

        let object = try schema(#"{"const": {"a": 1, "b": [1, {"c": null}]}}"#)
        #expect(object.validate(try json(#"{"b": [1.0, {"c": null}], "a": 1}"#)).isEmpty)
        #expect(object.validate(try json(#"{"b": [{"c": null}, 1], "a": 1}"#)).count == 1)

        let string = try #require(try schema(#"{"const": "shipping"}"#).validate(try json(#""pickup""#)).first)
        #expect(string.message == "expected 'shipping', found 'pickup'")
        #expect(string.allowedValues == [#""shipping""#])
    }

    @Test("integer is any number without a fractional part, and the message says what was found")
    func integerType() throws {
        let validator = try schema(#"{"type": "integer"}"#)
        for whole in ["1", "1.0", "-0", "1e2", "2.50e1"] {
            #expect(validator.validate(try json(whole)).isEmpty, "\(whole) is an integer")
        }
        let violation = try #require(validator.validate(try json("1.5")).first)
        #expect(violation.keyword == "type")
        #expect(violation.message == "expected an integer, found 1.5, which is not a whole number")
        let nullable = try #require(try schema(#"{"type": ["string", "null"]}"#).validate(try json("12")).first)
        #expect(nullable.message == "expected a string or null, found a number")
    }

    @Test("every violation is collected, in document order, not just the first")
    func everyViolation() throws {
        let validator = try schema(
            """
            {
              "type": "object",
              "required": ["orderIdentifier", "status"],
              "properties": {
                "orderNumber": { "type": "string" },
                "currency": { "type": "string", "pattern": "^[A-Z]{3}$" },
                "lineItems": { "type": "array", "items": { "type": "object", "required": ["title"] } }
              }
            }
            """)
        let violations = validator.validate(
            try json(
                """
                {
                  "orderNumber": 42,
                  "currency": "usd",
                  "lineItems": [{"title": "Mug"}, {}],
                  "status": "open"
                }
                """))
        #expect(violations.map(\.keyword) == ["required", "type", "pattern", "required"])
        #expect(violations.map(\.instancePointer) == ["", "/orderNumber", "/currency", "/lineItems/1"])
        #expect(violations.map(\.property) == ["orderIdentifier", nil, nil, "title"])
        #expect(violations.map(\.instancePosition.line) == [1, 2, 3, 4])
        #expect(violations[2].message == "'usd' does not match the pattern ^[A-Z]{3}$")
        #expect(violations[3].schemaPointer == "/properties/lineItems/items/required")
        let valid = try json(#"{"orderIdentifier": "A-1", "status": "open", "currency": "USD"}"#)
        #expect(validator.validate(valid).isEmpty)
        #expect(validator.isValid(valid))
        #expect(!validator.isValid(try json("{}")))
    }

    // MARK: Numbers and strings

    @Test("bounds and multipleOf use exact decimal arithmetic on the number text")
    func exactNumbers() throws {
        // As a Double, 0.30000000000000001 is 0.3; as written, it is larger.
        let maximum = try schema(#"{"maximum": 0.3}"#)
        #expect(maximum.validate(try json("0.3")).isEmpty)
        #expect(maximum.validate(try json("0.300")).isEmpty)
        let over = try #require(maximum.validate(try json("0.30000000000000001")).first)
        #expect(over.keyword == "maximum")
        #expect(over.message == "0.30000000000000001 is greater than the maximum 0.3")

        // 19.99 / 0.01 is 1998.9999999999998 in Double arithmetic.
        let cents = try schema(#"{"multipleOf": 0.01}"#)
        #expect(cents.validate(try json("19.99")).isEmpty)
        #expect(cents.validate(try json("1e300")).isEmpty)
        #expect(cents.validate(try json("123456789012345678901234567890.12")).isEmpty)
        #expect(try #require(cents.validate(try json("19.999")).first).message == "19.999 is not a multiple of 0.01")

        // Huge exponents neither crash nor round.
        let bounded = try schema(#"{"exclusiveMinimum": 0, "maximum": 1e400}"#)
        #expect(bounded.validate(try json("1e-400")).isEmpty)
        #expect(bounded.validate(try json("1e400")).isEmpty)
        #expect(bounded.validate(try json("1.0000000000000000000000001e400")).map(\.keyword) == ["maximum"])
        #expect(bounded.validate(try json("-1e-999999999999999999999")).map(\.keyword) == ["exclusiveMinimum"])
        #expect(try schema(#"{"multipleOf": 1e-400}"#).validate(try json("1e400")).isEmpty)
    }

    @Test("minLength and maxLength count Unicode code points")
    func lengthInCodePoints() throws {
        let validator = try schema(#"{"minLength": 3, "maxLength": 4}"#)
        #expect(validator.validate(try json(#""🐲🐲🐲""#)).isEmpty)
        #expect(validator.validate(try json(#""e\u0301te""#)).isEmpty)  // 4 scalars, 3 graphemes
        let short = try #require(validator.validate(try json(#""🐲🐲""#)).first)
        #expect(short.keyword == "minLength")
        #expect(short.message == "'🐲🐲' is too short: expected at least 3 characters, found 2")
        let long = try #require(validator.validate(try json(#""abcde""#)).first)
        #expect(long.message == "'abcde' is too long: expected at most 4 characters, found 5")
    }

    @Test(
        "pattern is an unanchored ECMA-262 search",
        arguments: [
            ("^[A-Z]{3}$", "USD", true), ("^[A-Z]{3}$", "USDX", false), ("[0-9]", "abc1", true),
            (#"^-?[0-9]+(\.[0-9]+)?$"#, "12.50", true), (#"^-?[0-9]+(\.[0-9]+)?$"#, "12,50", false),
            (#"^\d+$"#, "٣", false),  // \d is ASCII only
            (#"^\w+$"#, "é", false),  // so is \w
            (#"^\s$"#, "\u{FEFF}", true),  // ECMA-262 whitespace includes U+FEFF
            ("^abc$", "abc\n", false),  // $ is the end, not a final newline
            ("^.$", "🐲", true), ("^.$", "e\u{301}", false),  // . is one code point
            ("^(?:a|b)+c{2,3}$", "abacc", true), ("^(?:a|b)+c{2,3}$", "abcccc", false),
            ("^https://", "https://example.com", true), ("^https://", "http://example.com", false),
            (#"^(?=.*\d)\w+$"#, "abc1", true), (#"^(?=.*\d)\w+$"#, "abc", false),  // lookahead: Swift Regex
            (#"^(a)\1$"#, "aa", true), (#"^\cJ$"#, "\n", true),  // backreference; \cX via NSRegularExpression
        ])
    func patterns(pattern: String, text: String, matches: Bool) throws {
        var escaped = ""
        for scalar in pattern.unicodeScalars {
            escaped += scalar == "\\" ? "\\\\" : scalar == "\"" ? "\\\"" : String(scalar)
        }
        let validator = try schema(#"{"pattern": "\#(escaped)"}"#)
        let instance = JSONNode(.string(text), at: SourcePosition(line: 1, column: 1, offset: 0))
        #expect(validator.validate(instance).isEmpty == matches)
        #expect(validator.isValid(instance) == matches)
    }

    @Test(
        "format asserts date-time, uri, duration and iso8601-duration, and only annotates the others",
        arguments: [
            ("date-time", "2025-11-21T19:48:12Z", true), ("date-time", "2025-11-21T19:48:12.5+09:00", true),
            ("date-time", "1998-12-31T23:59:60Z", true), ("date-time", "1998-12-31T15:59:60-08:00", true),
            ("date-time", "1998-12-31T22:59:60Z", false), ("date-time", "2025-02-29T00:00:00Z", false),
            ("date-time", "2024-02-29T00:00:00Z", true), ("date-time", "2025-11-21 19:48:12Z", false),
            ("date-time", "2025-11-21T19:48:12", false), ("uri", "https://example.com/a?b#c", true),
            ("uri", "urn:isbn:0451450523", true), ("uri", "/relative/path", false), ("uri", "https://exa mple.com", false),
            ("duration", "PT30M", true), ("duration", "P1Y2M3DT4H5M6S", true), ("duration", "P2W", true),
            ("duration", "PT", false), ("duration", "P1Y2D", false), ("duration", "PT0.5S", false),
            // ISO 8601-1, not RFC 3339's profile of it: components may be left out, and the
            // lowest-order one given may have a decimal fraction.
            ("iso8601-duration", "PT1H30S", true), ("iso8601-duration", "P1Y2D", true), ("iso8601-duration", "PT0,5S", true),
            ("iso8601-duration", "PT1.5H", true), ("iso8601-duration", "P0Y0M0DT0H30M0S", true), ("iso8601-duration", "P2W", true),
            ("iso8601-duration", "PT", false), ("iso8601-duration", "PT1.5H30M", false), ("iso8601-duration", "P1H", false),
            ("email", "not an email", true), ("uuid", "nope", true),
        ])
    func formats(format: String, value: String, valid: Bool) throws {
        let validator = try schema(#"{"format": "\#(format)"}"#)
        let violations = validator.validate(JSONNode(.string(value), at: SourcePosition(line: 1, column: 1, offset: 0)))
        #expect(violations.isEmpty == valid)
        if let violation = violations.first {
            #expect(violation.keyword == "format")
            #expect(violation.message.hasPrefix("'\(value)' is not a valid \(format): expected "))
        }
        #expect(validator.validate(try json("42")).isEmpty, "formats only apply to strings")
    }

    @Test("iso8601-duration accepts exactly the window durations the order validator accepts")
    func iso8601Durations() throws {
        let validator = try schema(#"{"format": "iso8601-duration"}"#)
        for value in ValidationRuleTests.validDurations {
            #expect(validator.validate(JSONNode(.string(value), at: SourcePosition(line: 1, column: 1, offset: 0))).isEmpty, "\(value)")
        }
        for value in ValidationRuleTests.invalidDurations {
            #expect(!validator.validate(JSONNode(.string(value), at: SourcePosition(line: 1, column: 1, offset: 0))).isEmpty, "\(value)")
        }
    }

    // MARK: Combinators

    @Test("a failed discriminated oneOf is one violation that names the closest alternative and its problem")
    func discriminatedUnion() throws {
        let validator = try schema(
            """
            {
              "properties": {
                "fulfillments": {
                  "type": "array",
                  "items": { "oneOf": [{ "$ref": "#/$defs/Shipping" }, { "$ref": "#/$defs/Pickup" }] }
                }
              },
              "$defs": {
                "Shipping": {
                  "type": "object",
                  "required": ["fulfillmentType", "status", "trackingNumber"],
                  "properties": { "fulfillmentType": { "const": "shipping" }, "status": { "type": "string" } }
                },
                "Pickup": {
                  "type": "object",
                  "required": ["fulfillmentType", "status", "pickupAt"],
                  "properties": { "fulfillmentType": { "const": "pickup" }, "status": { "type": "string" } }
                }
              }
            }
            """)
        let violations = validator.validate(
            try json(#"{"fulfillments": [{"fulfillmentType": "pickup", "status": "open"}]}"#))
        #expect(violations.count == 1)
        let violation = try #require(violations.first)
        #expect(violation.keyword == "oneOf")
        #expect(violation.instancePointer == "/fulfillments/0")
        #expect(violation.schemaPointer == "/properties/fulfillments/items/oneOf")
        #expect(
            violation.message
                == "the object matches none of the alternatives (Shipping or Pickup); closest is Pickup: missing required key 'pickupAt'")

        let both = try schema(#"{"oneOf": [{"type": "integer"}, {"minimum": 0}]}"#)
        let ambiguous = try #require(both.validate(try json("5")).first)
        #expect(ambiguous.keyword == "oneOf")
        #expect(ambiguous.message == "5 matches 2 of the alternatives (an integer and alternative 2) but must match exactly one")
        #expect(both.validate(try json("-5")).isEmpty)
    }

    @Test("a failed anyOf summarizes: the expected types, or the closest alternative")
    func anyOfSummary() throws {
        let amount = try schema(
            ##"{"$defs": {"DecimalAmount": {"anyOf": [{"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"}, {"type": "number"}]}}, "$ref": "#/$defs/DecimalAmount"}"##
        )
        #expect(amount.validate(try json(#""12.50""#)).isEmpty)
        #expect(amount.validate(try json("12.5")).isEmpty)
        let wrongType = try #require(amount.validate(try json("true")).first)
        #expect(wrongType.keyword == "anyOf")
        #expect(wrongType.schemaPointer == "/$defs/DecimalAmount/anyOf")
        #expect(wrongType.message == "expected a string or a number, found a boolean")
        let wrongText = try #require(amount.validate(try json(#""12,50""#)).first)
        #expect(
            wrongText.message
                == #"'12,50' matches none of the alternatives (a string or a number); closest is a string: '12,50' does not match the pattern ^-?[0-9]+(\.[0-9]+)?$"#
        )
    }

    @Test("if/then reports the then branch's own violations, not a summary")
    func ifThenViolations() throws {
        let validator = try schema(
            """
            {
              "if": { "properties": { "fulfillmentType": { "const": "shipping" } } },
              "then": { "$ref": "#/$defs/Shipping" },
              "$defs": {
                "Shipping": {
                  "description": "A shipped fulfillment.",
                  "required": ["trackingNumber"],
                  "properties": { "trackingNumber": { "type": "string", "minLength": 1 } }
                }
              }
            }
            """)
        let violations = validator.validate(try json(#"{"fulfillmentType": "shipping"}"#))
        #expect(violations.map(\.keyword) == ["required"])
        #expect(violations.first?.schemaPointer == "/$defs/Shipping/required")
        #expect(violations.first?.schemaDescription == "A shipped fulfillment.")
        #expect(validator.validate(try json(#"{"fulfillmentType": "pickup"}"#)).isEmpty)
        #expect(validator.validate(try json(#"{"fulfillmentType": "shipping", "trackingNumber": ""}"#)).map(\.keyword) == ["minLength"])
    }

    @Test("a subschema without a description borrows the one of the subschema that referenced it")
    func inheritedDescription() throws {
        let validator = try schema(
            """
            {
              "properties": { "currency": { "description": "The ISO 4217 currency of the total.", "$ref": "#/$defs/Code" } },
              "$defs": { "Code": { "type": "string", "pattern": "^[A-Z]{3}$" } }
            }
            """)
        let violation = try #require(validator.validate(try json(#"{"currency": "usd"}"#)).first)
        #expect(violation.schemaPointer == "/$defs/Code/pattern")
        #expect(violation.schemaDescription == "The ISO 4217 currency of the total.")
    }

    @Test("unevaluatedProperties sees properties that $ref, allOf and a passing if evaluated")
    func unevaluatedProperties() throws {
        let validator = try schema(
            """
            {
              "allOf": [{ "$ref": "#/$defs/Base" }],
              "if": { "properties": { "kind": { "const": "a" } } },
              "then": { "properties": { "extra": true } },
              "unevaluatedProperties": false,
              "$defs": { "Base": { "properties": { "kind": { "type": "string" } } } }
            }
            """)
        #expect(validator.validate(try json(#"{"kind": "a", "extra": 1}"#)).isEmpty)
        let violations = validator.validate(try json(#"{"kind": "b", "extra": 1}"#))
        #expect(violations.map(\.keyword) == ["unevaluatedProperties"])
        #expect(violations.map(\.property) == ["extra"])
        #expect(violations.first?.message == "unexpected key 'extra'")
    }

    // MARK: References

    @Test("$ref resolves JSON Pointers, anchors, relative URIs against $id, and registry documents")
    func references() throws {
        let validator = try schema(
            """
            {
              "$id": "https://example.com/schemas/order.json",
              "properties": {
                "total": { "$ref": "common.json#/$defs/Amount" },
                "currency": { "$ref": "common.json#currency" },
                "note": { "$ref": "#note" },
                "tilde~slash": { "$ref": "#/$defs/a~1b%25c" }
              },
              "$defs": {
                "note": { "$anchor": "note", "type": "string", "maxLength": 3 },
                "a/b%c": { "type": "boolean" }
              }
            }
            """,
            registry: [
                "https://example.com/schemas/common.json": """
                {
                  "$defs": {
                    "Amount": { "type": "string", "pattern": "^[0-9]+$" },
                    "Currency": { "$anchor": "currency", "enum": ["USD", "EUR"] }
                  }
                }
                """
            ])
        let valid = try json(#"{"total": "12", "currency": "EUR", "note": "hi", "tilde~slash": true}"#)
        #expect(validator.validate(valid).isEmpty)
        let violations = validator.validate(try json(#"{"total": "1.5", "currency": "GBP", "note": "hello", "tilde~slash": 1}"#))
        #expect(
            violations.map(\.schemaPointer) == [
                "https://example.com/schemas/common.json#/$defs/Amount/pattern",
                "https://example.com/schemas/common.json#/$defs/Currency/enum",
                "/$defs/note/maxLength",
                "/$defs/a~1b%c/type",
            ])
        #expect(violations.last?.instancePointer == "/tilde~0slash")
    }

    @Test("a $ref cycle that never moves into the instance is reported, not a stack overflow")
    func referenceCycle() throws {
        let validator = try schema(##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}"##)
        let violations = validator.validate(try json("1"))
        #expect(violations.count == 1)
        #expect(violations.first?.keyword == "$ref")
        #expect(violations.first?.message.contains("without moving into the value") == true)
        #expect(!validator.isValid(try json("1")))
    }

    @Test("an instance nested as deep as the parser allows validates against a recursive schema")
    func deepInstance() throws {
        let validator = try schema(##"{"$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "$ref": "#/$defs/node"}"##)
        let depth = 500
        let deep = try json(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        #expect(validator.validate(deep).isEmpty)
        let bad = try json(String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth))
        let violations = validator.validate(bad)
        #expect(violations.map(\.keyword) == ["type"])
        #expect(violations.first?.instancePointer == String(repeating: "/0", count: depth))
    }

    // MARK: Compile errors

    @Test("an unresolvable $ref fails compilation, naming where it is and what it points at")
    func unresolvableReference() throws {
        let missingPointer = try compileError(##"{"properties": {"a": {"$ref": "#/$defs/Missing"}}}"##)
        #expect(missingPointer.kind == .unresolvableReference)
        #expect(missingPointer.schemaPointer == "/properties/a/$ref")
        #expect(missingPointer.message.contains("'/$defs/Missing'"))

        let missingDocument = try compileError(#"{"$defs": {"x": {"$ref": "https://example.com/other.json"}}}"#)
        #expect(missingDocument.kind == .unresolvableReference)
        #expect(missingDocument.schemaPointer == "/$defs/x/$ref")
        #expect(missingDocument.description.hasPrefix("/$defs/x/$ref: cannot resolve 'https://example.com/other.json'"))

        let missingAnchor = try compileError(##"{"items": {"$ref": "#nowhere"}}"##)
        #expect(missingAnchor.schemaPointer == "/items/$ref")
        #expect(missingAnchor.message.contains("'nowhere'"))
    }

    @Test("a keyword of an earlier draft fails compilation rather than being ignored")
    func unsupportedKeyword() throws {
        let error = try compileError(#"{"properties": {"tags": {"items": {"type": "string"}, "additionalItems": false}}}"#)
        #expect(error.kind == .unsupportedKeyword)
        #expect(error.schemaPointer == "/properties/tags/additionalItems")
        #expect(error.message.contains("'prefixItems'"))
        #expect(try compileError(#"{"dependencies": {"a": ["b"]}}"#).kind == .unsupportedKeyword)
        #expect(JSONSchema.unsupportedKeywords == ["$recursiveRef", "$recursiveAnchor", "dependencies", "additionalItems"])
        // A keyword no vocabulary defines is ignored, as the specification says.
        #expect(try schema(#"{"x-wallet-note": {"type": 5}, "type": "string"}"#).validate(try json(#""ok""#)).isEmpty)
    }

    @Test(
        "an invalid keyword value fails compilation at that keyword",
        arguments: [
            (#"{"minLength": -1}"#, "/minLength"), (#"{"type": "text"}"#, "/type"),
            (#"{"properties": {"a": {"pattern": "(unclosed"}}}"#, "/properties/a/pattern"),
            (#"{"required": ["a", "a"]}"#, "/required"), (#"{"multipleOf": 0}"#, "/multipleOf"),
            (#"{"items": [{"type": "string"}]}"#, "/items"), (#"{"allOf": []}"#, "/allOf"),
            (#"{"$defs": {"x": 5}}"#, "/$defs/x"),
        ])
    func invalidSchema(text: String, pointer: String) throws {
        let error = try compileError(text)
        #expect(error.kind == .invalidSchema)
        #expect(error.schemaPointer == pointer)
    }

    // MARK: String equality

    @Test("property names and enum strings compare by code points: a canonically equivalent key is another key")
    func keysCompareByCodePoints() throws {
        // "é" as one code point (U+00E9) and as "e" + U+0301: equal as Swift strings, different in JSON.
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        let validator = try schema(
            """
            {
              "type": "object",
              "properties": { "\(composed)": { "type": "string" }, "\(decomposed)": { "type": "integer" }, "kind": { "enum": ["\(composed)"] } },
              "additionalProperties": false
            }
            """)
        #expect(validator.validate(try json(#"{"\#(composed)": "x", "\#(decomposed)": 1, "kind": "\#(composed)"}"#)).isEmpty)
        let wrong = validator.validate(try json(#"{"\#(composed)": 1, "\#(decomposed)": "x", "kind": "\#(decomposed)"}"#))
        #expect(wrong.map(\.keyword) == ["type", "type", "enum"])
        #expect(wrong.map(\.instancePointer) == ["/\(composed)", "/\(decomposed)", "/kind"])
    }

    @Test("ExactKeyTable finds each of many keys by its exact bytes, and nothing else")
    func exactKeyTable() {
        var table = ExactKeyTable()
        let keys = [""] + (0..<300).map { "key-\($0)" } + ["\u{E9}", "e\u{301}", "K", "\u{212A}"]
        for (index, key) in keys.enumerated() {
            #expect(table.insert(key) == (index, true))
        }
        #expect(table.insert("key-7") == (8, false))
        #expect(table.count == keys.count)
        #expect(keys.indices.allSatisfy { table.index(of: keys[$0]) == $0 })
        #expect(table.index(of: "key-300") == nil)
        #expect(table.index(of: "key-") == nil)
        #expect(table.index(of: "Key-1") == nil)
        #expect(ExactKeyTable().index(of: "") == nil)
    }

    // MARK: Concurrency

    @Test("one compiled schema validates from many tasks at once with the same results")
    func concurrentValidation() async throws {
        let validator = try schema(
            #"{"properties": {"code": {"pattern": "^[A-Z]{3}$"}, "when": {"format": "date-time"}, "n": {"multipleOf": 0.01}}, "required": ["code"]}"#
        )
        let instances = try [
            json(#"{"code": "USD", "when": "2025-01-01T00:00:00Z", "n": 1.25}"#),
            json(#"{"code": "usd", "when": "yesterday", "n": 1.255}"#),
        ]
        let expected = instances.map { validator.validate($0).count }
        #expect(expected == [0, 3])
        let results = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<200).flatMap { _ in instances.map { validator.validate($0).count } } }
            }
            var all: [[Int]] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == Array(repeating: expected, count: 200).flatMap { $0 } })
    }
}
