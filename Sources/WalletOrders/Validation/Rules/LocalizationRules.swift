import WalletOrdersJSON

/// `.lproj` folders: valid names, one parseable `order.strings` each (a folder without one is an
/// error: Apple's troubleshooting list), the same keys everywhere, and every key order.json uses
/// defined in every one (a folder without `order.strings` defines none).
enum LocalizationRules {
    /// The localizable properties of order.json (spec §1.4).
    static let localizableKeys: Set<String> = [
        "displayName", "title", "subtitle", "altText", "notes", "statusDescription", "label", "returnPolicyDescription",
    ]

    /// A localizable string of order.json and where it is, from ``ContentWalk``.
    struct UsedString {
        var value: String
        var path: JSONPath
    }

    /// Whether `name` (without `.lproj`) is a language identifier: `ll[-Ssss][-RR]`.
    static func isLanguageIdentifier(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let language = parts.first, (2...3).contains(language.count), language == language.lowercased(),
            ReferenceData.languageCodes.contains(language)
        else { return false }
        var rest = parts.dropFirst()
        if let script = rest.first, script.count == 4, ReferenceData.scriptCodes.contains(script) { rest = rest.dropFirst() }
        if let region = rest.first {
            let isCountry = region.count == 2 && ReferenceData.countryCodes.contains(region)
            let isNumeric = region.count == 3 && region.allSatisfy(\.isNumber)
            guard isCountry || isNumeric else { return false }
            rest = rest.dropFirst()
        }
        return rest.isEmpty
    }

    /// The folders, their `order.strings`, and `used` (every localizable string of order.json).
    static func check(_ context: ValidationContext, used: [UsedString], into findings: inout [Diagnostic]) {
        for folder in context.localizationFolders {
            let stem = String(folder.dropLast(".lproj".count))
            if !isLanguageIdentifier(stem) {
                let fixed = stem.replacingUnderscores()
                let hint =
                    fixed != stem && isLanguageIdentifier(fixed)
                    ? "Rename it to \(fixed).lproj (hyphen, not underscore)."
                    : "Use a language identifier such as en, fr-CA or zh-Hans."
                findings.append(
                    context.fileDiagnostic(
                        .localizationInvalidFolderName, "'\(folder)' is not named after a language identifier.", file: folder + "/",
                        hint: hint))
            }
            if context.files["\(folder)/pass.strings"] != nil {
                findings.append(
                    context.fileDiagnostic(
                        .localizationPassStrings, "'\(folder)/pass.strings' is the Wallet passes file name; orders read order.strings.",
                        file: "\(folder)/pass.strings", hint: "Rename it to order.strings."))
            }
            guard let bytes = context.files["\(folder)/order.strings"] else {
                findings.append(
                    context.fileDiagnostic(
                        .localizationMissingStrings,
                        "'\(folder)' has no order.strings, so order.json's localized text has no translation in that language; Apple's troubleshooting list asks for one in each localization folder (a checklist line, not a refusal Wallet is known to make).",
                        file: folder + "/",
                        hint: "Add \(folder)/order.strings with the keys the other localizations define, unless the folder only localizes images."))
                continue
            }
            let path = "\(folder)/order.strings"
            switch StringsFile.parse(bytes) {
            case .failure(let failure):
                findings.append(
                    context.fileDiagnostic(
                        failure.isEncoding ? ValidationRule.localizationStringsEncoding : ValidationRule.localizationStringsSyntax,
                        "\(path) can't be read: \(failure.message).", file: path, line: failure.line,
                        hint: failure.isEncoding
                            ? "Save it as UTF-16 with a byte-order mark (or UTF-8)." : "Each entry is \"key\" = \"value\"; on its own."))
            case .success(let strings):
                context.strings[folder] = strings
                if strings.hasNonASCII && (strings.encoding == .utf8 || strings.encoding == .utf8WithBOM) {
                    findings.append(
                        context.fileDiagnostic(
                            .localizationNonASCIIUTF8, "\(path) has non-ASCII text in UTF-8; Apple asks for UTF-16.", file: path,
                            hint: "iconv -f UTF-8 -t UTF-16 \(path) > tmp && mv tmp \(path)"))
                }
                var seen: Set<String> = []
                for entry in strings.entries where !seen.insert(entry.key).inserted {
                    findings.append(
                        context.fileDiagnostic(
                            .localizationDuplicateKey, "\(path) defines '\(entry.key)' more than once.", file: path, line: entry.line,
                            hint: "Keep one definition."))
                }
            }
        }
        checkTopLevelOverrides(context, into: &findings)
        let parsed = context.strings
        guard parsed.count > 1 || (parsed.count == 1 && context.localizationFolders.count > 1) else {
            checkUsedKeys(context, parsed, used: used, into: &findings)
            return
        }
        let union = parsed.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        for folder in parsed.keys.sorted() {
            let missing = union.subtracting(parsed[folder]?.keys ?? []).sorted()
            guard !missing.isEmpty else { continue }
            let shown = missing.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (missing.count > 5 ? " and \(missing.count - 5) more" : "")
            findings.append(
                context.fileDiagnostic(
                    .localizationKeysDiffer, "\(folder)/order.strings lacks \(shown), which other localizations define.",
                    file: "\(folder)/order.strings", hint: "Every order.strings has the same keys."))
        }
        checkUsedKeys(context, parsed, used: used, into: &findings)
    }

