/// Reference lists derived from standards, not typed by hand (see `Generator/`).
enum ReferenceData {
    /// ISO 4217 code → minor units (fraction digits).
    static let currencyMinorUnits: [String: Int] = {
        var table: [String: Int] = [:]
        for entry in currencyTable.split(separator: " ") {
            let parts = entry.split(separator: ":")
            table[String(parts[0])] = Int(parts[1]) ?? 2
        }
        return table
    }()

    /// ISO 3166-1 alpha-2 codes.
    static let countryCodes: Set<String> = Set(countryTable.split(separator: " ").map(String.init))

    /// ISO 639 language codes (two-letter, and three-letter where no two-letter code exists).
    static let languageCodes: Set<String> = Set(languageTable.split(separator: " ").map(String.init))

    /// ISO 15924 script codes (`Hans`, `Latn`, …).
    static let scriptCodes: Set<String> = Set(scriptTable.split(separator: " ").map(String.init))
}
