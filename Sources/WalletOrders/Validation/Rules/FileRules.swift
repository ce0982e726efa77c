import WalletOrdersJSON
/// Files order.json names: present, of the right kind and size, consistent across localizations;
/// and files nothing names.
enum FileRules {
    /// What a key's string value names: an image (and whether HIG asks for 300×300 and no
    /// transparency: logos and product images) or a document (PDF, PNG or JPEG); `nil` for any
    /// other key. A `switch`, not a dictionary: it runs for every member of the order, and
    /// comparing short strings is cheaper than hashing them.
    static func referenceKind(of key: String) -> (isImage: Bool, isProductImage: Bool)? {
        switch key {
        case "logo", "image": (true, true)
        case "trackingLogoNameDarkColorScheme", "trackingLogoNameLightColorScheme": (true, false)
        case "receipt", "returnLabel": (false, false)
        default: nil
        }
    }

    struct Reference {
        var name: String
        var pointer: String
        var isImage: Bool
        var isProductImage: Bool
    }

    /// `logo.png` → `logo@2x.png`.
    static func variant(_ name: String, scale: Int) -> String {
        let suffix = scale == 2 ? "@2x" : scale == 3 ? "@3x" : "@\(scale)x"
        guard let dot = name.lastIndex(of: ".") else { return name + suffix }
        var variant = String(name[..<dot])
        variant += suffix
        variant += name[dot...]
        return variant
    }

    /// Judges `references` (every member naming a file, from ``ContentWalk``) against the files.
    static func check(_ context: ValidationContext, references: [Reference], into findings: inout [Diagnostic]) {
        guard context.root != nil else { return }
        var referenced: Set<String> = [OrderArchive.orderPath]
        for folder in context.localizationFolders {
            referenced.insert("\(folder)/order.strings")
        }
        var checkedPaths: Set<String> = []

        for reference in references {
            let scales = reference.isImage ? [1, 2, 3] : [1]
            let names = scales.map { $0 == 1 ? reference.name : variant(reference.name, scale: $0) }
            for folder in [""] + context.localizationFolders.map({ $0 + "/" }) {
                for name in names { referenced.insert(folder + name) }
            }
            let atTop = context.files[reference.name] != nil
            let missingIn = context.localizationFolders.filter { context.files["\($0)/\(reference.name)"] == nil }
            if !atTop && (context.localizationFolders.isEmpty || missingIn.count == context.localizationFolders.count) {
                findings.append(
                    context.diagnostic(
                        .filesMissingReference, "'\(reference.name)' is not in the order.", pointer: reference.pointer,
                        hint: "Add \(reference.name) at the top level (or in every .lproj folder), or fix the name."))
                continue
            }
            if !atTop && !missingIn.isEmpty {
                findings.append(
                    context.diagnostic(
                        .filesMissingReference,
                        "'\(reference.name)' is missing from \(missingIn.joined(separator: ", ")) and from the top level.",
                        pointer: reference.pointer, hint: "Each localization folder contains all localized image files."))
            }
            // Content, size and transparency of every copy and variant that exists.
            let folders = atTop ? [""] : context.localizationFolders.map { $0 + "/" }
            for folder in folders {
                for (scale, name) in zip(scales, names) {
                    let path = folder + name
                    guard let bytes = context.files[path], checkedPaths.insert(path).inserted else { continue }
                    checkContent(bytes, path: path, scale: scale, reference: reference, context: context, into: &findings)
                }
            }
            if reference.isImage && !atTop && context.localizationFolders.count > 1 {
                let sets = context.localizationFolders.map { folder in
                    (folder, [2, 3].filter { context.files["\(folder)/\(variant(reference.name, scale: $0))"] != nil })
                }
                if Set(sets.map { $0.1 }).count > 1 {
                    let description = sets.map { "\($0.0): \($0.1.isEmpty ? "1x only" : "@" + $0.1.map { "\($0)x" }.joined(separator: ", @"))" }
                    findings.append(
                        context.diagnostic(
                            .filesVariantsInconsistent,
                            "'\(reference.name)' has different resolutions per localization (\(description.joined(separator: "; "))).",
                            pointer: reference.pointer, hint: "Provide the same @2x/@3x variants in every .lproj folder."))
                }
            }
        }
        for path in context.files.keys.sorted() where !referenced.contains(path) {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            if name == "order.strings" || name == "pass.strings" { continue }  // localization rules judge these
            findings.append(
                context.fileDiagnostic(
                    .filesUnreferenced, "Nothing in order.json references '\(path)'.", file: path,
                    hint: "Remove it to keep the order small, or reference it."))
        }
    }

    static func checkContent(
        _ bytes: [UInt8], path: String, scale: Int, reference: Reference, context: ValidationContext,
        into findings: inout [Diagnostic]
    ) {
        let content = FileContent.sniff(bytes)
        let allowed =
            switch content {
            case .png, .jpeg: true
            case .pdf: !reference.isImage
            case .other: false
            }
        guard allowed else {
            findings.append(
                context.fileDiagnostic(
                    .filesWrongType,
                    "'\(path)' is \(content == .other ? "not PNG, JPEG or PDF" : content.name) by its content; \(reference.isImage ? "images must be PNG or JPEG" : "receipts and labels must be PDF, PNG or JPEG").",
                    file: path, hint: "Convert the file, whatever its extension says."))
            return
        }
        guard reference.isProductImage, let size = content.pixelSize else { return }
        let expected = 300 * scale
        if size.width != expected || size.height != expected {
            findings.append(
                context.fileDiagnostic(
                    .filesImageSize, "'\(path)' is \(size.width)×\(size.height) px; the recommended size is \(expected)×\(expected).",
                    file: path, hint: "Logos and product images are 300×300 px at 1x (@2x 600, @3x 900)."))
        }
        if case .png(_, _, true) = content {
            findings.append(
                context.fileDiagnostic(
                    .filesImageTransparency, "'\(path)' has an alpha channel.", file: path,
                    hint: "Use a nontransparent background (HIG)."))
        }
    }
}
