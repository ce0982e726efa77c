import Configuration
import Foundation
import SystemPackage
import Testing
import WalletOrders
import WalletOrdersServer
import WalletOrdersTestSupport

/// The settings file check refuses keys it doesn't know, so it must know every key read.
@Suite("Every setting the service reads is a known key of its settings file", .temporaryFolder)
struct SettingKeysTests {
    @Test("Each key read by name in the server's sources and serve's command is in settingKeys")
    func everyReadKeyIsKnown() throws {
        let folders = ["Sources/WalletOrdersServer", "Sources/wallet-orders/ServeCommand.swift", "Sources/wallet-orders/LogFormat.swift"]
        var read: Set<String> = []
        var reads: [(key: String, as: String)] = []
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
                for match in text.matches(of: /config\.(string|int|double|stringArray)\(forKey: "([A-Za-z0-9.]+)"/) {
                    read.insert(String(match.2))
                    reads.append((String(match.2), String(match.1)))
                }
                for match in text.matches(of: /forKey: "([A-Za-z0-9.]+)"/) { read.insert(String(match.1)) }
                // The helpers of OrderServer.Configuration(config:): count("push.batchSize", …), seconds(…), set(…).
                for match in text.matches(of: /(count|seconds|set|bytes)\("([a-z][A-Za-z0-9]*\.[A-Za-z0-9.]+)"/) {
                    read.insert(String(match.2))
                    reads.append((String(match.2), String(match.1)))
                }
            }
        }
        #expect(read.count > 30, "the scan found the keys: \(read.sorted())")
        let unknown = read.subtracting(OrderServer.Configuration.settingKeys)
        #expect(unknown.isEmpty, "read but refused in a settings file: \(unknown.sorted())")
        // Each key is read as the type the check gives it.
        let types = OrderServer.Configuration.settingTypes
        let expected: [String: [OrderServer.Configuration.SettingType]] = [
            "string": [.text, .textOrList], "stringArray": [.list, .textOrList], "int": [.wholeNumber], "count": [.wholeNumber],
            "bytes": [.wholeNumber], "double": [.number], "seconds": [.number],
        ]
        for (key, reader) in reads {
            guard let allowed = expected[reader], let type = types[key] else { continue }
            #expect(allowed.contains(type), "\(key) is read with \(reader) but checked as \(type)")
        }
    }

    @Test(
        "A setting of the wrong type, from the environment or a JSON file, is refused naming it, its value and what it takes; secrets are not repeated",
        arguments: [
            (["PUSH_BATCH_SIZE": "lots"], "The setting push.batchSize is \"lots\"; it takes a whole number."),
            (["CACHE_ARCHIVE_BYTES": "1.5"], "The setting cache.archiveBytes is \"1.5\"; it takes a whole number."),
            (["PUSH_POLL_SECONDS": "soon"], "The setting push.pollSeconds is \"soon\"; it takes a number."),
            (["METRICS_KEY": ""], nil),
        ])
    func wrongTypeInTheEnvironment(variables: [String: String], message: String?) throws {
        let environment = Dictionary(uniqueKeysWithValues: variables.map { ("WALLET_ORDERS_" + $0.key, $0.value) })
        let config = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["wallet", "orders"]))
        do {
            try OrderServer.Configuration.checkSettingTypes(config)
            #expect(message == nil, "accepted \(variables)")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message == message, "\(error.message)")
            #expect(error.hint?.contains("WALLET_ORDERS_") == true, "\(error.hint ?? "")")
        }
    }

    @Test("JSON values of the wrong type are refused; whole numbers for seconds, arrays for lists and a string or an array for apiKeys pass")
    func wrongTypeInJSON() async throws {
        let cases: [(String, String?)] = [
            (#"{"push": {"batchSize": "32"}}"#, #"The setting push.batchSize is "32"; it takes a whole number."#),
            (#"{"push": {"batchSize": 2.5}}"#, "The setting push.batchSize is 2.5; it takes a whole number."),
            (#"{"listen": 8080}"#, "The setting listen is 8080; it takes text."),
            (#"{"trustRoots": "/etc/root.pem"}"#, #"The setting trustRoots is "/etc/root.pem"; it takes a list of strings, such as ["a", "b"]."#),
            (#"{"metrics": {"key": 1234567890123456}}"#, "The setting metrics.key is given; it takes text."),
            (#"{"apiKeys": "key-0123456789abcdef *", "push": {"pollSeconds": 2, "batchSize": 64}, "trustRoots": ["/a.pem"]}"#, nil),
            (#"{"apiKeys": ["key-0123456789abcdef *"], "connections": {"idleTimeoutSeconds": 0.5}}"#, nil),
        ]
        let folder = try TemporaryFolder.ofTest
        for (index, (text, message)) in cases.enumerated() {
            let file = try folder.write(Array(text.utf8), to: "settings-\(index).json")
            let config = ConfigReader(provider: try await FileProvider<JSONSnapshot>(filePath: FilePath(file.path)))
            do {
                try OrderServer.Configuration.checkSettingTypes(config)
                #expect(message == nil, "accepted \(text)")
            } catch {
                #expect(message.map { error.message.hasPrefix($0) } == true, "\(text): \(error.message)")
                #expect(!error.message.contains("1234567890123456"), "a secret is never repeated")
            }
        }
    }

    @Test(
        "A header or body deadline longer than the idle timeout is refused (Hummingbird's idle timeout would cut it short); equal or shorter is taken"
    )
    func deadlinesWithinTheIdleTimeout() throws {
        let validator = try OrderValidator()
        func read(_ values: [AbsoluteConfigKey: ConfigValue]) throws -> OrderServer.Configuration {
            try OrderServer.Configuration(config: ConfigReader(provider: InMemoryProvider(values: values)), validator: validator)
        }
        for key in ["connections.bodyTimeoutSeconds", "connections.headerTimeoutSeconds"] {
            do {
                _ = try read([AbsoluteConfigKey(ConfigKey(key).components): 120.0])
                Issue.record("\(key) 120 s with the idle timeout at 60 s was taken")
            } catch let error as WalletOrdersError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains(key) && error.message.contains("connections.idleTimeoutSeconds"), "\(error.message)")
            }
            let taken = try read([
                AbsoluteConfigKey(ConfigKey(key).components): 120.0, AbsoluteConfigKey(ConfigKey("connections.idleTimeoutSeconds").components): 120.0,
            ])
            #expect(taken.connections.idleTimeout == .seconds(120))
        }
    }

    @Test("In the settings file, a boolean or an object where a value goes is an error at its line and column")
    func booleansAndObjects() throws {
        for (text, message) in [
            (#"{"cache": {"archiveBytes": true}}"#, "service.json:1:28: the setting cache.archiveBytes is a boolean; it takes a whole number."),
            (#"{"listen": {"host": "::1"}}"#, "service.json:1:12: the setting listen is an object; it takes text."),
        ] {
            #expect(throws: WalletOrdersError.self) { try OrderServer.Configuration.checkSettingsFile(Array(text.utf8), path: "service.json") }
            do {
                try OrderServer.Configuration.checkSettingsFile(Array(text.utf8), path: "service.json")
            } catch {
                #expect(error.message == message, "\(error.message)")
            }
        }
    }
}