    /// Apple: "Adding an image of the same name to the top-level folder of the order file
    /// overrides any localized versions." One finding per top-level file that hides localized ones.
    private static func checkTopLevelOverrides(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard !context.localizationFolders.isEmpty else { return }
        for path in context.files.keys.sorted() where !path.contains("/") && path != OrderArchive.orderPath {
            let hidden = context.localizationFolders.map { "\($0)/\(path)" }.filter { context.files[$0] != nil }
            guard !hidden.isEmpty else { continue }
            let shown = hidden.prefix(3).joined(separator: ", ") + (hidden.count > 3 ? " and \(hidden.count - 3) more" : "")
            findings.append(
                context.fileDiagnostic(
                    .localizationTopLevelFileOverrides,
                    "The top-level \(path) replaces the localized \(shown): every language shows the top-level one.",
                    file: path, hint: "Remove the top-level \(path) to show each language its own, or the localized copies if one image is meant."))
        }
    }

    /// A key that differs from one `order.strings` defines only by case or one edit: the string
    /// `CheesecakeSlice` in order.json shows as it is when the files define `CheeseCakeSlice`.
    static func nearMiss(_ value: String, among keys: Set<String>) -> String? {
        guard value.count <= 200 else { return nil }
        let lowered = value.lowercased()
        let scalars = Array(value.unicodeScalars)
        var best: String?
        for key in keys.sorted() where abs(key.unicodeScalars.count - scalars.count) <= 1 {
            if key.lowercased() == lowered { return key }
            if best == nil, Self.isOneEdit(scalars, Array(key.unicodeScalars)) { best = key }
        }
        return best
    }

    /// One insertion, deletion, substitution, or swap of two neighbours (TITEL, TITLE).
    static func isOneEdit(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        if NearestName.levenshtein(a, b) == 1 { return true }
        guard a.count == b.count else { return false }
        let differing = a.indices.filter { a[$0] != b[$0] }
        return differing.count == 2 && differing[1] == differing[0] + 1
            && a[differing[0]] == b[differing[1]] && a[differing[1]] == b[differing[0]]
    }

    /// Each key order.json uses that some order.strings lacks: checked against every folder whose
    /// order.strings parsed (`parsed`). A folder that has none (one that only localizes images,
    /// say) has its own warning, `localization.missing-strings`, and no error per key.
    private static func checkUsedKeys(
        _ context: ValidationContext, _ parsed: [String: StringsFile], used: [UsedString],
        into findings: inout [Diagnostic]
    ) {
        guard !parsed.isEmpty else { return }
        let allKeys = parsed.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        for string in used {
            let (value, path) = (string.value, string.path)
            let definedIn = parsed.filter { $0.value.keys.contains(value) }.map(\.key)
            if definedIn.isEmpty, let key = nearMiss(value, among: allKeys) {
                findings.append(
                    context.diagnostic(
                        .localizationKeyNearMiss,
                        "'\(value)' is shown as it is: no order.strings defines it, but they define '\(key)'.",
                        pointer: path.pointer, hint: "Did you mean '\(key)'? Keys are case-sensitive."))
                continue
            }
            guard !definedIn.isEmpty, definedIn.count < parsed.count else { continue }
            let places = parsed.keys.filter { !definedIn.contains($0) }.sorted().map { "\($0)/order.strings" }
            findings.append(
                context.diagnostic(
                    .localizationUndefinedKey, "The key '\(value)' is not defined in \(places.joined(separator: ", ")).",
                    pointer: path.pointer, hint: "Define \"\(value)\" in every order.strings."))
        }
    }
}

extension String {
    /// `en_US` → `en-US`.
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
