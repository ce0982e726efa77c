import WalletOrders

/// The order's own localizations (`xx.lproj/order.strings`, localized images) and the page's
/// words for the chosen language.
struct Localization {
    /// The `.lproj` folders of the order, without the extension (`en`, `fr`, `zh-Hans`), sorted.
    let languages: [String]
    /// The localization whose strings and images are used; nil when the order has none.
    let language: String?
    /// The language of the page's own words and of its dates, money and numbers, always one the
    /// page has words for (``Words``), so labels and formats never mix: the requested one, else
    /// the chosen localization's when it has an `order.strings`, else `baseLanguage` (the language
    /// `order.json` is written in), else English. A localization of images only (`ja.lproj`
    /// holding a logo) is no reason to show Japanese dates.
    let pageLanguage: String
    private let strings: [String: String]
    private let files: [String: [UInt8]]

    init(files: [String: [UInt8]], requested: String?, baseLanguage: String = "en") {
        self.files = files
        var folders = Set<String>()
        for path in files.keys {
            guard let slash = path.firstIndex(of: "/") else { continue }
            let folder = path[..<slash]
            if folder.hasSuffix(".lproj") { folders.insert(String(folder.dropLast(6))) }
        }
        languages = folders.sorted()
        language = Self.choose(requested, among: languages)
        let stringsBytes = language.flatMap { files["\($0).lproj/order.strings"] }
        let textLanguage = stringsBytes == nil ? nil : language
        pageLanguage = [requested, textLanguage, baseLanguage].compactMap { $0 }.first(where: Words.has) ?? "en"
        var table: [String: String] = [:]
        if let stringsBytes, case .success(let file) = StringsFile.parse(stringsBytes) {
            for entry in file.entries { table[entry.key] = entry.value }
        }
        strings = table
    }

    /// The localization Wallet would pick for `requested`: the same identifier (any case), else the
    /// same language (`fr-CA` → `fr`), else English, else the first.
    static func choose(_ requested: String?, among languages: [String]) -> String? {
        guard !languages.isEmpty else { return nil }
        if let requested {
            if let exact = languages.first(where: { $0.lowercased() == requested.lowercased() }) { return exact }
            let base = requested.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() }
            if let sameLanguage = languages.first(where: { $0.split(separator: "-").first?.lowercased() == base }) {
                return sameLanguage
            }
        }
        return languages.first { $0.lowercased() == "en" } ?? languages.first { $0.lowercased().hasPrefix("en-") } ?? languages[0]
    }

    /// A displayed value of `order.json`: its translation when it is a key of the chosen strings
    /// file, else itself.
    func text(_ value: String) -> String { strings[value] ?? value }

    /// The bytes of an image named in `order.json`: a top-level file overrides localized ones;
    /// the sharpest variant present (`@3x`, `@2x`, then the name itself) is taken.
    func image(named name: String) -> (path: String, bytes: [UInt8])? {
        let folders = [""] + (language.map { ["\($0).lproj/"] } ?? [])
        for folder in folders {
            for candidate in [Self.variant(name, scale: 3), Self.variant(name, scale: 2), name] {
                if let bytes = files[folder + candidate] { return (folder + candidate, bytes) }
            }
        }
        return nil
    }

    /// The bytes of a document (a receipt, a return label): top level, then the localization.
    func document(named name: String) -> [UInt8]? {
        files[name] ?? language.flatMap { files["\($0).lproj/\(name)"] }
    }

    static func variant(_ name: String, scale: Int) -> String {
        guard let dot = name.lastIndex(of: ".") else { return name + "@\(scale)x" }
        return name[..<dot] + "@\(scale)x" + name[dot...]
    }

    /// The page's own words in the page's language (English when it has no translation).
    func word(_ key: Words.Key) -> String { Words.text(key, language: pageLanguage) }
}
