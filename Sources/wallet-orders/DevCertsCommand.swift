package import ArgumentParser
import Foundation
import WalletOrders

/// `wallet-orders dev-certs --order-type-id ID --team-id TEAM --out DIR`
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

            Apple Wallet trusts none of these. The .p12 passphrase is taken from --p12-passphrase-env \
            (default: empty). Each file is written as `build --out FILE` writes (see `build --help`); \
            the keys are created readable by their owner only.

            --order-type-id takes the identifier, or a source folder whose order.json names it. The \
            certificates are valid from 2020-01-01 (so a past --signing-time or SOURCE_DATE_EPOCH \
            works) until five years (the order type certificate: one year) from now.

            Examples:
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

    @Option(name: .customLong("team-id"), help: ArgumentHelp("The Team ID (certificate OU).", valueName: "team"))
    package var teamIdentifier: String

    @Option(help: ArgumentHelp("The folder to write into (created if missing).", valueName: "dir"))
    package var out: String

    @Option(name: .customLong("p12-passphrase-env"), help: ArgumentHelp("Environment variable holding the .p12 passphrase.", valueName: "name"))
    package var p12PassphraseEnvironmentVariable: String?

    @Flag(help: "Replace files that already exist in the folder.")
    package var force = false

    package static let fileNames = [
        "root-ca.pem", "wwdr-intermediate.pem", "order-type.pem", "order-type.key.pem", "order-type.p12", "README.txt",
    ]

    package func validate() throws {
        if orderTypeIdentifiers.isEmpty {
            throw ValidationError("Missing --order-type-id (an identifier such as order.com.example.shop, or a source folder).")
        }
        if orderTypeIdentifiers.count > 1 {
            throw ValidationError(
                "--order-type-id was given \(orderTypeIdentifiers.count) times (\(orderTypeIdentifiers.joined(separator: ", "))); "
                    + "one certificate has one order type identifier. Run dev-certs once per order type, each with its own --out.")
        }
        if orderTypeIdentifiers[0].isEmpty { throw ValidationError("--order-type-id must not be empty.") }
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

    package func run() throws {
        try reportingFailures {
            let orderTypeIdentifier = try Self.resolveOrderTypeIdentifier(orderTypeIdentifiers[0])
            let folder = URL(fileURLWithPath: out)
            let existing = Self.fileNames.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
            if !existing.isEmpty && !force {
                throw WalletOrdersError(
                    .fileAccess, "'\(out)' already holds \(existing.joined(separator: ", ")).",
                    hint: "Choose another --out folder, or pass --force to replace them.")
            }
            let passphrase = try p12PassphraseEnvironmentVariable.map { try PassphraseSource.environment($0).resolve() } ?? ""
            let sinceValidFrom = Date().timeIntervalSince(Self.validFrom)
            let authority = try DevelopmentCertificateAuthority(
                validFrom: Self.validFrom, validFor: sinceValidFrom + 5 * 365 * 86_400)
            let leaf = try authority.issueOrderTypeCertificate(
                orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: teamIdentifier, validFrom: Self.validFrom,
                validFor: sinceValidFrom + 365 * 86_400)
            let files: [(String, [UInt8], Int)] = [
                ("root-ca.pem", Array(authority.rootCertificatePEM.utf8), 0o644),
                ("wwdr-intermediate.pem", Array(authority.intermediateCertificatePEM.utf8), 0o644),
                ("order-type.pem", Array(leaf.certificatePEM.utf8), 0o644),
                ("order-type.key.pem", Array(try leaf.privateKeyPEM().utf8), 0o600),
                ("order-type.p12", try leaf.pkcs12(passphrase: passphrase), 0o600),
                ("README.txt", Array(readme(leaf.summary).utf8), 0o644),
            ]
            try OutputTarget.makeFolder(out)
            for (name, bytes, mode) in files {
                try OutputTarget.path(folder.appendingPathComponent(name).path).write(bytes, mode: mode)
            }
            Terminal.write("wrote TEST-ONLY certificates for \(orderTypeIdentifier) (team \(teamIdentifier)) to \(out)/:")
            for (name, _, _) in files { Terminal.write("  \(name)") }
        }
    }

    private func readme(_ summary: CertificateSummary) -> String {
        """
        TEST ONLY. Made by `wallet-orders dev-certs`. Apple Wallet does not trust these certificates.

        root-ca.pem            test root CA         -> wallet-orders verify --trust-root root-ca.pem
        wwdr-intermediate.pem  WWDR-like CA         -> wallet-orders build --wwdr wwdr-intermediate.pem
        order-type.pem         Order Type ID cert   -> wallet-orders build --cert order-type.pem
        order-type.key.pem     its private key      -> wallet-orders build --key order-type.key.pem
        order-type.p12         cert + key + WWDR    -> wallet-orders build --p12 order-type.p12

        Signing certificate: \(summary.subject)
        Valid: \(ISO8601DateFormatter().string(from: summary.notBefore)) to \(ISO8601DateFormatter().string(from: summary.notAfter))

        For real orders, export your Order Type ID certificate from Keychain Access (.p12) and
        download Apple's WWDR intermediate (AppleWWDRCAG4.cer) from https://www.apple.com/certificateauthority/.

        """
    }
}
