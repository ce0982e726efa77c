import WalletOrdersJSON

/// Country codes from ISO 3166-1.
enum AddressRules {
    /// One string member, as ``ContentWalk`` passes it.
    static func visit(key: String, value: String, at path: JSONPath, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard key == "countryCode", ASCIIText.isUppercaseLetters(value, count: 2), !ReferenceData.countryCodes.contains(value)
        else { return }
        findings.append(
            context.diagnostic(
                .addressUnknownCountry, "'\(value)' is not an ISO 3166-1 alpha-2 country code.", pointer: path.pointer,
                hint: "Use the two-letter ISO 3166-1 code, such as US, FR or JP (GB, not UK)."))
    }
}
