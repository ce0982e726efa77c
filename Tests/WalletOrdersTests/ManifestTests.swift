import Foundation
import Testing
import WalletOrders
import WalletOrdersTestSupport

@Suite struct ManifestTests {
    @Test("The shipped-ecommerce manifest matches the committed golden file byte for byte")
    func goldenManifest() throws {
        let source = try SampleBuilds.source("shipped-ecommerce")
        let manifest = Manifest(hashing: source.files)
        let golden = try #require(
            FileManager.default.contents(atPath: Repository.golden.appendingPathComponent("shipped-ecommerce.manifest.json").path))
        let actual = String(decoding: manifest.jsonBytes, as: UTF8.self)
        #expect(actual == String(decoding: golden, as: UTF8.self), "regenerate with: swift run wallet-orders build … && unzip -p … manifest.json")
    }

    @Test("The manifest hashes every file except manifest.json and signature")
    func excludesManifestAndSignature() {
        let manifest = Manifest(hashing: ["order.json": Array("{}".utf8), "manifest.json": [1], "signature": [2], "fr.lproj/order.strings": []])
        #expect(Set(manifest.hashes.keys) == ["order.json", "fr.lproj/order.strings"])
        #expect(manifest.hashes["fr.lproj/order.strings"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(manifest.hashes["order.json"] == "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")
    }

    @Test("Canonical bytes: keys sorted by UTF-8, slashes and non-ASCII unescaped, quotes escaped")
    func canonicalEncoding() throws {
        let manifest = Manifest(hashes: ["zh-Hans.lproj/logo.png": "b", "a\"q.png": "c", "Z.png": "a", "é.png": "d"])
        let text = String(decoding: manifest.jsonBytes, as: UTF8.self)
        #expect(text == "{\n  \"Z.png\": \"a\",\n  \"a\\\"q.png\": \"c\",\n  \"zh-Hans.lproj/logo.png\": \"b\",\n  \"é.png\": \"d\"\n}")
        #expect(try Manifest(jsonBytes: manifest.jsonBytes) == manifest)
    }

    @Test("A manifest with \\/-escaped keys parses to the same paths")
    func escapedSlashes() throws {
        let manifest = try Manifest(jsonBytes: Array(#"{"en.lproj\/order.strings":"ab"}"#.utf8))
        #expect(manifest.hashes == ["en.lproj/order.strings": "ab"])
    }
}
