import WalletOrdersJSON

/// Files order.json names: present, of the right kind and size, consistent across localizations;
/// and files nothing names.
enum FileRules {
    /// What a member's string value names: an image (and whether HIG asks for 300×300 and no
    /// transparency: logos and product images) or a document (PDF, PNG or JPEG).
    struct ReferenceKind {
        var isImage: Bool
        var isProductImage: Bool
    }

    /// The keys whose string values name files, and what they name.
    static let referenceKeys: [(key: String, kind: ReferenceKind)] = [
        ("logo", ReferenceKind(isImage: true, isProductImage: true)),
        ("image", ReferenceKind(isImage: true, isProductImage: true)),
        ("trackingLogoNameDarkColorScheme", ReferenceKind(isImage: true, isProductImage: false)),
        ("trackingLogoNameLightColorScheme", ReferenceKind(isImage: true, isProductImage: false)),
        ("receipt", ReferenceKind(isImage: false, isProductImage: false)),
        ("returnLabel", ReferenceKind(isImage: false, isProductImage: false)),
    ]

    /// One member naming a file, from ``ContentWalk``.
    struct Reference {
        var name: String
        /// Where the member is (a pointer is made of it only for a finding).
        var path: JSONPath
        var kind: ReferenceKind

        var pointer: String { path.pointer }
        var isImage: Bool { kind.isImage }
        var isProductImage: Bool { kind.isProductImage }
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
        var checkedPaths: Set<String> = []

        for reference in references {
            let scales = reference.isImage ? [1, 2, 3] : [1]
            let names = scales.map { $0 == 1 ? reference.name : variant(reference.name, scale: $0) }
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
        let referenced = ReferencedNames(references, localizationFolders: context.localizationFolders)
        for path in context.files.keys.sorted() where !referenced.contains(path) {
            let name = path.split(separator: "/").last ?? path[...]
            if name == "order.strings" || name == "pass.strings" { continue }  // localization rules judge these
            findings.append(
                context.fileDiagnostic(
                    .filesUnreferenced, "Nothing in order.json references '\(path)'.", file: path,
                    hint: "Remove it to keep the order small, or reference it."))
        }
    }

    /// The paths order.json references: `order.json`, each `.lproj` folder's `order.strings`, and
    /// each referenced name (images also at @2x and @3x) at the top level or in an `.lproj` folder.
    ///
    /// Asked of each file of the order, rather than listing every path a name could take (three
    /// scales in every folder), which built and hashed a string per combination. A folder is
    /// matched as the bytes `folder/` at the start of the path: the path the old list held
    /// (`folder + "/" + name`) whatever characters the names contain.
    struct ReferencedNames {
        /// Every referenced name, and the @2x and @3x variant of every referenced image.
        let names: Set<String>
        /// Each `.lproj` folder followed by `/`.
        let folderPrefixes: [String]

        init(_ references: [Reference], localizationFolders: [String]) {
            var names = Set(references.map(\.name))
            for reference in references where reference.isImage {
                names.insert(variant(reference.name, scale: 2))
                names.insert(variant(reference.name, scale: 3))
            }
            self.names = names
            folderPrefixes = localizationFolders.map { $0 + "/" }
        }

        func contains(_ path: String) -> Bool {
            if path == OrderArchive.orderPath || names.contains(path) { return true }
            for prefix in folderPrefixes where path.utf8.starts(with: prefix.utf8) {
                let rest = String(path.utf8.dropFirst(prefix.utf8.count)) ?? ""
                if rest == "order.strings" || names.contains(rest) { return true }
            }
            return false
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
