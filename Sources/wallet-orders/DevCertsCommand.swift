import ArgumentParser
import Foundation
import WalletOrders

/// `wallet-orders dev-certs --order-type-id ID --team-id TEAM --out DIR`
struct DevCertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-certs",
        abstract: "Make a local TEST-ONLY certificate chain to try the pipeline without an Apple account.",
        discussion: """
            Writes into DIR:
              root-ca.pem               the test root (pass it to verify --trust-root)
              wwdr-intermediate.pem     a WWDR-like intermediate (pass it to build --wwdr)
              order-type.pem            an Order Type ID certificate (UID, CN, OU as Apple issues them)
              order-type.key.pem        its private key (unencrypted PKCS #8)
              order-type.p12            certificate, key and intermediate as a .p12
              README.txt                what the files are

            Apple Wallet trusts none of these. The .p12 passphrase is taken from --p12-passphrase-env
            (default: empty). Each file is written as `build --out FILE` writes (see `build --help`);
            the keys are created readable by their owner only.

            Example:
              wallet-orders dev-certs --order-type-id order.com.example.shop --team-id ABCDE12345 --out certs
            """
    )

    @Option(name: .customLong("order-type-id"), help: ArgumentHelp("The order type identifier (certificate UID).", valueName: "id"))
    var orderTypeIdentifier: String

    @Option(name: .customLong("team-id"), help: ArgumentHelp("The Team ID (certificate OU).", valueName: "team"))
    var teamIdentifier: String

    @Option(help: ArgumentHelp("The folder to write into (created if missing).", valueName: "dir"))
    var out: String

    @Option(name: .customLong("p12-passphrase-env"), help: ArgumentHelp("Environment variable holding the .p12 passphrase.", valueName: "name"))
    var p12PassphraseEnvironmentVariable: String?

    @Flag(help: "Replace files that already exist in the folder.")
    var force = false

    static let fileNames = [
        "root-ca.pem", "wwdr-intermediate.pem", "order-type.pem", "order-type.key.pem", "order-type.p12", "README.txt",
    ]

    func validate() throws {
        if orderTypeIdentifier.isEmpty { throw ValidationError("--order-type-id must not be empty.") }
        if teamIdentifier.isEmpty { throw ValidationError("--team-id must not be empty.") }
    }

    func run() throws {
        try reportingFailures {
            let folder = URL(fileURLWithPath: out)
            let existing = Self.fileNames.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
            if !existing.isEmpty && !force {
                throw WalletOrdersError(
                    .fileAccess, "'\(out)' already holds \(existing.joined(separator: ", ")).",
                    hint: "Choose another --out folder, or pass --force to replace them.")
            }
            let passphrase = try p12PassphraseEnvironmentVariable.map { try PassphraseSource.environment($0).resolve() } ?? ""
            let authority = try DevelopmentCertificateAuthority()
            let leaf = try authority.issueOrderTypeCertificate(
                orderTypeIdentifier: orderTypeIdentifier, teamIdentifier: teamIdentifier)
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
