import ArgumentParser
import Configuration
import Foundation
import Logging
import WalletOrders
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
            settings, the store (reachable, writable), each signing identity of --signing-dir \
            (its certificate's expiry), the APNs endpoint (reachable over TLS, without a push) \
            and this machine's clock against the endpoint's. Each check prints ok, warning or \
            error with what it found; the exit code is 1 when any check is an error.

            Examples:
              wallet-orders doctor --store orders.sqlite --signing-dir signing --apns development
              wallet-orders doctor --config service.json --json
            """
    )

    @OptionGroup var serve: ServeCommand

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
        add("libraries", .ok, "\(LibraryVersions.openSSL), libzip \(LibraryVersions.libzip), libzint \(LibraryVersions.libzint)")
        do {
            add("chromium", .ok, try HeadlessChromium.find().executable.path)
        } catch {
            add("chromium", .warning, "not found: preview --png can't render", hint: HeadlessChromium.NotInstalled.hint)
        }
        do {
            let config = try await serve.readConfiguration()
            await check(config, add)
        } catch let error as WalletOrdersError {
            add("settings", .error, error.message, hint: error.hint)
        }
        print(checks)
        if checks.contains(where: { $0.status == .error }) { throw ExitCode.failure }
    }

    /// The checks that need the settings.
    private func check(_ config: ConfigReader, _ add: (String, Check.Status, String, String?) -> Void) async {
        let now = Date()
        do {
            let anchors = try TrustRoots.read(serve.trustRoots + config.stringArray(forKey: "trustRoots", default: []))
            _ = try OrderServer.Configuration(
                config: config, validator: try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors)))
            add("settings", .ok, "read", nil)
        } catch {
            let failure = WalletOrdersError.wrapping(error, code: .invalidConfiguration)
            add("settings", .error, failure.message, failure.hint)
        }
        await checkStore(config, add)
        if let folder = config.string(forKey: "signing.directory") {
            do {
                // An identity not valid now (expired, or not yet valid) is refused with its dates.
                let identities = try SigningIdentities.load(directory: URL(fileURLWithPath: folder), validAt: now)
                if identities.entries.isEmpty { add("signing", .warning, "\(folder) holds no order type's identity", nil) }
                for type in identities.entries.keys.sorted() {
                    guard let summary = identities.entries[type]?.identity.certificateSummary else { continue }
                    let day = summary.notAfter.formatted(Date.ISO8601FormatStyle().year().month().day())
                    if summary.notAfter.timeIntervalSince(now) < Self.expiryWarning {
                        add(
                            "signing", .warning, "\(type): the certificate expires on \(day)",
                            "Renew it before then: orders can't be signed after it.")
                    } else {
                        add("signing", .ok, "\(type): the certificate is valid until \(day)", nil)
                    }
                }
            } catch {
                let failure = WalletOrdersError.wrapping(error, code: .invalidConfiguration)
                add("signing", .error, failure.message, failure.hint)
            }
        }
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
            let failure = WalletOrdersError.wrapping(error, code: .invalidConfiguration)
            add("apns", .error, failure.message, failure.hint)
        }
    }

    /// The store: where it is, whether it opens, how many orders it holds, whether it can be written.
    private func checkStore(_ config: ConfigReader, _ add: (String, Check.Status, String, String?) -> Void) async {
        let location: OrderStoreLocation
        do {
            location = try OrderStoreLocation.resolve(explicitPath: config.string(forKey: "store"))
        } catch {
            let failure = WalletOrdersError.wrapping(error, code: .invalidConfiguration)
            add("store", .error, failure.message, failure.hint)
            return
        }
        let name = location.displayName
        if case .sqlite = location.backend {
            let path = location.url.path
            let folder = location.url.deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) ? isFolder.boolValue && access(folder, W_OK) == 0 : true
                else {
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
            let failure = WalletOrdersError.wrapping(error, code: .storeUnavailable)
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
