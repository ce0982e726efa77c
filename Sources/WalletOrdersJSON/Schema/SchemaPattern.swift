import Foundation

/// A compiled `pattern` / `patternProperties` regular expression, searched (not anchored) in a
/// string, as ECMA-262 `RegExp.prototype.test` does.
///
/// Three engines, the first that accepts the pattern wins:
/// 1. `^literal` is a prefix comparison.
/// 2. ``PatternMachine`` handles patterns that describe a regular language (literals, classes,
///    `\d \w \s`, anchors, groups, alternation, quantifiers: what schemas use) in linear time
///    and about a tenth of Swift `Regex`'s cost; validation runs patterns on every amount and code.
/// 3. Swift `Regex` for the rest: on Linux it is as fast as `NSRegularExpression` (about a
///    microsecond per short match on this machine, both), and closer to ECMA-262: with Unicode-scalar
/// semantics `.` is one code point (not a grapheme), `\d` and `\w` are ASCII-only, `$` does not
/// match before a trailing newline (ICU's `\d` matches any decimal digit and its `$` does), and
/// `\s` is widened to ECMA-262's set (which adds U+FEFF). ECMA-262 syntax Swift's parser rejects
/// (`\cX`) falls back to `NSRegularExpression`.
struct SchemaPattern: @unchecked Sendable {
    // @unchecked: `Regex<AnyRegexOutput>` is not `Sendable` only because its output type isn't;
    // the regex is compiled in `init` (by a first match) and never mutated afterwards, and
    // `NSRegularExpression` is immutable and documented as thread-safe.

    /// The pattern as written in the schema.
    let source: String
    private let machine: PatternMachine?
    private let regex: Regex<AnyRegexOutput>?
    private let fallback: NSRegularExpression?
    /// For patterns that are `^` plus plain characters (`^https://`): the prefix.
    private let literalPrefix: String?

    /// Compiles `source`; `nil` when it is not a regular expression either engine accepts.
    init?(_ source: String) {
        self.source = source
        if let prefix = Self.literalPrefix(of: source) {
            literalPrefix = prefix
            machine = nil
            regex = nil
            fallback = nil
            return
        }
        literalPrefix = nil
        if let compiled = PatternMachine(source) {
            machine = compiled
            regex = nil
            fallback = nil
            return
        }
        machine = nil
        if let compiled = try? Regex(Self.ecmaWhitespace(source)).matchingSemantics(.unicodeScalar).asciiOnlyDigits()
            .asciiOnlyWordCharacters()
        {
            regex = compiled
            fallback = nil
            _ = try? compiled.firstMatch(in: "")  // compile the program now, once
        } else if let compiled = try? NSRegularExpression(pattern: source) {
            regex = nil
            fallback = compiled
        } else {
            return nil
        }
    }

    /// Whether the pattern matches somewhere in `text`.
    func matches(_ text: String) -> Bool {
        if let literalPrefix { return text.unicodeScalars.starts(with: literalPrefix.unicodeScalars) }
        if let machine { return machine.matches(text) }
        if let regex { return (try? regex.firstMatch(in: text)) != nil }
        if let fallback {
            return fallback.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        return false
    }

    /// `source` with ECMA-262's `\s` (which, unlike Unicode's `White_Space`, includes U+FEFF)
    /// spelled out for Swift: `[\s\u{FEFF}]`, and `\S` as its complement.
    private static func ecmaWhitespace(_ source: String) -> String {
        guard source.contains("\\s") || source.contains("\\S") else { return source }
        var result = ""
        var inClass = false
        var characters = source.makeIterator()
        while let character = characters.next() {
            if character == "\\", let escaped = characters.next() {
                switch escaped {
                case "s": result += inClass ? "\\s\\u{FEFF}" : "[\\s\\u{FEFF}]"
                case "S" where !inClass: result += "[^\\s\\u{FEFF}]"
                default: result += "\\" + String(escaped)
                }
                continue
            }
            if character == "[" && !inClass {
                inClass = true
            } else if character == "]" && inClass {
                inClass = false
            }
            result.append(character)
        }
        return result
    }

    /// `^abc` where `abc` has no regular-expression syntax: the literal prefix.
    private static func literalPrefix(of source: String) -> String? {
        guard source.hasPrefix("^"), source.count > 1 else { return nil }
        let rest = source.dropFirst()
        let special: Set<Character> = ["\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}"]
        guard rest.allSatisfy({ !special.contains($0) && $0.isASCII }) else { return nil }
        return String(rest)
    }
}
