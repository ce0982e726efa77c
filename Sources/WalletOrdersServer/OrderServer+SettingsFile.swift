public import WalletOrders
import WalletOrdersJSON

extension OrderServer.Configuration {
    /// Every setting `wallet-orders serve` reads, dotted as in the environment's and the JSON
    /// file's nesting (`push.pollSeconds` is `{"push": {"pollSeconds": …}}`): the service's
    /// (``init(config:validator:)``), the APNs clients' (``APNsSenders/make(config:signingDirectory:logger:)``)
    /// and the command's own (the store, the log, trust roots, the signing folder).
    public static let settingKeys: Set<String> = [
        "listen", "store", "apiKeys", "apiKeyFile", "publicURL", "links.walletBadges", "updatedAtMarginSeconds", "trustRoots", "trustedProxies",
        "log.level", "log.format", "log.rate", "log.burst", "log.requestBytes", "log.budgetBytes", "log.budgetSeconds",
        "metrics.key", "executor", "cache.archiveBytes",
        "tls.certificate", "tls.key",
        "signing.directory", "signing.passphraseEnvironment",
        "push.batchSize", "push.concurrentBatches", "push.leaseSeconds", "push.pollSeconds", "push.initialBackoffSeconds",
        "push.maximumBackoffSeconds", "push.parkedProbeSeconds",
        "registrations.maximumPerOrder", "registrations.maximumPerDevice", "registrations.perClientPerMinute",
        "connections.headerTimeoutSeconds", "connections.idleTimeoutSeconds", "connections.bodyTimeoutSeconds",
        "connections.maximum", "connections.maximumPerAddress",
        "apns.environment", "apns.tokenKey", "apns.keyID", "apns.teamID", "apns.certificate", "apns.key", "apns.p12",
        "apns.passphraseEnvironment", "apns.trustRoots",
    ]

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

    /// Checks each member against ``settingKeys``: a known key is left to the reader (which
    /// checks its value), an object whose key starts known keys is checked member by member.
    private static func check(_ members: [JSONMember], prefix: String, path: String) throws(WalletOrdersError) {
        for member in members {
            let key = prefix + member.key
            if settingKeys.contains(key) { continue }
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
