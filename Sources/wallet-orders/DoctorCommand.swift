import ArgumentParser
import Configuration
import Foundation
import Logging
import WalletOrders
import WalletOrdersBarcodeInterop
import WalletOrdersInterop
import WalletOrdersPostgres
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore

/// `wallet-orders doctor`: what `serve` would run with, checked one part at a time.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a machine and the settings `serve` would run with, one part at a time.",
        discussion: """
            Takes the options of `serve` (and reads the same WALLET_ORDERS_* variables and \
            --config file), then checks: the C libraries, Chromium (for preview --png), the \
            settings, the listen address (free to bind), the service's TLS (the chain, the key \
            matching it, the expiry), the store (reachable, writable, its folder there), each \
            signing identity of --signing-dir (loaded with signing.passphraseEnvironment, its \
            certificate's expiry), the merchant keys (none; an order type with no identity, or \
            one like another's), the APNs endpoint (reachable over TLS, without a push) and this \
            machine's clock against the endpoint's. Each check prints ok, warning or \
            error with what it found; the exit code is 1 when any check is an error.

            Examples:
              wallet-orders doctor --store orders.sqlite --signing-dir signing --apns development
              wallet-orders doctor --config service.json --json
            """
    )

    @OptionGroup var serve: ServeOptions

    @Flag(help: "Print the checks as a JSON array.")
    var json = false

    /// One check's verdict.
    struct Check: Encodable {
        enum Status: String, Encodable { case ok, warning, error }
        var name: String
        var status: Status
        var detail: String
        var hint: String?
    }

    /// Certificates expiring sooner than this are a warning.
    static let expiryWarning: TimeInterval = 30 * 86_400

    func run() async throws {
        var checks: [Check] = []
        func add(_ name: String, _ status: Check.Status, _ detail: String, hint: String? = nil) {
            checks.append(Check(name: name, status: status, detail: detail, hint: hint))
        }
        add("libraries", .ok, "\(LibraryVersions.openSSL), libzip \(LibraryVersions.libzip), libzint \(BarcodeEncoder.libraryVersion)")
        do {
            add("chromium", .ok, try HeadlessChromium.find().executable.path)
        } catch {
            add("chromium", .warning, "not found: preview --png can't render", hint: HeadlessChromium.NotInstalled.hint)
        }
        do {
            let config = try await serve.readConfiguration()
            await check(config, add)
        } catch let error as WalletOrdersError {
            add("settings", .error, serve.inFlagTerms(error).message, hint: error.hint)
        }
        print(checks)
        if checks.contains(where: { $0.status == .error }) { throw ExitCode.failure }
    }

    /// The checks that need the settings: each part `serve` reads, loaded the way `serve` loads it.
    private func check(_ config: ConfigReader, _ add: (String, Check.Status, String, String?) -> Void) async {
        let now = Date()
        var settings: OrderServer.Configuration?
        do {
            let anchors = try TrustRoots.read(serve.trustRoots + config.stringArray(forKey: "trustRoots", default: []))
            // Everything serve reads but the signing identities, which are checked one by one below.
            settings = try OrderServer.Configuration(
                config: config, validator: try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors)),
                loadingSigningIdentities: false)
            add("settings", .ok, "read", nil)
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("settings", .error, failure.message, CLIHints.hint(for: failure))
        }
        if let settings {
            await checkListen(settings, add)
            checkTLS(settings, now: now, add)
        }
        await checkStore(config, add)
        let identities = checkSigning(config, now: now, add)
        if let settings { checkMerchantKeys(settings, identities: identities, signingDirectory: config.string(forKey: "signing.directory"), add) }
        await checkAPNs(config, now: now, add)
    }

    /// Whether `serve` could listen where it is told to.
    private func checkListen(_ settings: OrderServer.Configuration, _ add: (String, Check.Status, String, String?) -> Void) async {
        let address = settings.host.contains(":") ? "[\(settings.host)]:\(settings.port)" : "\(settings.host):\(settings.port)"
        do {
            try await settings.checkListenAddress()
            add("listen", .ok, settings.port == 0 ? "\(settings.host), on a port the system picks" : "\(address) is free", nil)
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("listen", .error, failure.message, failure.hint)
        }
    }

    /// The service's own TLS: the chain parses, the key is the certificate's, the TLS library
    /// takes both, and the certificate is valid now and for a while yet. Without TLS, a listen
    /// address other than loopback serves plain HTTP where Wallet speaks only HTTPS.
    private func checkTLS(_ settings: OrderServer.Configuration, now: Date, _ add: (String, Check.Status, String, String?) -> Void) {
        guard let tls = settings.tls else {
            if !Self.isLoopback(settings.host) {
                add(
                    "tls", .warning, "plain HTTP on \(settings.host): Wallet reaches a service over HTTPS only",
                    "Put the service behind a reverse proxy that terminates TLS (and listen on 127.0.0.1), or give --tls-certificate and --tls-key.")
            }
            return
        }
        do {
            let certificate = try TLSServerCertificate(
                certificateChainPEM: tls.certificateChainPEM, privateKeyPEM: tls.privateKeyPEM, certificateName: "(tls.certificate)",
                keyName: "(tls.key)")
            _ = try settings.serverTLSConfiguration()
            let leaf = certificate.leaf
            let name = leaf.commonName ?? leaf.subject
            let day = Date.ISO8601FormatStyle().year().month().day()
            if now < leaf.notBefore {
                add(
                    "tls", .error, "\(name): the certificate is valid only from \(leaf.notBefore.formatted(day))",
                    "Check this machine's clock, or use a certificate valid now.")
            } else if leaf.notAfter < now {
                add(
                    "tls", .error, "\(name): the certificate expired on \(leaf.notAfter.formatted(day))",
                    "Renew it: clients refuse an expired certificate.")
            } else if leaf.notAfter.timeIntervalSince(now) < Self.expiryWarning {
                add(
                    "tls", .warning, "\(name): the certificate expires on \(leaf.notAfter.formatted(day))",
                    "Renew it before then: clients refuse an expired certificate.")
            } else {
                add(
                    "tls", .ok,
                    "\(name): the key matches, \(certificate.chainLength) certificate\(certificate.chainLength == 1 ? "" : "s"), valid until \(leaf.notAfter.formatted(day))",
                    nil)
            }
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("tls", .error, failure.message, failure.hint)
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Each identity of `signing.directory`, loaded as `serve` loads it (with the passphrase of
    /// `signing.passphraseEnvironment`): its expiry, or why it can't be used.
    private func checkSigning(_ config: ConfigReader, now: Date, _ add: (String, Check.Status, String, String?) -> Void) -> SigningIdentities? {
        guard let folder = config.string(forKey: "signing.directory") else { return nil }
        do {
            // An identity not valid now (expired, or not yet valid) is refused with its dates.
            guard let identities = try OrderServer.Configuration.signingIdentities(config: config, validAt: now) else { return nil }
            if identities.entries.isEmpty {
                add(
                    "signing", .warning, "\(folder) holds no order type's identity: /merchant/v1/orders/build answers 422 for every type",
                    "Give a folder with one subfolder per order type identifier, as `wallet-orders dev-certs --out FOLDER/TYPE` writes it.")
            }
            for type in identities.entries.keys.sorted() {
                guard let summary = identities.entries[type]?.identity.certificateSummary else { continue }
                let day = summary.notAfter.formatted(Date.ISO8601FormatStyle().year().month().day())
                if summary.notAfter.timeIntervalSince(now) < Self.expiryWarning {
                    add("signing", .warning, "\(type): the certificate expires on \(day)", "Renew it before then: orders can't be signed after it.")
                } else {
                    add("signing", .ok, "\(type): the certificate is valid until \(day)", nil)
                }
            }
            return identities
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("signing", .error, failure.message, CLIHints.hint(for: failure))
            return nil
        }
    }

    /// The merchant keys: none (every merchant call answers 401), a key's order type the service
    /// has no identity for (its builds are refused), a type that looks like a misspelling of one
    /// it has, and an identity no key may use.
    private func checkMerchantKeys(
        _ settings: OrderServer.Configuration, identities: SigningIdentities?, signingDirectory: String?,
        _ add: (String, Check.Status, String, String?) -> Void
    ) {
        let keys = settings.apiKeys
        guard !keys.isEmpty else {
            add(
                "keys", .warning, "no merchant API key: every /merchant/v1/ call answers 401",
                "Give --api-key-file (one key a line: KEY then its order types, or *) or WALLET_ORDERS_API_KEYS.")
            return
        }
        let everyType = keys.filter { $0.scope.orderTypeIdentifiers == nil }.count
        let named = Set(keys.flatMap { $0.scope.orderTypeIdentifiers ?? [] })
        var parts = ["\(keys.count) merchant key\(keys.count == 1 ? "" : "s")"]
        if everyType > 0 { parts.append("\(everyType) for every order type") }
        if !named.isEmpty { parts.append("for \(named.sorted().joined(separator: ", "))") }
        add("keys", .ok, parts.joined(separator: ", "), nil)
        guard let signingDirectory else { return }
        let held = Set(identities?.entries.keys.map { $0 } ?? [])
        for type in named.sorted() where !held.contains(type) {
            if let nearest = NearestName.suggestion(for: type, among: held) {
                add(
                    "keys", .warning, "a key names \(type), for which \(signingDirectory) holds no identity; did you mean \(nearest)?",
                    "Order types are compared exactly: correct the key's entry, or the folder's name.")
            } else {
                add(
                    "keys", .warning,
                    "a key names \(type), for which \(signingDirectory) holds no identity: its builds answer 422 no-signing-identity (signed uploads still work)",
                    "Add \(signingDirectory)/\(type)/ with the type's certificate, or let that merchant upload archives it signs.")
            }
        }
        if everyType == 0 {
            for type in held.sorted() where !named.contains(type) {
                add(
                    "keys", .warning, "no key may act on \(type), whose identity \(signingDirectory) holds",
                    "Add its order type to a merchant's key (KEY \(type)), or remove the identity.")
            }
        }
    }

    /// The APNs endpoint: reached over TLS without a push, and this machine's clock against its.
    private func checkAPNs(_ config: ConfigReader, now: Date, _ add: (String, Check.Status, String, String?) -> Void) async {
        do {
            guard
                let senders = try APNsSenders.make(
                    config: config, signingDirectory: config.string(forKey: "signing.directory").map { URL(fileURLWithPath: $0) },
                    logger: .init(label: "wallet-orders.doctor", factory: { _ in SwiftLogNoOpLogHandler() }))
            else {
                add("apns", .warning, "no endpoint (--apns): pushes would wait in the outbox", nil)
                return
            }
            for (endpoint, result) in await senders.probe().sorted(by: { $0.key < $1.key }) {
                switch result {
                case .success(let probe):
                    add("apns", .ok, "\(endpoint) answered over TLS (HTTP \(probe.status))", nil)
                    if let date = probe.date {
                        let skew = now.timeIntervalSince(date)
                        if abs(skew) > 60 {
                            add(
                                "clock", .error, "this machine's clock is \(Int(skew.rounded())) s off \(endpoint)'s",
                                "Synchronize it (NTP): signing times and the updatedAt margin depend on it.")
                        } else {
                            add("clock", .ok, "within \(Int(Swift.abs(skew).rounded(FloatingPointRoundingRule.up))) s of \(endpoint)'s", nil)
                        }
                    }
                case .failure(let error):
                    add("apns", .error, "\(endpoint) can't be reached: \(error)", "Check the address, the firewall and --apns-ca (a stand-in's CA).")
                }
            }
            await senders.shutdown()
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("apns", .error, failure.message, failure.hint)
        }
    }

    /// The store: where it is, whether it opens, how many orders it holds, whether it can be written.
    private func checkStore(_ config: ConfigReader, _ add: (String, Check.Status, String, String?) -> Void) async {
        let location: OrderStoreLocation
        do {
            location = try OrderStoreLocation.resolve(explicitPath: config.string(forKey: "store"))
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .invalidConfiguration))
            add("store", .error, failure.message, failure.hint)
            return
        }
        let name = location.displayName
        if case .sqlite = location.backend {
            let path = location.url.path
            let folder = location.url.deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path) {
                let folderExists = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
                if !folderExists && location.source == .xdgDefault {
                    add("store", .ok, "\(name) does not exist yet; serve creates it and its folder", nil)
                    return
                }
                guard folderExists else {
                    // serve creates the default location's folder, never a given one's: a typo would start an empty store.
                    add(
                        "store", .error, "\(name) can't be created: its folder \(folder) does not exist, and serve doesn't make it",
                        "Create the folder (mkdir -p), or correct --store.")
                    return
                }
                guard isFolder.boolValue && access(folder, W_OK) == 0 else {
                    add(
                        "store", .error, "\(name) can't be created: \(folder) is not a writable folder",
                        "Give --store a path in a folder this user may write.")
                    return
                }
                add("store", .ok, "\(name) does not exist yet; serve creates it", nil)
                return
            }
            guard access(path, W_OK) == 0, access(folder, W_OK) == 0 else {
                add(
                    "store", .error, "\(name) is not writable (the file and its folder must be, for the journal)",
                    "Fix the permissions, or run as the store's owner.")
                return
            }
        }
        do {
            let store = try await location.openStore(access: .readOnly)
            let count: Int
            if let postgres = store as? PostgresOrderStore {
                count = try await postgres.count()
                await postgres.close()
            } else {
                count = try await (store as? SQLiteOrderStore)?.count() ?? 0
            }
            add("store", .ok, "\(name): \(count) order\(count == 1 ? "" : "s"), writable", nil)
        } catch {
            let failure = serve.inFlagTerms(WalletOrdersError.wrapping(error, code: .storeUnavailable))
            add("store", .error, failure.message, failure.hint)
        }
    }

    private func print(_ checks: [Check]) {
        if json {
            try? JSONOutput.print(checks)
            return
        }
        let width = (checks.map(\.name.count).max() ?? 0) + 2
        for check in checks {
            let status: String
            switch check.status {
            case .ok: status = Terminal.styled("ok     ", .green, on: .standardOutput)
            case .warning: status = Terminal.styled("warning", .yellow, on: .standardOutput)
            case .error: status = Terminal.styled("error  ", .red, on: .standardOutput)
            }
            Terminal.write("\(status)  \(check.name.padding(toLength: width, withPad: " ", startingAt: 0))\(check.detail)", to: .standardOutput)
            if let hint = check.hint, check.status != .ok {
                Terminal.write("         \(String(repeating: " ", count: width))hint: \(hint)", to: .standardOutput)
            }
        }
    }
}
