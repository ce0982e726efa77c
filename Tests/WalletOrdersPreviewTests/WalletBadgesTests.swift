import Foundation
import Testing
import WalletOrders
import WalletOrdersPreview
import WalletOrdersTestSupport

/// A folder of badges is configuration a deployment hands the service: each mistake is refused
/// at start, naming the file.
@Suite
struct WalletBadgesTests {
    static let svg = Array(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)

    static func folder(_ files: [String: [UInt8]]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("badges")
        for (name, bytes) in files { _ = try folder.write(bytes, to: name) }
        return folder
    }

    @Test("Badges are chosen by language: exact, same language, any region of it, then English; none without English")
    func choice() throws {
        let folder = try Self.folder(["en.svg": Self.svg, "fr.svg": Self.svg, "pt-BR.svg": Self.svg, "notes.txt": Array("x".utf8)])
        defer { folder.remove() }
        let badges = try WalletBadges(directory: folder.url)
        #expect(badges.languages == ["en", "fr", "pt-BR"])
        #expect(badges.badge(for: ["fr-CA"])?.language == "fr")
        #expect(badges.badge(for: ["pt-PT", "fr"])?.language == "pt-BR")
        #expect(badges.badge(for: ["de", "FR"])?.language == "fr")
        #expect(badges.badge(for: ["ja"])?.language == "en")
        #expect(badges.badge(for: [])?.language == "en")

        let frenchOnly = try Self.folder(["fr.svg": Self.svg])
        defer { frenchOnly.remove() }
        #expect(try WalletBadges(directory: frenchOnly.url).badge(for: ["ja"]) == nil)
    }

    @Test(
        "A folder with no SVG, a name that isn't a language, a file that isn't an SVG, or one too large is refused",
        arguments: [
            ["readme.txt": Array("x".utf8)],
            ["en us.svg": svg],
            ["en.svg": Array("<html><script>alert(1)</script></html>".utf8)],
            ["en.svg": Array(repeating: UInt8(ascii: " "), count: 300_000) + svg],
        ])
    func refused(_ files: [String: [UInt8]]) throws {
        let folder = try Self.folder(files)
        defer { folder.remove() }
        #expect(throws: WalletOrdersError.self) { try WalletBadges(directory: folder.url) }
    }
}
