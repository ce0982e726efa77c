public import Configuration
public import WalletOrders
import WalletOrdersJSON

extension OrderServer.Configuration {
    /// What a setting takes, so that a value of another type is refused rather than skipped:
    /// swift-configuration's `int(forKey:default:)` and its kin answer the default for a value
    /// they can't convert, which would run the service on a setting nobody chose.
    public enum SettingType: Sendable {
        /// A string (`"127.0.0.1:8080"`).
        case text
        /// An integer (`32`; `1.5` and `"32"` are refused).
        case wholeNumber
        /// A number (`0.5`, `1`).
        case number
        /// An array of strings (`["10.0.0.0/8"]`); the environment separates them by commas.
        case list
        /// A string or an array of strings (`apiKeys`).
        case textOrList

        var expected: String {
            switch self {
            case .text: "text"
            case .wholeNumber: "a whole number"
            case .number: "a number"
            case .list: #"a list of strings, such as ["a", "b"]"#
            case .textOrList: "text or a list of strings"
            }
        }
    }

    /// Every setting `wallet-orders serve` reads and what it takes, dotted as in the
    /// environment's and the JSON file's nesting (`push.pollSeconds` is `{"push": {"pollSeconds": …}}`):
    /// the service's (``init(config:validator:)``), the APNs clients'
    /// (``APNsSenders/make(config:signingDirectory:logger:)``) and the command's own (the store,
    /// the log, trust roots, the signing folder).
    public static let settingTypes: [String: SettingType] = {
        var types: [String: SettingType] = [:]
        for key in [
            "listen", "store", "apiKeyFile", "publicURL", "links.walletBadges", "log.level", "log.format", "metrics.key", "executor",
            "tls.certificate", "tls.key", "signing.directory", "signing.passphraseEnvironment",
            "apns.environment", "apns.tokenKey", "apns.keyID", "apns.teamID", "apns.certificate", "apns.key", "apns.p12",
            "apns.passphraseEnvironment",
        ] {
            types[key] = .text
        }
        for key in [
            "log.requestBytes", "log.budgetBytes", "cache.archiveBytes", "push.batchSize", "push.concurrentBatches",
            "registrations.maximumPerOrder", "registrations.maximumPerDevice", "registrations.perClientPerMinute",
            "connections.maximum", "connections.maximumPerAddress", "connections.bodyMinimumBytesPerSecond",
        ] {
            types[key] = .wholeNumber
        }
        for key in [
            "updatedAtMarginSeconds", "log.rate", "log.burst", "log.budgetSeconds", "push.leaseSeconds", "push.pollSeconds",
            "push.initialBackoffSeconds", "push.maximumBackoffSeconds", "push.parkedProbeSeconds",
            "connections.headerTimeoutSeconds", "connections.idleTimeoutSeconds", "connections.bodyTimeoutSeconds",
        ] {
            types[key] = .number
        }
        for key in ["trustRoots", "trustedProxies", "apns.trustRoots"] { types[key] = .list }
        types["apiKeys"] = .textOrList
        return types
    }()

    /// Every setting `wallet-orders serve` reads (the keys of ``settingTypes``).
    public static let settingKeys: Set<String> = Set(settingTypes.keys)

    /// The settings whose values are secrets: never repeated in a message.
    static let secretSettings: Set<String> = ["apiKeys", "metrics.key"]

