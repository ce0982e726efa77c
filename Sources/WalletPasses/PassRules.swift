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
        checkTransitType(root, context: context, into: &findings)
        PassFieldRules.check(root, context: context, into: &findings)
        PassBarcodeRules.check(root, context: context, into: &findings)
        checkReservedKeys(root, context: context, into: &findings)
        checkEntryCounts(root, context: context, into: &findings)
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
        // Apple's own styles count for the device; pass.reserved-key reports them.
        if present.isEmpty && !(root.members ?? []).contains(where: { reservedStyles.contains($0.key) }) {
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

    /// `pass.missing-key` for a boarding pass without `transitType`, which the device refuses
    /// ("Pass dictionary must contain key 'transitType'", passes specification §3.2).
    static func checkTransitType(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let boardingPass = root["boardingPass"], boardingPass.members != nil, boardingPass["transitType"] == nil else { return }
        findings.append(
            context.diagnostic(
                .passMissingKey, "boardingPass has no transitType. Wallet logs: 'Pass dictionary must contain key 'transitType'.'",
                pointer: "/boardingPass",
                hint: "Add transitType: PKTransitTypeAir, PKTransitTypeBoat, PKTransitTypeBus, PKTransitTypeTrain or PKTransitTypeGeneric."))
    }

    /// The styles the device knows that Apple keeps for its own passes.
    static let reservedStyles: Set<String> = ["healthPass", "paymentCard", "accessCard"]

    /// Top-level keys the device knows and Apple reserves (passes specification §3.1, from the
    /// device's validation): those it refuses on a pass type outside Apple's own, with the
    /// type identifier's prefix that allows it and the device's message, and those it reads only
    /// on Apple's passes (`nil`).
    static let reservedKeys: [String: (allowedPrefix: String, message: String?)?] = {
        // The device's words where they are known (passes specification §6.3).
        var keys: [String: (allowedPrefix: String, message: String?)?] = [
            "sharing": ("pass.com.apple.", "Pass is not permitted to contain the sharing key."),
            "healthPass": ("healthpass", nil),
            "paymentCard": ("paymentpass", "Invalid passTypeIdentifier for pass style 'paymentCard'"),
            "accessCard": ("paymentpass", nil),
        ]
        for key in [
            "transactionServiceURL", "transactionPushTopic", "paymentApplications", "associatedPassTypeIdentifiers", "systemAppBundleIdentifiers",
            "dynamicLayerConfiguration", "barcodeSettings", "auxiliaryCapabilities", "cardType", "cardSubtype", "secondaryBackgroundColor",
            "hasStoredValue",
        ] {
            keys[key] = .some(nil)
        }
        return keys
    }()

    /// `pass.reserved-key` (the device refuses it) and `pass.reserved-key-unread` (the device
    /// reads it on Apple's own passes only).
    static func checkReservedKeys(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        let passType = root["passTypeIdentifier"]?.stringValue ?? ""
        for member in root.members ?? [] {
            guard let reserved = reservedKeys[member.key] else { continue }
            if let (prefix, message) = reserved {
                guard !passType.hasPrefix(prefix) else { continue }
                findings.append(
                    context.diagnostic(
                        .passReservedKey,
                        "'\(member.key)' is Apple's: the device refuses it on a pass type that doesn't start with \(prefix).\(message.map { " Wallet logs: '\($0)'" } ?? "")",
                        pointer: "/" + member.key, position: member.keyPosition, hint: "Remove it; Apple issues these passes itself."))
            } else {
                findings.append(
                    context.diagnostic(
                        .passReservedKeyUnread, "'\(member.key)' is a key the device reads on Apple's own passes only; on this one it does nothing.",
                        pointer: "/" + member.key, position: member.keyPosition, hint: "Remove it."))
            }
        }
    }

    /// `pass.too-many-entries`: more locations, beacons or featured actions than Apple documents
    /// (10, 10 and 2: Pass, "Showing a Pass on the Lock Screen", WWDC26 session 209). What
    /// Wallet does with the rest is not documented, so a warning.
    static func checkEntryCounts(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        for (key, limit, what) in [("locations", 10, "locations"), ("beacons", 10, "beacons"), ("featuredActions", 2, "featured actions")] {
            guard let count = root[key]?.elements?.count, count > limit else { continue }
            findings.append(
                context.diagnostic(
                    .passTooManyEntries,
                    "\(key) has \(count) entries; Apple documents at most \(limit) \(what) a pass, and which of the others Wallet uses is not documented.",
                    pointer: "/\(key)/\(limit)", hint: "Keep the \(limit) that matter most, first."))
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
