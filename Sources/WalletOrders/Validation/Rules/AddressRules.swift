import WalletOrdersJSON

/// Country codes from ISO 3166-1.
enum AddressRules {
    static func check(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let root = context.root else { return }
        JSONWalk.members(of: root) { member, path, _ in
            guard member.key == "countryCode", let code = member.value.stringValue, ASCIIText.isUppercaseLetters(code, count: 2),
                !ReferenceData.countryCodes.contains(code)
            else { return }
            findings.append(
                context.diagnostic(
                    .addressUnknownCountry, "'\(code)' is not an ISO 3166-1 alpha-2 country code.", pointer: path.pointer,
                    hint: "Use the two-letter ISO 3166-1 code, such as US, FR or JP (GB, not UK)."))
        }
    }
}