    /// Checks that every setting `config` holds is of the type ``settingTypes`` gives it, whatever
    /// its source (a flag, a `WALLET_ORDERS_*` variable, the settings file): a value that is there
    /// but can't be read as its type would otherwise be passed over, and the default used.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming the first such setting,
    ///   its value (unless it is a secret) and what it takes.
    public static func checkSettingTypes(_ config: ConfigReader) throws(WalletOrdersError) {
        for (name, type) in settingTypes.sorted(by: { $0.key < $1.key }) {
            let key = ConfigKey(name)
            let secret = secretSettings.contains(name)
            let readsAsItsType: Bool
            switch type {
            case .text: readsAsItsType = (try? config.requiredString(forKey: key, isSecret: secret)) != nil
            case .wholeNumber: readsAsItsType = (try? config.requiredInt(forKey: key, isSecret: secret)) != nil
            case .number: readsAsItsType = (try? config.requiredDouble(forKey: key, isSecret: secret)) != nil
            case .list: readsAsItsType = (try? config.requiredStringArray(forKey: key, isSecret: secret)) != nil
            case .textOrList:
                readsAsItsType =
                    (try? config.requiredString(forKey: key, isSecret: secret)) != nil
                    || (try? config.requiredStringArray(forKey: key, isSecret: secret)) != nil
            }
            if readsAsItsType { continue }
            // Not readable as its type: absent (the default applies), or there as something else.
            let given: String? =
                config.string(forKey: key, isSecret: secret).map { "\"\($0)\"" }
                ?? config.double(forKey: key, isSecret: secret).map { $0.rounded() == $0 && abs($0) < 1e15 ? "\(Int64($0))" : "\($0)" }
                ?? config.stringArray(forKey: key, isSecret: secret).map { "[\($0.map { "\"\($0)\"" }.joined(separator: ", "))]" }
                ?? config.bool(forKey: key, isSecret: secret).map { "\($0)" }
            guard let given else { continue }
            let environment = "WALLET_ORDERS_" + name.replacing(/([a-z0-9])([A-Z])/) { "\($0.1)_\($0.2)" }.replacing(".", with: "_").uppercased()
            throw WalletOrdersError(
                .invalidConfiguration,
                "The setting \(name) is \(secret ? "given" : given); it takes \(type.expected).",
                hint: "Set it (in the settings file, as \(environment), or by its flag) to \(type.expected), or leave it out for its default.")
        }
    }

    /// Checks a JSON settings file before it is used, so that a mistake is reported where it is:
    /// a syntax error at its line and column, a key the service doesn't read (a typo would
    /// otherwise be ignored, and its default used) with the nearest key it does read, and a
    /// key given twice.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - path: The file's name, for messages (`service.json:3:14: …`).
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` naming the place and, for an
    ///   unknown key, the nearest known one.
    public static func checkSettingsFile(_ bytes: [UInt8], path: String) throws(WalletOrdersError) {
        let parsed = JSONParser.parse(bytes, maxDepth: 16)
        if let problem = parsed.problems.first(where: { $0.isFatal || $0.kind == .duplicateKey }) {
            throw WalletOrdersError(
                .invalidConfiguration, "\(path):\(problem.position): \(problem.message)",
                hint: #"The settings file is one JSON object, such as {"listen": "127.0.0.1:8080", "push": {"pollSeconds": 1}}."#)
        }
        guard let root = parsed.root, let members = root.members else {
            throw WalletOrdersError(
                .invalidConfiguration, "\(path):1:1: the settings file is not a JSON object.",
                hint: #"Write the settings as one object, such as {"listen": "127.0.0.1:8080"}."#)
        }
        try check(members, prefix: "", path: path)
    }

    private static func wrongType(_ key: String, _ value: JSONNode, _ type: SettingType, path: String) -> WalletOrdersError {
        WalletOrdersError(
            .invalidConfiguration,
            "\(path):\(value.position): the setting \(key) is \(value.typeName == "object" ? "an object" : "a boolean"); it takes \(type.expected).",
            hint: "Give \(key) \(type.expected), or leave it out for its default.")
    }

    /// Checks each member against ``settingKeys``: a known key is left to the reader (which
    /// checks its value; ``checkSettingTypes(_:)`` its type) unless it is a boolean or an object,
    /// which the reader would take as a number or drop; an object whose key starts known keys is
    /// checked member by member.
    private static func check(_ members: [JSONMember], prefix: String, path: String) throws(WalletOrdersError) {
        for member in members {
            let key = prefix + member.key
            if let type = settingTypes[key] {
                // What the reader can't report: a boolean it would take as 1 or 0, an object it would drop.
                if case .bool = member.value.value { throw wrongType(key, member.value, type, path: path) }
                if case .object = member.value.value { throw wrongType(key, member.value, type, path: path) }
                continue
            }
            if let nested = member.value.members, settingKeys.contains(where: { $0.hasPrefix(key + ".") }) {
                try check(nested, prefix: key + ".", path: path)
                continue
            }
            let suggestion = NearestName.suggestion(for: key, among: settingKeys)
            let siblings = settingKeys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
                .map { $0.split(separator: ".").first.map(String.init) ?? $0 }
            throw WalletOrdersError(
                .invalidConfiguration, "\(path):\(member.keyPosition): '\(key)' is not a setting of the service.",
                hint: suggestion.map { "Did you mean '\($0)'?" }
                    ?? "The settings\(prefix.isEmpty ? "" : " under '\(prefix.dropLast())'") are: \(Set(siblings).sorted().joined(separator: ", ")).")
        }
    }
}
