package import ArgumentParser
import Foundation
import WalletOrders
import WalletPasses

/// `wallet-orders dev-certs --order-type-id ID|--pass-type-id ID --team-id TEAM --out DIR`
package struct DevCertsCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "dev-certs",
        abstract: "Make a local TEST-ONLY certificate chain to try the pipeline without an Apple account.",
        discussion: """
            Writes into DIR:
              root-ca.pem               the test root (pass it to verify --trust-root)
              wwdr-intermediate.pem     a WWDR-like intermediate (pass it to build --wwdr)
              order-type.pem            the Order Type ID certificate (UID, CN, OU)
              order-type.key.pem        its private key (unencrypted PKCS #8)
              order-type.p12            certificate, key and intermediate as a .p12
              README.txt                what the files are
            With --pass-type-id, pass-type.pem, pass-type.key.pem and pass-type.p12 instead: a \
            Pass Type ID certificate in Apple's profile (extended key usage \
            1.2.840.113635.100.4.14, the pass-type marker naming the pass type, OU the team; \
            with --nfc also the NFC marker that passes with nfc need).

            Apple Wallet trusts none of these. The .p12 passphrase is taken from --p12-passphrase-env \
            (default: empty). Each file is written as `build --out FILE` writes (see `build --help`); \
            the keys are created readable by their owner only.

            --order-type-id takes the identifier, or a source folder whose order.json names it. The \
            certificates are valid from 2020-01-01 (so a past --signing-time or SOURCE_DATE_EPOCH \
            works) until five years (the order type certificate: one year) from now.

            Examples:
              wallet-orders dev-certs --pass-type-id pass.com.example.ticket \\
                  --team-id ABCDE12345 --out certs
              wallet-orders dev-certs --order-type-id Samples/shipped-ecommerce \\
                  --team-id ABCDE12345 --out certs
              wallet-orders dev-certs --order-type-id order.com.example.shop \\
                  --team-id ABCDE12345 --out certs
            """
    )

    @Option(
        name: .customLong("order-type-id"),
        help: ArgumentHelp(
            "The order type identifier (certificate UID), or an order source folder (or its order.json) to take it from.",
            valueName: "id|source"))
    package var orderTypeIdentifiers: [String] = []

    @Option(
        name: .customLong("pass-type-id"),
        help: ArgumentHelp(
            "The pass type identifier (certificate UID and pass-type marker), or a pass source folder (or its pass.json) to take it from.",
            valueName: "id|source"))
    package var passTypeIdentifiers: [String] = []

    @Flag(help: "With --pass-type-id: an NFC-enabled certificate (Apple's 'Pass Type ID with NFC'), which passes with nfc need.")
    package var nfc = false

    @Option(name: .customLong("team-id"), help: ArgumentHelp("The Team ID (certificate OU).", valueName: "team"))
    package var teamIdentifier: String

    @Option(help: ArgumentHelp("The folder to write into (created if missing).", valueName: "dir"))
    package var out: String

    @Option(name: .customLong("p12-passphrase-env"), help: ArgumentHelp("Environment variable holding the .p12 passphrase.", valueName: "name"))
    package var p12PassphraseEnvironmentVariable: String?

    @Flag(help: "Replace files that already exist in the folder.")
    package var force = false

    package static let fileNames = fileNames(for: .order)

    /// The files written for a certificate of `kind`.
    static func fileNames(for kind: ArchiveKind) -> [String] {
        let leaf = kind == .order ? "order-type" : "pass-type"
        return ["root-ca.pem", "wwdr-intermediate.pem", "\(leaf).pem", "\(leaf).key.pem", "\(leaf).p12", "README.txt"]
    }

    /// What the certificate signs: passes with `--pass-type-id`, orders otherwise.
    var kind: ArchiveKind { passTypeIdentifiers.isEmpty ? .order : .pass }

    package func validate() throws {
        if !orderTypeIdentifiers.isEmpty && !passTypeIdentifiers.isEmpty {
            throw ValidationError(
                "Give --order-type-id or --pass-type-id, not both: a certificate signs orders or passes. Run dev-certs once for each, with its own --out."
            )
        }
        if orderTypeIdentifiers.isEmpty && passTypeIdentifiers.isEmpty {
            throw ValidationError(
                "Missing --order-type-id (an identifier such as order.com.example.shop, or a source folder) or --pass-type-id (pass.com.example.ticket)."
            )
        }
        for (option, values, noun) in [("--order-type-id", orderTypeIdentifiers, "order type"), ("--pass-type-id", passTypeIdentifiers, "pass type")]
        {
            if values.count > 1 {
                throw ValidationError(
                    "\(option) was given \(values.count) times (\(values.joined(separator: ", "))); "
                        + "one certificate has one \(noun) identifier. Run dev-certs once per \(noun), each with its own --out.")
            }
            if values.first?.isEmpty == true { throw ValidationError("\(option) must not be empty.") }
        }
        if nfc && passTypeIdentifiers.isEmpty { throw ValidationError("--nfc makes a Pass Type ID certificate: give --pass-type-id.") }
        if teamIdentifier.isEmpty { throw ValidationError("--team-id must not be empty.") }
    }

    /// Certificates made by this command are valid from this instant (and for five years, the
    /// leaf one year, from now): far enough back that `--signing-time` of a past release, or
    /// `SOURCE_DATE_EPOCH` of an old commit, falls inside them.
    static let validFrom = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01T00:00:00Z

    /// The identifier named by `--order-type-id`: the value itself, or the `orderTypeIdentifier`
    /// of the source folder (or `order.json`) it names.
    static func resolveOrderTypeIdentifier(_ value: String) throws -> String {
        var isFolder: ObjCBool = false
        guard value.contains("/") || FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) else { return value }
        guard FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) else {
            throw WalletOrdersError(
                .fileAccess, "'\(value)' does not exist.",
                hint: "Give --order-type-id an identifier (order.com.example.shop) or an order source folder.")
        }
        let source = isFolder.boolValue ? URL(fileURLWithPath: value) : URL(fileURLWithPath: value).deletingLastPathComponent()
        let json = try OrderSource(directory: source).orderJSON.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) }
        guard let object = json as? [String: Any], let identifier = object["orderTypeIdentifier"] as? String, !identifier.isEmpty
        else {
            throw WalletOrdersError(
                .invalidOrder, "'\(value)' has no order.json with an orderTypeIdentifier.",
                hint: "Give --order-type-id an identifier (order.com.example.shop), or a source folder holding order.json.")
        }
        return identifier
    }

    /// The identifier named by `--pass-type-id`: the value itself, or the `passTypeIdentifier` of
    /// the pass source folder (or `pass.json`) it names.
    static func resolvePassTypeIdentifier(_ value: String) throws -> String {
        var isFolder: ObjCBool = false
        guard value.contains("/") || FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) else { return value }
        guard FileManager.default.fileExists(atPath: value, isDirectory: &isFolder) else {
            throw WalletOrdersError(
                .fileAccess, "'\(value)' does not exist.",
                hint: "Give --pass-type-id an identifier (pass.com.example.ticket) or a pass source folder.")
        }
        let source = isFolder.boolValue ? URL(fileURLWithPath: value) : URL(fileURLWithPath: value).deletingLastPathComponent()
        guard let identifier = try PassSource(directory: source).passJSON.flatMap({ try? PassArchive.identity(of: $0) })?.passTypeIdentifier,
            !identifier.isEmpty
        else {
            throw WalletOrdersError(
                .invalidOrder, "'\(value)' has no pass.json with a passTypeIdentifier.",
                hint: "Give --pass-type-id an identifier (pass.com.example.ticket), or a source folder holding pass.json.")
        }
        return identifier
    }

    package func run() throws {
        try reportingFailures {
            let kind = kind
            let typeIdentifier =
                kind == .order
                ? try Self.resolveOrderTypeIdentifier(orderTypeIdentifiers[0]) : try Self.resolvePassTypeIdentifier(passTypeIdentifiers[0])
            let folder = URL(fileURLWithPath: out)
            let fileNames = Self.fileNames(for: kind)
            let existing = fileNames.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
            if !existing.isEmpty && !force {
                throw WalletOrdersError(
                    .fileAccess, "'\(out)' already holds \(existing.joined(separator: ", ")).",
                    hint: "Choose another --out folder, or pass --force to replace them.")
            }
            let passphrase = try p12PassphraseEnvironmentVariable.map { try PassphraseSource.environment($0).resolve() } ?? ""
            let sinceValidFrom = Date().timeIntervalSince(Self.validFrom)
            let authority = try DevelopmentCertificateAuthority(
                validFrom: Self.validFrom, validFor: sinceValidFrom + 5 * 365 * 86_400)
            let leaf =
                kind == .order
                ? try authority.issueOrderTypeCertificate(
                    orderTypeIdentifier: typeIdentifier, teamIdentifier: teamIdentifier, validFrom: Self.validFrom,
                    validFor: sinceValidFrom + 365 * 86_400)
                : try authority.issuePassTypeCertificate(
                    passTypeIdentifier: typeIdentifier, teamIdentifier: teamIdentifier, nfc: nfc, validFrom: Self.validFrom,
                    validFor: sinceValidFrom + 365 * 86_400)
            let files: [(String, [UInt8], Int)] = [
                (fileNames[0], Array(authority.rootCertificatePEM.utf8), 0o644),
                (fileNames[1], Array(authority.intermediateCertificatePEM.utf8), 0o644),
                (fileNames[2], Array(leaf.certificatePEM.utf8), 0o644),
                (fileNames[3], Array(try leaf.privateKeyPEM().utf8), 0o600),
                (fileNames[4], try leaf.pkcs12(passphrase: passphrase), 0o600),
                (fileNames[5], Array(readme(leaf.summary, kind: kind).utf8), 0o644),
            ]
            try OutputTarget.makeFolder(out)
            for (name, bytes, mode) in files {
                try OutputTarget.path(folder.appendingPathComponent(name).path).write(bytes, mode: mode)
            }
            Terminal.write("wrote TEST-ONLY certificates for \(typeIdentifier) (team \(teamIdentifier)) to \(out)/:")
            for (name, _, _) in files { Terminal.write("  \(name)") }
        }
    }

    private func readme(_ summary: CertificateSummary, kind: ArchiveKind) -> String {
        let leaf = kind == .order ? "order-type" : "pass-type"
        let name = kind == .order ? "Order Type ID cert " : "Pass Type ID cert  "
        return """
            TEST ONLY. Made by `wallet-orders dev-certs`. Apple Wallet does not trust these certificates.

            root-ca.pem            test root CA         -> wallet-orders verify --trust-root root-ca.pem
            wwdr-intermediate.pem  WWDR-like CA         -> wallet-orders build --wwdr wwdr-intermediate.pem
            \(leaf).pem         \(name)  -> wallet-orders build --cert \(leaf).pem
            \(leaf).key.pem     its private key      -> wallet-orders build --key \(leaf).key.pem
            \(leaf).p12         cert + key + WWDR    -> wallet-orders build --p12 \(leaf).p12

            Signing certificate: \(summary.subject)
            Valid: \(ISO8601DateFormatter().string(from: summary.notBefore)) to \(ISO8601DateFormatter().string(from: summary.notAfter))

            For real \(kind.plural), export your \(kind.certificateName) certificate from Keychain Access (.p12) and
            download Apple's WWDR intermediate (AppleWWDRCAG4.cer) from https://www.apple.com/certificateauthority/.

            """
    }
}
