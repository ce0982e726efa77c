import WalletOrdersJSON

/// The rules of a pass beyond its schema, each with the evidence it stands on: what the device
/// refuses (with its message) is an error, what is only likely wrong a warning.
enum PassRules {
    /// The style keys Wallet reads (one per pass; `posterGeneric` since iOS 27, with `generic` as
    /// its fallback on older systems).
    static let styles = PassIdentity.styleKeys

    static func check(_ context: ValidationContext) -> [Diagnostic] {
        guard let root = context.root, root.members != nil else { return [] }
        var findings: [Diagnostic] = []
        checkIcon(context, into: &findings)
        checkStyle(root, context: context, into: &findings)
        checkFieldKeys(root, context: context, into: &findings)
        checkFieldCounts(root, context: context, into: &findings)
        checkWebService(root, context: context, into: &findings)
        PassLayoutRules.check(root, context: context, into: &findings)
        PassLocalizationRules.check(context, into: &findings)
        PassImageRules.check(context, styles: (root.members ?? []).map(\.key).filter(styles.contains), into: &findings)
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

    /// The field lists whose warnings fail the pass (the device escalates a field warning there)
    /// and those where it is only logged (passes specification §3.3, from `_PKValidateStyleFields`).
    static let fatalFieldLists: Set<String> = ["headerFields", "primaryFields", "auxiliaryFields"]
    static let fieldLists = ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields", "additionalInfoFields"]

    /// Field keys unique across the pass (`fields.duplicate-key`, or `-logged` where the device
    /// only logs it) and change messages with exactly one `%@` (`fields.change-message`, `-logged`).
    static func checkFieldKeys(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        var seen: [String: String] = [:]
        for style in styles {
            guard let fields = root[style], fields.members != nil else { continue }
            for list in fieldLists {
                let fatal = fatalFieldLists.contains(list)
                for (index, field) in (fields[list]?.elements ?? []).enumerated() {
                    let pointer = "/\(style)/\(list)/\(index)"
                    if let key = field["key"]?.stringValue {
                        if let first = seen[key] {
                            findings.append(
                                context.diagnostic(
                                    fatal ? .fieldsDuplicateKey : .fieldsDuplicateKeyLogged,
                                    "The field key '\(key)' is used again (first at \(first)). Wallet logs: 'more than one field has the key '\(key)'. Field keys must be unique.'\(fatal ? "" : " In \(list) the device only logs it.")",
                                    pointer: pointer + "/key", hint: "Give every field of the pass its own key."))
                        } else {
                            seen[key] = pointer
                        }
                    }
                    // An empty changeMessage asks for no notification: two Apple-signed passes Wallet
                    // shows carry one in their header and primary fields.
                    if let message = field["changeMessage"]?.stringValue, !message.isEmpty, let problem = changeMessageProblem(message) {
                        findings.append(
                            context.diagnostic(
                                fatal ? .fieldsChangeMessage : .fieldsChangeMessageLogged,
                                "changeMessage '\(message)' \(problem)\(fatal ? "" : " In \(list) the device only logs it.")",
                                pointer: pointer + "/changeMessage",
                                hint: "Write one %@ where the new value goes, such as 'Gate changed to %@.' (%% for a percent sign)."))
                    }
                }
            }
        }
    }

    /// What is wrong with a change message, with the device's words: it needs exactly one `%@`
    /// and no other format code (`%%` is a percent sign).
    static func changeMessageProblem(_ message: String) -> String? {
        var placeholders = 0
        var others: [String] = []
        var characters = message.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { continue }
            switch characters.next() {
            case "@": placeholders += 1
            case "%": continue
            case let other: others.append("%" + (other.map(String.init) ?? ""))
            }
        }
        if !others.isEmpty {
            return
                "has a format code other than %@ (\(others.joined(separator: ", "))). Wallet logs: 'Change message … has a format code other than %%@'."
        }
        if placeholders == 0 { return "has no %@ for the new value. Wallet logs: 'Change message %@ needs to contain %%@.'" }
        if placeholders > 1 { return "has more than one %@. Wallet logs: 'Change message … has more than one %%@'." }
        return nil
    }

    /// `fields.too-many`: more fields on the front than the style shows (the HIG's limits; what
    /// doesn't fit is not shown, so a warning).
    static func checkFieldCounts(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        for style in styles {
            guard let fields = root[style], fields.members != nil else { continue }
            func count(_ list: String) -> Int { fields[list]?.elements?.count ?? 0 }
            var limits: [(lists: [String], limit: Int)] = [(["headerFields"], 3), (["secondaryFields"], 4)]
            switch style {
            case "boardingPass": limits += [(["primaryFields"], 2), (["auxiliaryFields"], 5)]
            case "coupon", "storeCard": limits += [(["primaryFields"], 1), (["secondaryFields", "auxiliaryFields"], 4)]
            case "eventTicket": limits += [(["primaryFields"], 1), (["auxiliaryFields"], 8)]
            case "posterGeneric": limits = [(["headerFields"], 1), (["primaryFields"], 4)]
            default: limits += [(["primaryFields"], 1), (["auxiliaryFields"], 4)]
            }
            for (lists, limit) in limits {
                let total = lists.map(count).reduce(0, +)
                guard total > limit else { continue }
                findings.append(
                    context.diagnostic(
                        .fieldsTooMany,
                        "\(style) has \(total) \(lists.joined(separator: " and ")); Wallet shows at most \(limit) on the front of a \(style) pass, and the rest don't display.",
                        pointer: "/\(style)/\(lists.last ?? "")",
                        hint: "Move the others to backFields, which has room for any number."))
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
