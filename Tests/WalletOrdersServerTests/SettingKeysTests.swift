import Foundation
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

/// The settings file check refuses keys it doesn't know, so it must know every key read.
@Suite("Every setting the service reads is a known key of its settings file")
struct SettingKeysTests {
    @Test("Each key read by name in the server's sources and serve's command is in settingKeys")
    func everyReadKeyIsKnown() throws {
        let folders = ["Sources/WalletOrdersServer", "Sources/wallet-orders/ServeCommand.swift", "Sources/wallet-orders/LogFormat.swift"]
        var read: Set<String> = []
        for path in folders {
            let url = Repository.root.appendingPathComponent(path)
            let files =
                path.hasSuffix(".swift")
                ? [url]
                : (FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }.filter {
                    $0.pathExtension == "swift"
                } ?? [])
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: /forKey: "([A-Za-z0-9.]+)"/) { read.insert(String(match.1)) }
                // The helpers of OrderServer.Configuration(config:): count("push.batchSize", …), seconds(…), set(…).
                for match in text.matches(of: /(?:count|seconds|set|bytes)\("([a-z][A-Za-z0-9]*\.[A-Za-z0-9.]+)"/) { read.insert(String(match.1)) }
            }
        }
        #expect(read.count > 30, "the scan found the keys: \(read.sorted())")
        let unknown = read.subtracting(OrderServer.Configuration.settingKeys)
        #expect(unknown.isEmpty, "read but refused in a settings file: \(unknown.sorted())")
    }
}
