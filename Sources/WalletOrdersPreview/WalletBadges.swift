public import Foundation
public import WalletOrders

/// Apple's "Add to Apple Wallet" badge in one language: the SVG artwork Apple gives developers.
///
/// Apple's guidelines ask for its badge artwork, localized, for the button; the project can't ship
/// that artwork, so a merchant gives it (``WalletBadges``). The page shows it as an image (`data:`
/// URI): an SVG shown as an image runs no script and loads nothing.
public struct WalletBadge: Sendable, Hashable {
    /// The language identifier it is for (`en`, `fr`, `zh-Hans`), from its file name.
    public let language: String
    /// The SVG document.
    public let svg: [UInt8]

    public init(language: String, svg: [UInt8]) {
        self.language = language
        self.svg = svg
    }
}

/// A folder of Apple's "Add to Apple Wallet" badges, one SVG a language, named by language
/// identifier: `en.svg`, `fr.svg`, `de.svg`, `zh-Hans.svg`, `pt-BR.svg`. Apple's download names
/// its files by region (`…_US-UK.svg`, `…_FR.svg`); copy each under the language it is for.
///
/// The landing page picks the badge of the first language of the visitor's `Accept-Language` it
/// has (`fr-CA` takes `fr.svg`), else English's; with no badge for either, the button stays a
/// text link.
public struct WalletBadges: Sendable, Hashable {
    /// The badges by lowercased language identifier.
    private let badges: [String: WalletBadge]

    /// A badge file: at most 256 KiB (Apple's are a few kilobytes).
    public static let fileKind = FileKind(
        name: "Add to Apple Wallet badge", maximumBytes: 256 * 1024, reason: "Apple's badges are a few kilobytes; 256 KiB is far more.")

    /// The languages it has badges for, sorted.
    public var languages: [String] { badges.values.map(\.language).sorted() }

    /// Reads every `*.svg` of `directory` (other files are left alone).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` when the folder can't be read or
    ///   holds no SVG, when a file name isn't a language identifier, when a file is larger than
    ///   ``fileKind``'s limit or isn't an SVG document, or when two files name one language.
    public init(directory: URL) throws(WalletOrdersError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw WalletOrdersError(
                .invalidConfiguration, "The badge folder \(directory.path) can't be read: \(error.localizedDescription)",
                hint: "Give a folder of Apple's Add to Apple Wallet badges, one SVG a language: en.svg, fr.svg, …")
        }
        var badges: [String: WalletBadge] = [:]
        for name in names.sorted() where name.lowercased().hasSuffix(".svg") {
            let language = String(name.dropLast(4))
            let path = directory.appendingPathComponent(name).path
            guard Self.isLanguageIdentifier(language) else {
                throw WalletOrdersError(
                    .invalidConfiguration, "The badge \(path) isn't named after a language.",
                    hint: "Name each badge by the language it is for: en.svg, fr.svg, zh-Hans.svg, pt-BR.svg.")
            }
            let bytes: [UInt8]
            do {
                bytes = try BoundedFile.readRegularFile(path, as: Self.fileKind)
            } catch {
                throw WalletOrdersError(.invalidConfiguration, "The badge \(path) can't be used: \(error)", underlying: error as? WalletOrdersError)
            }
            guard Self.isSVG(bytes) else {
                throw WalletOrdersError(
                    .invalidConfiguration, "The badge \(path) is not an SVG document.",
                    hint: "Use the SVG files of Apple's Add to Apple Wallet badge download.")
            }
            guard badges.updateValue(WalletBadge(language: language, svg: bytes), forKey: language.lowercased()) == nil else {
                throw WalletOrdersError(.invalidConfiguration, "Two badges in \(directory.path) are for the language \(language).")
            }
        }
        guard !badges.isEmpty else {
            throw WalletOrdersError(
                .invalidConfiguration, "The badge folder \(directory.path) holds no .svg file.",
                hint: "Copy Apple's Add to Apple Wallet badges there, one SVG a language: en.svg, fr.svg, …")
        }
        self.badges = badges
    }

    /// The badge for the first of `languages` (in the visitor's order of preference) it has: the
    /// same identifier, else the same language (`fr-CA` takes `fr`, `fr` takes `fr-FR`); else
    /// English's; else `nil`.
    public func badge(for languages: [String]) -> WalletBadge? {
        for language in languages + ["en"] {
            let lowered = language.lowercased().replacingOccurrences(of: "_", with: "-")
            if let exact = badges[lowered] { return exact }
            let base = Self.base(lowered)
            if let same = badges[base] { return same }
            if let regional = badges.keys.sorted().first(where: { Self.base($0) == base }) { return badges[regional] }
        }
        return nil
    }

    private static func base(_ language: String) -> String {
        language.split(separator: "-").first.map(String.init) ?? language
    }

    /// Letters, digits and `-`, starting with a letter, at most 35 characters (BCP 47's length).
    static func isLanguageIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.count <= 35, first.properties.isAlphabetic, first.isASCII else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// An XML document whose root is `<svg`: optional BOM, whitespace, XML declaration, comments
    /// and doctype before it.
    static func isSVG(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        guard let svg = head.range(of: "<svg") else { return false }
        let before = head[..<svg.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}")))
        return before.isEmpty || before.hasPrefix("<?xml") || before.hasPrefix("<!--") || before.hasPrefix("<!DOCTYPE")
    }
}
