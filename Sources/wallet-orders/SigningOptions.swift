package import ArgumentParser
package import Foundation
import WalletOrders

/// Where the signing identity comes from: `--cert`/`--key` or `--p12`, plus `--wwdr`.
package struct SigningOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("cert"), help: ArgumentHelp("Order Type ID certificate (PEM or DER).", valueName: "file"))
    package var certificate: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("Private key of the certificate (PEM, may be encrypted).", valueName: "file"))
    package var privateKey: String?

    @Option(
        name: .customLong("p12"),
        help: ArgumentHelp("Certificate and key as a .p12 exported from Keychain Access (instead of --cert/--key).", valueName: "file"))
    package var pkcs12: String?

    @Option(
        name: .customLong("wwdr"),
        help: ArgumentHelp(
            "Apple WWDR intermediate that issued the certificate (PEM or DER). Optional when --cert or --p12 already holds it.", valueName: "file"))
    package var intermediate: String?

    @Option(name: .customLong("passphrase-env"), help: ArgumentHelp("Environment variable holding the key or .p12 passphrase.", valueName: "name"))
    package var passphraseEnvironmentVariable: String?

    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("File whose first line is the key or .p12 passphrase.", valueName: "file"))
    package var passphraseFile: String?

    package func validate() throws {
        switch (certificate, privateKey, pkcs12) {
        case (.some, .some, nil), (nil, nil, .some): break
        case (.some, .some, .some), (.some, nil, .some), (nil, .some, .some):
            throw ValidationError("Give either --cert and --key, or --p12, not both.")
        case (.some, nil, nil): throw ValidationError("--cert needs --key (the certificate's private key).")
        case (nil, .some, nil): throw ValidationError("--key needs --cert (the Order Type ID certificate).")
        case (nil, nil, nil):
            throw ValidationError("Missing signing identity: give --cert and --key, or --p12 (try `wallet-orders dev-certs` for test ones).")
        }
        if passphraseEnvironmentVariable != nil && passphraseFile != nil {
            throw ValidationError("Give the passphrase with --passphrase-env or --passphrase-file, not both.")
        }
    }

    /// The passphrase source the flags name, if any.
    private var passphraseSource: PassphraseSource? {
        if let passphraseEnvironmentVariable { return .environment(passphraseEnvironmentVariable) }
        if let passphraseFile { return .file(URL(fileURLWithPath: passphraseFile)) }
        return nil
    }

    /// Loads the identity, prompting on the terminal for a passphrase when one is needed and none was given.
    func loadIdentity(validAt date: Date, for kind: ArchiveKind = .order) throws -> SigningIdentity {
        let wwdr = intermediate.map { URL(fileURLWithPath: $0) }
        if let pkcs12 {
            let url = URL(fileURLWithPath: pkcs12)
            let source = try passphraseSource ?? promptedPassphrase(for: ".p12 file '\(pkcs12)'")
            return try SigningIdentity.load(pkcs12File: url, passphrase: source, intermediateFile: wwdr, validAt: date, for: kind)
        }
        let certificateURL = URL(fileURLWithPath: certificate ?? "")
        let keyURL = URL(fileURLWithPath: privateKey ?? "")
        try Self.refuseSwapped(certificate: certificate ?? "", key: privateKey ?? "")
        var passphrase = passphraseSource
        // An encrypted key with no passphrase flag: ask on the terminal, once.
        if passphrase == nil, let keyBytes = try? BoundedFile.read(keyURL, as: .certificate),
            SigningIdentity.isEncryptedPrivateKey(keyBytes)
        {
            passphrase = try promptedPassphrase(for: "private key '\(privateKey ?? "")'")
        }
        return try SigningIdentity.load(
            certificateFile: certificateURL, privateKeyFile: keyURL, passphrase: passphrase,
            intermediateFile: wwdr, validAt: date, for: kind)
    }

    /// What a PEM file holds, by its first `-----BEGIN …-----` line: `"key"`, `"certificate"` or `nil`.
    static func pemKind(_ path: String) -> String? {
        guard let bytes = try? BoundedFile.read(path, as: .certificate) else { return nil }
        let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN ") else { return nil }
        let label = text[begin.upperBound...].prefix { $0 != "-" }
        if label.hasSuffix("PRIVATE KEY") { return "key" }
        if label == "CERTIFICATE" || label == "TRUSTED CERTIFICATE" { return "certificate" }
        return nil
    }

    /// Refuses a private key given to `--cert` (or a certificate to `--key`) with the obvious hint.
    static func refuseSwapped(certificate: String, key: String) throws {
        if pemKind(certificate) == "key" {
            throw WalletOrdersError(
                .invalidCertificate, "'\(certificate)' (given to --cert) is a private key, not a certificate.",
                hint: "Did you swap --cert and --key? --cert takes the certificate (order-type.pem), --key its key (order-type.key.pem).")
        }
        if pemKind(key) == "certificate" {
            throw WalletOrdersError(
                .invalidPrivateKey, "'\(key)' (given to --key) is a certificate, not a private key.",
                hint: "Did you swap --cert and --key? --cert takes the certificate (order-type.pem), --key its key (order-type.key.pem).")
        }
    }

    private func promptedPassphrase(for what: String) throws -> PassphraseSource {
        guard let secret = Terminal.readSecret(prompt: "Passphrase for \(what): ") else {
            throw WalletOrdersError(
                .passphraseRequired, "A passphrase is needed for the \(what) and there is no terminal to ask on.",
                hint: "Give it with --passphrase-env NAME or --passphrase-file FILE.")
        }
        return .literal(secret)
    }
}

/// Parsing `--signing-time` and `SOURCE_DATE_EPOCH`.
package enum SigningTime {
    /// `--signing-time` (RFC 3339 or Unix seconds), else `SOURCE_DATE_EPOCH`, else now.
    package static func resolve(_ option: String?) throws -> Date {
        if let option {
            guard let date = parse(option) else {
                throw ValidationError(
                    "--signing-time '\(option)' is neither an RFC 3339 date-time (2026-01-31T12:00:00Z) nor Unix seconds.")
            }
            return date
        }
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !epoch.isEmpty {
            guard let seconds = Int64(epoch) else {
                throw ValidationError("SOURCE_DATE_EPOCH '\(epoch)' is not a whole number of seconds.")
            }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return Date()
    }

    package static func parse(_ text: String) -> Date? {
        if let seconds = Int64(text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        return (try? Timestamp(rfc3339: text))?.date
    }
}
