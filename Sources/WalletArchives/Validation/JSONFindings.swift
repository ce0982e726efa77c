package import WalletOrdersJSON

/// The findings of parsing a content file (`order.json`, `pass.json`) as JSON: one rule per kind
/// of problem the parser reports, with the hint for that file.
package enum JSONFindings {
    /// The rule a JSON problem of `kind` is reported under.
    package static func rule(for kind: JSONProblem.Kind) -> ValidationRule {
        switch kind {
        case .syntax: ValidationRule.jsonSyntax
        case .tooDeep: ValidationRule.jsonTooDeep
        case .duplicateKey: ValidationRule.jsonDuplicateKey
        case .byteOrderMark: ValidationRule.jsonByteOrderMark
        case .invalidUTF8: ValidationRule.jsonInvalidUTF8
        case .invalidUnicodeEscape: ValidationRule.jsonInvalidUnicodeEscape
        case .trailingComma: ValidationRule.jsonTrailingComma
        }
    }

    /// What to do about a JSON problem of `kind` in `file`.
    package static func hint(for kind: JSONProblem.Kind, in file: String) -> String {
        switch kind {
        case .syntax: "Fix the JSON here (strict JSON: no comments, no unquoted keys); `python3 -m json.tool \(file)` agrees."
        case .tooDeep: "No \(file.prefix { $0 != "." }) nests that deep; check for a generator bug."
        case .duplicateKey: "Keep one of the two; which one Wallet reads is undefined."
        case .byteOrderMark: "Save \(file) as UTF-8 without a byte-order mark."
        case .invalidUTF8: "Save \(file) as UTF-8."
        case .invalidUnicodeEscape: "Write the character itself, or a valid \\uD8xx\\uDCxx surrogate pair."
        case .trailingComma: "Remove the comma, so that strict JSON tools read the file too."
        }
    }

    /// Each problem of `problems` as a finding in `file`, at its line and column.
    package static func findings(_ problems: [JSONProblem], in file: String) -> [Diagnostic] {
        problems.map { problem in
            Diagnostic(
                rule(for: problem.kind), problem.message,
                at: .init(file: file, jsonPointer: problem.pointer, line: problem.position.line, column: problem.position.column),
                hint: hint(for: problem.kind, in: file))
        }
    }
}
