import CWalletOrdersOpenSSL

/// PKCS #12 (`.p12`) files, as Keychain Access exports them.
package enum PKCS12 {
    /// What a `.p12` holds: a key, its certificate and any other certificates.
    package struct Contents: Sendable {
        package var privateKey: PrivateKey
        package var certificate: X509Certificate
        package var otherCertificates: [X509Certificate]
    }

    /// Loads OpenSSL's `legacy` provider (RC2, 3DES-era PBEs) next to `default`, once per process.
    ///
    /// Keychain Access has long exported `.p12` files with RC2-40 and 3DES, which OpenSSL 3 only
    /// decrypts with the legacy provider. Loading any provider explicitly turns off the implicit
    /// default one, so `default` is loaded too. Returns whether `legacy` is available.
    ///
    /// The corresponding C function is `OSSL_PROVIDER_load`.
    @discardableResult
    package static func loadLegacyProvider() -> Bool {
        loadedProviders.legacy != nil
    }

    /// The handles `OSSL_PROVIDER_load` returned, kept for the life of the process (never
    /// unloaded): dropping them would leave the providers, which reference their own library
    /// context, unreachable once OpenSSL's exit cleanup releases its references (LeakSanitizer
    /// reports them).
    private struct LoadedProviders: @unchecked Sendable {  // Written once by the lazy static initializer.
        let standard: OpaquePointer?
        let legacy: OpaquePointer?
    }
    private static let loadedProviders: LoadedProviders = {
        let standard = OSSL_PROVIDER_load(nil, "default")
        let legacy = OSSL_PROVIDER_load(nil, "legacy")
        ERR_clear_error()
        return LoadedProviders(standard: standard, legacy: legacy)
    }()

    /// Parses a `.p12` file.
    ///
    /// The corresponding C functions are `d2i_PKCS12`, `PKCS12_verify_mac` and `PKCS12_parse`.
    /// - Throws: ``OpenSSLError``, whose `isWrongPassphrase` is set when the MAC check fails.
    package static func parse(_ bytes: [UInt8], passphrase: String) throws(OpenSSLError) -> Contents {
        loadLegacyProvider()
        OpenSSLError.clearQueue()
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 = parsed else {
            throw OpenSSLError.drain(function: "d2i_PKCS12", context: "The file is not a PKCS #12 (.p12) archive")
        }
        defer { PKCS12_free(p12) }
        // A .p12 may carry no MAC at all (`openssl pkcs12 -export -nomac`). OpenSSL 3.0's PKCS12_parse
        // still demands one when given a password, so add one in memory with the caller's passphrase;
        // a wrong passphrase then shows as a decryption failure below.
        let hasMAC = PKCS12_mac_present(p12) == 1
        if !hasMAC {
            guard PKCS12_set_mac(p12, passphrase, Int32(passphrase.utf8.count), nil, 0, 1, nil) == 1 else {
                throw OpenSSLError.drain(function: "PKCS12_set_mac", context: "Reading a .p12 file without a MAC")
            }
        }
        guard PKCS12_verify_mac(p12, passphrase, Int32(passphrase.utf8.count)) == 1 else {
            var error = OpenSSLError.drain(function: "PKCS12_verify_mac", context: "The passphrase does not open the .p12 file")
            error.entries.append(.init(code: 0, library: "wallet-orders", reason: "mac verify failure", function: ""))
            throw error
        }
        var key: OpaquePointer? = nil
        var certificate: OpaquePointer? = nil
        var others: OpaquePointer? = nil
        guard PKCS12_parse(p12, passphrase, &key, &certificate, &others) == 1 else {
            var error = OpenSSLError.drain(function: "PKCS12_parse", context: "Could not decrypt the .p12 contents")
            if !hasMAC && !error.isUnsupportedAlgorithm {
                // Without a MAC, a decryption failure is how a wrong passphrase shows.
                error.entries.append(.init(code: 0, library: "wallet-orders", reason: "bad decrypt", function: ""))
            }
            throw error
        }
        var otherCertificates: [X509Certificate] = []
        if let others {
            for index in 0..<CWalletOrdersOpenSSL_sk_X509_num(others) {
                if let cert = CWalletOrdersOpenSSL_sk_X509_value(others, index) {
                    otherCertificates.append(X509Certificate(retaining: cert))
                }
            }
            CWalletOrdersOpenSSL_sk_X509_pop_free(others)
        }
        guard let key, let certificate else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            throw OpenSSLError(
                function: "PKCS12_parse",
                context: "The .p12 file must hold both a private key and its certificate"
            )
        }
        return Contents(
            privateKey: PrivateKey(taking: key),
            certificate: X509Certificate(taking: certificate),
            otherCertificates: otherCertificates
        )
    }

    /// The encryption a new `.p12` uses.
    package enum Encryption: Sendable {
        /// AES-256-CBC with PBKDF2 and a SHA-256 MAC: OpenSSL 3's default.
        case modern
        /// RC2-40 for certificates and 3DES for the key, SHA-1 MAC: what older Keychain exports use.
        case legacy
    }

    /// Writes a `.p12` file.
    ///
    /// The corresponding C functions are `PKCS12_create` and `i2d_PKCS12`.
    package static func make(
        privateKey: PrivateKey,
        certificate: X509Certificate,
        otherCertificates: [X509Certificate],
        passphrase: String,
        friendlyName: String,
        encryption: Encryption = .modern
    ) throws(OpenSSLError) -> [UInt8] {
        if encryption == .legacy { loadLegacyProvider() }
        OpenSSLError.clearQueue()
        guard let stack = CWalletOrdersOpenSSL_sk_X509_new_null() else { throw OpenSSLError.drain(function: "sk_X509_new_null") }
        defer { CWalletOrdersOpenSSL_sk_X509_free(stack) }
        for other in otherCertificates { _ = CWalletOrdersOpenSSL_sk_X509_push(stack, other.ref) }
        let keyPBE = encryption == .legacy ? NID_pbe_WithSHA1And3_Key_TripleDES_CBC : 0
        let certificatePBE = encryption == .legacy ? NID_pbe_WithSHA1And40BitRC2_CBC : 0
        // For `.legacy`, no MAC at creation (mac_iter -1), then a SHA-1 MAC as Keychain writes it.
        guard
            let p12 = PKCS12_create(
                passphrase, friendlyName, privateKey.ref, certificate.ref, stack,
                keyPBE, certificatePBE, 0, encryption == .legacy ? -1 : 0, 0)
        else {
            throw OpenSSLError.drain(function: "PKCS12_create", context: "Writing a .p12 file")
        }
        defer { PKCS12_free(p12) }
        if encryption == .legacy,
            PKCS12_set_mac(p12, passphrase, Int32(passphrase.utf8.count), nil, 0, PKCS12_DEFAULT_ITER, EVP_sha1()) != 1
        {
            throw OpenSSLError.drain(function: "PKCS12_set_mac", context: "Adding the SHA-1 MAC")
        }
        let length = i2d_PKCS12(p12, nil)
        guard length > 0 else { throw OpenSSLError.drain(function: "i2d_PKCS12") }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_PKCS12(p12, &cursor)
        }
        return out
    }
}
