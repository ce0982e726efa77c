/// The images of a pass, checked against what Apple documents for each (Pass Design and Creation,
/// the HIG): which styles show it and its size in points, at @1x, @2x and @3x. Wallet scales and
/// crops an image of another size rather than refusing the pass, so every finding here is a
/// warning (or, for a missing scale, a note).
enum PassImageRules {
    /// One kind of image: its name (`strip`), the styles that show it, and its size in points,
    /// exact or at most.
    struct Kind {
        var name: String
        var styles: Set<String>
        /// Points by style (`nil` key: every style); `isMaximum` when the size is a bound.
        var points: [String?: (width: Int, height: Int)]
        var isMaximum: Bool
        /// `name.png`, `name@2x.png` and `name@3x.png`, with their scale.
        let variants: [(scale: Int, path: String)]

        init(name: String, styles: Set<String>, points: [String?: (width: Int, height: Int)], isMaximum: Bool = false) {
            self.name = name
            self.styles = styles
            self.points = points
            self.isMaximum = isMaximum
            variants = [(1, "\(name).png"), (2, "\(name)@2x.png"), (3, "\(name)@3x.png")]
        }
    }

    static let classic: Set<String> = ["boardingPass", "coupon", "eventTicket", "generic", "storeCard"]

    /// Apple's archived Pass Design and Creation guide, and the HIG's style-to-image list
    /// (passes specification §4).
    static let kinds: [Kind] = [
        Kind(name: "icon", styles: classic.union(["posterGeneric"]), points: [nil: (29, 29)]),
        Kind(name: "logo", styles: classic, points: [nil: (160, 50)], isMaximum: true),
        Kind(
            name: "strip", styles: ["coupon", "storeCard", "eventTicket"],
            points: ["eventTicket": (375, 98), "coupon": (375, 144), "storeCard": (375, 144)]),
        Kind(name: "thumbnail", styles: ["eventTicket", "generic"], points: [nil: (90, 90)], isMaximum: true),
        Kind(name: "background", styles: ["eventTicket", "posterGeneric"], points: [:]),
        Kind(name: "footer", styles: ["boardingPass"], points: [nil: (286, 15)]),
    ]

    /// `styles`: the pass's style keys in order. A pass with two (`posterGeneric` and its
    /// `generic` twin) uses an image when either shows it, sized for the first that does.
    static func check(_ context: ValidationContext, styles: [String], into findings: inout [Diagnostic]) {
        guard !styles.isEmpty else { return }
        for kind in kinds {
            let present = kind.variants.filter { context.files[$0.path] != nil }
            guard !present.isEmpty else { continue }
            guard let style = styles.first(where: kind.styles.contains) else {
                findings.append(
                    Diagnostic(
                        .imagesUnusedForStyle,
                        "\(present[0].path): a \(styles.joined(separator: " and ")) pass doesn't show a \(kind.name) image (Apple shows it on \(kind.styles.sorted().joined(separator: ", ")) passes).",
                        at: .init(file: present[0].path), hint: "Remove it, or use the images this style shows."))
                continue
            }
            for variant in present {
                checkSize(kind, style: style, path: variant.path, scale: variant.scale, context: context, into: &findings)
            }
            if present.count < kind.variants.count {
                let missing = kind.variants.filter { context.files[$0.path] == nil }.map(\.path)
                findings.append(
                    Diagnostic(
                        .imagesMissingScale, "\(kind.name) has no \(missing.joined(separator: ", ")); devices of that scale stretch another.",
                        at: .init(file: present[0].path), hint: "Apple asks for every image at @1x, @2x and @3x."))
            }
        }
        if styles.contains("eventTicket"), context.files["strip.png"] ?? context.files["strip@2x.png"] != nil,
            ["background", "thumbnail"].contains(where: { context.files["\($0).png"] ?? context.files["\($0)@2x.png"] != nil })
        {
            findings.append(
                Diagnostic(
                    .imagesStripExcludesOthers,
                    "An event ticket with a strip image doesn't show its background or thumbnail image (the HIG).",
                    at: .init(file: context.files["strip.png"] != nil ? "strip.png" : "strip@2x.png"),
                    hint: "Keep the strip, or the background and thumbnail, not both."))
        }
    }

    static func checkSize(
        _ kind: Kind, style: String, path: String, scale: Int, context: ValidationContext, into findings: inout [Diagnostic]
    ) {
        guard let bytes = context.files[path] else { return }
        let content = FileContent.sniff(bytes)
        guard case .png(let width, let height, _) = content else {
            findings.append(
                Diagnostic(
                    .imagesNotPNG, "\(path) is \(content.name), not PNG; Wallet shows PNG images only.", at: .init(file: path),
                    hint: "Save it as PNG (a JPEG renamed .png is ignored)."))
            return
        }
        guard let points = kind.points[style] ?? kind.points[nil] else { return }
        let expected = (width: points.width * scale, height: points.height * scale)
        let wrong = kind.isMaximum ? (width > expected.width || height > expected.height) : (width != expected.width || height != expected.height)
        guard wrong else { return }
        findings.append(
            Diagnostic(
                .imagesSize,
                "\(path) is \(width)×\(height) px; a \(kind.name) on a \(style) pass is \(kind.isMaximum ? "at most " : "")\(expected.width)×\(expected.height) px at @\(scale)x (\(points.width)×\(points.height) pt). Wallet scales and crops it.",
                at: .init(file: path), hint: "Make it \(expected.width)×\(expected.height) px."))
    }
}
