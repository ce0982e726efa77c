import WalletOrdersJSON

/// The rules of a pass beyond its schema, each with the evidence it stands on: what the device
/// refuses (with its message) is an error, what is only likely wrong a warning.
enum PassRules {
    /// The style keys Wallet reads (one per pass; `posterGeneric` since iOS 27, with `generic` as
    /// its fallback on older systems).
    static let styles = PassIdentity.styleKeys
    /// The field lists of a style that Wallet shows on the front.
    static let frontFieldLists = ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields"]

    static func check(_ context: ValidationContext) -> [Diagnostic] {
        guard let root = context.root, root.members != nil else { return [] }
        var findings: [Diagnostic] = []
        checkIcon(context, into: &findings)
        checkStyle(root, context: context, into: &findings)
        checkFieldKeys(root, context: context, into: &findings)
        checkWebService(root, context: context, into: &findings)
        return findings
    }

    /// `pass.icon-missing`: the device refuses a pass without an icon at some resolution
    /// ("Pass does not contain icon.png/icon@2x.png/icon@3x.png", from the device's validation).
    static func checkIcon(_ context: ValidationContext, into findings: inout [Diagnostic]) {
        guard !["icon.png", "icon@2x.png", "icon@3x.png"].contains(where: { context.files[$0] != nil }) else { return }
        findings.append(
            Diagnostic(
                .passIconMissing,
                "The pass has no icon.png, icon@2x.png or icon@3x.png. Wallet logs: 'Pass does not contain icon.png/icon@2x.png/icon@3x.png'.",
                at: .init(file: "icon.png"),
                hint: "Add icon.png (29×29 pt: 29, 58 and 87 px at @1x, @2x, @3x) at the top level; notifications and the lock screen show it."))
    }

    /// `pass.style-missing` (the device refuses it) and `pass.style-multiple` (which one Wallet
    /// shows is undocumented).
    static func checkStyle(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        let present = (root.members ?? []).filter { styles.contains($0.key) }
        if present.isEmpty {
            findings.append(
                context.diagnostic(
                    .passStyleMissing,
                    "pass.json has no style key. Wallet logs: 'Pass dictionary must have an entry for one of {eventTicket, coupon, storeCard, boardingPass, generic, paymentCard, accessCard}.'",
                    pointer: "", hint: "Add one of boardingPass, coupon, eventTicket, generic or storeCard, holding the pass's fields."))
        }
        // posterGeneric comes with its generic fallback (iOS 27); any other pair is a mistake.
        let distinct = present.map(\.key).filter { $0 != "generic" || !present.contains { $0.key == "posterGeneric" } }
        if distinct.count > 1 {
            let second = present.first { $0.key == distinct[1] }
            findings.append(
                context.diagnostic(
                    .passStyleMultiple,
                    "pass.json has \(distinct.count) style keys (\(distinct.joined(separator: ", "))); a pass has one, and which one Wallet shows is not documented.",
                    pointer: "/" + distinct[1], position: second?.keyPosition,
                    hint: "Keep the one style the pass is (posterGeneric may come with generic, its fallback on older iOS)."))
        }
    }

    /// `fields.duplicate-key`: keys of the front fields must differ within a style ("more than one
    /// field has the key '%@'", from the device's validation of the header, primary, secondary and
    /// auxiliary fields).
    static func checkFieldKeys(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        for style in styles {
            guard let fields = root[style], fields.members != nil else { continue }
            var seen: [String: String] = [:]
            for list in frontFieldLists {
                for (index, field) in (fields[list]?.elements ?? []).enumerated() {
                    guard let key = field["key"]?.stringValue else { continue }
                    let pointer = "/\(style)/\(list)/\(index)/key"
                    if let first = seen[key] {
                        findings.append(
                            context.diagnostic(
                                .fieldsDuplicateKey,
                                "The field key '\(key)' is used again (first at \(first)). Wallet logs: 'more than one field has the key '\(key)''.",
                                pointer: pointer, hint: "Give every field of the pass its own key."))
                    } else {
                        seen[key] = pointer
                    }
                }
            }
        }
    }

    /// `pass.web-service-not-https`: a production device talks to the pass's web service over
    /// https only ("scheme of webServiceURL '%@' needs to be an https rather than %@.", from the
    /// device's validation; http works only on a device set to allow HTTP services).
    static func checkWebService(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let url = root["webServiceURL"]?.stringValue else { return }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard scheme != "https" else { return }
        findings.append(
            context.diagnostic(
                .passWebServiceNotHTTPS,
                "webServiceURL '\(url)' is not https. Wallet logs: 'scheme of webServiceURL '\(url)' needs to be an https rather than \(scheme.isEmpty ? "(none)" : scheme).'",
                pointer: "/webServiceURL",
                hint: "Serve the pass web service over https; http works only on a device with Allow HTTP Services turned on (Developer settings)."))
    }
}
