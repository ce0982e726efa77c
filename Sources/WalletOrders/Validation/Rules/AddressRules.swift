import WalletOrdersJSON

/// Country codes from ISO 3166-1.
enum AddressRules {
    /// The key whose string values are country codes.
    static let countryCodeKey = "countryCode"

    /// One `countryCode` string, as ``ContentWalk`` passes it.
    static func visit(countryCode value: String, at path: JSONPath, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard ASCIIText.isUppercaseLetters(value, count: 2), !ReferenceData.countryCodes.contains(value) else { return }
        findings.append(
            context.diagnostic(
                .addressUnknownCountry, "'\(value)' is not an ISO 3166-1 alpha-2 country code.", pointer: path.pointer,
                hint: "Use the two-letter ISO 3166-1 code, such as US, FR or JP (GB, not UK)."))
    }
}
