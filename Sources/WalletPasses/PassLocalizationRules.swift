/// The `pass.strings` of each `.lproj` folder: readable (UTF-8, or UTF-16 with a byte-order mark;
/// `"key" = "value";` lines), and the same keys in every language (Apple's Building a Pass,
/// Common Problems). The device shows the key itself where a translation is missing rather than
/// refusing the pass, so these are warnings.
enum PassLocalizationRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        var keys: [(folder: String, keys: Set<String>)] = []
        for folder in context.localizationFolders {
            let path = "\(folder)/pass.strings"
            guard let bytes = context.files[path] else { continue }
            switch StringsFile.parse(bytes) {
            case .success(let file):
                keys.append((folder, file.keys))
            case .failure(let failure):
                findings.append(
                    Diagnostic(
                        failure.isEncoding ? .passStringsEncoding : .passStringsSyntax, "\(path): \(failure.message).",
                        at: .init(file: path, line: failure.line),
                        hint: failure.isEncoding
                            ? "Save pass.strings as UTF-8, or as UTF-16 with a byte-order mark (what Apple asks for when it has non-ASCII text)."
                            : "Write each entry as \"key\" = \"value\"; with /* comments */ between them."))
            }
        }
        guard let union = keys.map(\.keys).reduce(nil, { ($0 ?? Set()).union($1) }) else { return }
        for (folder, own) in keys where own != union {
            let missing = union.subtracting(own).sorted()
            findings.append(
                Diagnostic(
                    .passStringsKeysDiffer,
                    "\(folder)/pass.strings lacks \(missing.count) key\(missing.count == 1 ? "" : "s") the other languages have: \(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", …" : ""). Wallet shows the key itself there.",
                    at: .init(file: "\(folder)/pass.strings"), hint: "Give every pass.strings the same keys."))
        }
    }
}
