public import Foundation
public import WalletOrders

/// How to show an order: which of its localizations, and light or dark.
public struct PreviewOptions: Sendable, Hashable {
    /// Light, dark, or the viewer's system setting.
    public enum Appearance: String, Sendable, Hashable, CaseIterable {
        case light, dark
        /// Follows `prefers-color-scheme` (for pages served to customers).
        case automatic
    }

    /// A language identifier (`fr`, `zh-Hans`): the localization whose strings and images are
    /// shown, and the language of the page's words and of its dates, money and numbers (when the
    /// page has words for it; see ``OrderPreview/pageLanguage``). `nil`: English if the order has
    /// it, else its first localization.
    public var language: String?
    /// The language `order.json`'s own texts are written in (default `en`): the page's language
    /// when no language is requested and the localization shown has no `order.strings`.
    public var baseLanguage: String
    /// Where the page is seen, for the landing page's hints (``Viewer``).
    public var viewer: Viewer
    public var appearance: Appearance
    /// Whether validation findings are shown (at the top and in place). A page for customers
    /// (the web service's landing page) leaves them out.
    public var showsFindings: Bool
    /// When set, an "Add to Apple Wallet" button at the top links here (the archive's URL).
    public var addToWalletURL: String?
    /// Apple's "Add to Apple Wallet" badge (an SVG, see ``WalletBadges``) for the button; without
    /// one the button is a text link.
    public var addToWalletBadge: WalletBadge?
    /// When set, the page asks `versionPath` once a second and reloads when the answer is no
    /// longer `version` (`preview --serve`); the page's policy then allows that one script and
    /// requests to its own origin.
    public var liveReload: LiveReload?

    /// What a live page polls.
    public struct LiveReload: Sendable, Hashable {
        public var versionPath: String
        public var version: String

        public init(versionPath: String, version: String) {
            self.versionPath = versionPath
            self.version = version
        }
    }

    /// Who looks at the page, as far as it matters to it.
    public enum Viewer: Sendable, Hashable {
        /// A browser that hands a `.order` download to Wallet (Safari on iPhone), or one where the
        /// question doesn't arise (a desktop, the CLI's page).
        case unknown
        /// A browser on iPhone or iPad other than Safari (Chrome, Firefox, an app's web view):
        /// it doesn't hand `.order` downloads to Wallet, so the page says to open it in Safari.
        case iOSOtherBrowser

        /// The viewer a `User-Agent` header names: ``iOSOtherBrowser`` for iPhone, iPad and iPod
        /// browsers that aren't Safari (`CriOS`, `FxiOS`, `EdgiOS`, `OPiOS`, … or no `Safari/`
        /// token at all, as in apps' web views), else ``unknown``.
        public static func from(userAgent: String?) -> Viewer {
            guard let agent = userAgent, agent.contains("iPhone") || agent.contains("iPad") || agent.contains("iPod") else {
                return .unknown
            }
            let otherBrowsers = ["CriOS/", "FxiOS/", "EdgiOS/", "OPiOS/", "OPT/", "YaBrowser/", "DuckDuckGo/", "GSA/", "FBAN", "Instagram"]
            if otherBrowsers.contains(where: agent.contains) || !agent.contains("Safari/") { return .iOSOtherBrowser }
            return .unknown
        }
    }

    public init(
        language: String? = nil, appearance: Appearance = .light, showsFindings: Bool = true, addToWalletURL: String? = nil,
        addToWalletBadge: WalletBadge? = nil, baseLanguage: String = "en", viewer: Viewer = .unknown, liveReload: LiveReload? = nil
    ) {
        self.language = language
        self.appearance = appearance
        self.showsFindings = showsFindings
        self.addToWalletURL = addToWalletURL
        self.addToWalletBadge = addToWalletBadge
        self.baseLanguage = baseLanguage
        self.viewer = viewer
        self.liveReload = liveReload
    }

    /// A page for customers: no validation findings and no list of the order's languages.
    public static func customer(language: String? = nil, appearance: Appearance = .automatic) -> PreviewOptions {
        PreviewOptions(language: language, appearance: appearance, showsFindings: false)
    }
}

/// An order rendered as the customer will see it in Wallet: one self-contained HTML page.
public struct OrderPreview: Sendable, Hashable {
    /// The page: HTML with its CSS, images as `data:` URIs and barcodes as inline SVG. It loads
    /// nothing (its Content-Security-Policy allows `data:` images and its own styles only).
    public var html: String
    /// The order's localizations (its `.lproj` folders, without the extension), sorted.
    public var languages: [String]
    /// The localization shown, `nil` when the order has none.
    public var language: String?
    /// The language of the page's words and of its dates, money and numbers: the requested one,
    /// else the shown localization's when it has an `order.strings`, else the base language;
    /// always one the page has words for (else English), so labels and formats never mix.
    public var pageLanguage: String
    /// The validation report whose findings the page shows (the same rule ids as `validate`).
    public var report: ValidationReport
    /// The messages of the barcodes drawn on the page, in page order.
    public var barcodeMessages: [String]
}

/// Renders orders as ``OrderPreview`` pages. Holds an ``OrderValidator`` (build it once).
public struct OrderPreviewer: Sendable {
    public let validator: OrderValidator

    public init(validator: OrderValidator) {
        self.validator = validator
    }

    /// Previews an order source folder's files, with the findings `validate` reports for it.
    public func preview(_ source: OrderSource, subject: String, options: PreviewOptions = .init()) -> OrderPreview {
        render(files: source.files, report: validator.validate(source, subject: subject), options: options)
    }

    /// Previews a signed archive, with the findings `validate` reports for it (container,
    /// signature and chain included).
    public func preview(_ archive: OrderArchive, subject: String, options: PreviewOptions = .init(), now: Date = Date()) -> OrderPreview {
        render(files: Self.files(of: archive), report: validator.validate(archive, subject: subject, now: now), options: options)
    }

    /// Renders a signed archive already verified and validated (one from a store, which takes
    /// only such archives) without validating it again: the customer's page, which shows no
    /// findings. Its ``OrderPreview/report`` is empty.
    public func render(stored archive: OrderArchive, options: PreviewOptions) -> OrderPreview {
        render(files: Self.files(of: archive), report: ValidationReport(subject: ""), options: options)
    }

    /// The archive's files without its manifest and signature.
    static func files(of archive: OrderArchive) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for path in archive.filePaths where path != OrderArchive.manifestPath && path != OrderArchive.signaturePath {
            files[path] = archive.contents(of: path)
        }
        return files
    }

    /// Renders `files` (path → bytes, `order.json` at the root) with `report`'s findings.
    public func render(files: [String: [UInt8]], report: ValidationReport, options: PreviewOptions) -> OrderPreview {
        let localization = Localization(files: files, requested: options.language, baseLanguage: options.baseLanguage)
        var page = PreviewPage(
            localization: localization, formats: Formats(language: localization.pageLanguage),
            findings: FindingIndex(options.showsFindings ? report : ValidationReport(subject: report.subject)), options: options)
        let order = files[OrderArchive.orderPath].flatMap { try? Order.decode(from: Data($0)) }
        let html = page.render(order)
        return OrderPreview(
            html: html, languages: localization.languages, language: localization.language,
            pageLanguage: localization.pageLanguage, report: report, barcodeMessages: page.barcodeMessages)
    }
}
