/// `.lproj` folders: valid names, one parseable `order.strings` each, the same keys everywhere,
/// and every key order.json uses defined in every one.
enum LocalizationRules {
    /// The localizable properties of order.json (spec §1.4).
    static let localizableKeys: Set<String> = [
        "displayName", "title", "subtitle", "altText", "notes", "statusDescription", "label", "returnPolicyDescription",
    ]

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

    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
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
                        "localization.invalid-folder-name", "'\(folder)' is not named after a language identifier.", file: folder + "/",
                        hint: hint))
            }
            if context.files["\(folder)/pass.strings"] != nil {
                findings.append(
                    context.fileDiagnostic(
                        "localization.pass-strings", "'\(folder)/pass.strings' is the Wallet passes file name; orders read order.strings.",
                        file: "\(folder)/pass.strings", hint: "Rename it to order.strings."))
            }
            guard let bytes = context.files["\(folder)/order.strings"] else {
                findings.append(
                    context.fileDiagnostic(
                        "localization.missing-strings", "'\(folder)' has no order.strings.", file: folder + "/",
                        hint: "Every localization folder contains order.strings."))
                continue
            }
            let path = "\(folder)/order.strings"
            switch StringsFile.parse(bytes) {
            case .failure(let failure):
                findings.append(
                    context.fileDiagnostic(
                        failure.isEncoding ? "localization.strings-encoding" : "localization.strings-syntax",
                        "\(path) can't be read: \(failure.message).", file: path, line: failure.line,
                        hint: failure.isEncoding
                            ? "Save it as UTF-16 with a byte-order mark (or UTF-8)." : "Each entry is \"key\" = \"value\"; on its own."))
            case .success(let strings):
                context.strings[folder] = strings
                if strings.hasNonASCII && (strings.encoding == .utf8 || strings.encoding == .utf8WithBOM) {
                    findings.append(
                        context.fileDiagnostic(
                            "localization.non-ascii-utf8", "\(path) has non-ASCII text in UTF-8; Apple asks for UTF-16.", file: path,
                            hint: "iconv -f UTF-8 -t UTF-16 \(path) > tmp && mv tmp \(path)"))
                }
                var seen: Set<String> = []
                for entry in strings.entries where !seen.insert(entry.key).inserted {
                    findings.append(
                        context.fileDiagnostic(
                            "localization.duplicate-key", "\(path) defines '\(entry.key)' more than once.", file: path, line: entry.line,
                            hint: "Keep one definition."))
                }
            }
        }
        let parsed = context.strings
        guard parsed.count > 1 || (parsed.count == 1 && context.localizationFolders.count > 1) else {
            checkUsedKeys(context, parsed, into: &findings)
            return
        }
        let union = parsed.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        for folder in parsed.keys.sorted() {
            let missing = union.subtracting(parsed[folder]?.keys ?? []).sorted()
            guard !missing.isEmpty else { continue }
            let shown = missing.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (missing.count > 5 ? " and \(missing.count - 5) more" : "")
            findings.append(
                context.fileDiagnostic(
                    "localization.keys-differ", "\(folder)/order.strings lacks \(shown), which other localizations define.",
                    file: "\(folder)/order.strings", hint: "Every order.strings has the same keys."))
        }
        checkUsedKeys(context, parsed, into: &findings)
    }

    private static func checkUsedKeys(_ context: ValidationContext, _ parsed: [String: StringsFile], into findings: inout [Diagnostic]) {
        guard let root = context.root, !parsed.isEmpty else { return }
        JSONWalk.members(of: root) { member, path, _ in
            guard case .string(let value) = member.value.value, localizableKeys.contains(member.key) else { return }
            let definedIn = parsed.filter { $0.value.keys.contains(value) }.map(\.key)
            guard !definedIn.isEmpty, definedIn.count < parsed.count else { return }
            let lacking = parsed.keys.filter { !definedIn.contains($0) }.sorted()
            findings.append(
                context.diagnostic(
                    "localization.undefined-key", "The key '\(value)' is not defined in \(lacking.map { "\($0)/order.strings" }.joined(separator: ", ")).",
                    pointer: path.pointer, hint: "Define \"\(value)\" in every order.strings."))
        }
    }
}

extension String {
    /// `en_US` → `en-US`.
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
