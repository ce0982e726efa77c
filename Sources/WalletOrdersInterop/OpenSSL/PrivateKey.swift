import CWalletOrdersOpenSSL

/// A private key (an owned `EVP_PKEY *`).
///
/// `@unchecked Sendable`: the key is never mutated after loading; OpenSSL 3 allows concurrent
/// signing operations with one `EVP_PKEY` (each operation makes its own `EVP_PKEY_CTX`).
package final class PrivateKey: @unchecked Sendable {
    let ref: OpaquePointer

    init(taking ref: OpaquePointer) {
        self.ref = ref
    }

    deinit { EVP_PKEY_free(ref) }

    /// The passphrase handed to OpenSSL's PEM password callback through its user-data pointer.
    private final class PassphraseBox {
        let bytes: [UInt8]?
        var wasAsked = false
        init(_ bytes: [UInt8]?) { self.bytes = bytes }
    }

    /// Whether PEM text holds an encrypted private key (PKCS #8 or legacy `Proc-Type: 4,ENCRYPTED`).
    package static func isEncryptedPEM(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// Loads a private key from PEM (PKCS #8, PKCS #1 or SEC 1; encrypted or not) or DER.
    ///
    /// The corresponding C functions are `PEM_read_bio_PrivateKey` (with a password callback
    /// that answers from `passphrase`) and `d2i_AutoPrivateKey`.
    /// - Throws: ``OpenSSLError``; `isWrongPassphrase` tells a bad passphrase apart.
    package convenience init(bytes: [UInt8], passphrase: [UInt8]?) throws(OpenSSLError) {
        OpenSSLError.clearQueue()
        guard PEMText.looksLikePEM(bytes) else {
            let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            }
            guard let parsed else {
                throw OpenSSLError.drain(function: "d2i_AutoPrivateKey", context: "The data is not a PEM or DER private key")
            }
            self.init(taking: parsed)
            return
        }
        let box = PassphraseBox(passphrase)
        let parsed: OpaquePointer? = MemoryBIO.withReadOnly(bytes) { bio in
            withExtendedLifetime(box) {
                PEM_read_bio_PrivateKey(
                    bio, nil,
                    { buffer, size, _, userData in
                        guard let buffer, let userData else { return -1 }
                        let box = Unmanaged<PassphraseBox>.fromOpaque(userData).takeUnretainedValue()
                        box.wasAsked = true
                        guard let bytes = box.bytes, bytes.count <= Int(size) else { return -1 }
                        bytes.withUnsafeBytes { source in
                            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: source.count)
                        }
                        return Int32(bytes.count)
                    },
                    Unmanaged.passUnretained(box).toOpaque()
                )
            }
        }
        guard let parsed else {
            var error = OpenSSLError.drain(function: "PEM_read_bio_PrivateKey", context: "Could not read the private key")
            if box.wasAsked && passphrase == nil {
                error.context = "The private key is encrypted and no passphrase was given"
            } else if box.wasAsked {
                error.context = "The passphrase does not decrypt the private key"
                error.entries.append(.init(code: 0, library: "wallet-orders", reason: "bad decrypt", function: ""))
            }
            throw error
        }
        self.init(taking: parsed)
    }

    /// Generates an RSA key pair.
    ///
    /// The corresponding C functions are `EVP_PKEY_CTX_new_from_name`, `EVP_PKEY_keygen_init`,
    /// `EVP_PKEY_CTX_set_rsa_keygen_bits` and `EVP_PKEY_generate`.
    package static func generateRSA(bits: Int = 2048) throws(OpenSSLError) -> PrivateKey {
        OpenSSLError.clearQueue()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw OpenSSLError.drain(function: "EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else {
            throw OpenSSLError.drain(function: "EVP_PKEY_keygen_init")
        }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw OpenSSLError.drain(function: "EVP_PKEY_generate", context: "Generating an RSA-\(bits) key")
        }
        return PrivateKey(taking: key)
    }

    /// The key as PKCS #8 PEM; encrypted with AES-256-CBC when `passphrase` is given.
    ///
    /// The corresponding C function is `PEM_write_bio_PKCS8PrivateKey`.
    package func pemBytes(passphrase: [UInt8]? = nil) throws(OpenSSLError) -> [UInt8] {
        OpenSSLError.clearQueue()
        var failed = false
        let bytes = MemoryBIO.collecting { bio in
            let ok: Int32
            if let passphrase {
                ok = passphrase.withUnsafeBufferPointer { pass in
                    pass.withMemoryRebound(to: CChar.self) { chars in
                        PEM_write_bio_PKCS8PrivateKey(
                            bio, ref, EVP_aes_256_cbc(), chars.baseAddress, Int32(chars.count), nil, nil)
                    }
                }
            } else {
                ok = PEM_write_bio_PKCS8PrivateKey(bio, ref, nil, nil, 0, nil, nil)
            }
            failed = ok != 1
        }
        if failed { throw OpenSSLError.drain(function: "PEM_write_bio_PKCS8PrivateKey") }
        return bytes
    }

    /// A short description such as `RSA 2048-bit`.
    package var keyDescription: String { Self.describe(ref) }

    static func describe(_ key: OpaquePointer) -> String {
        let kind: String
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA: kind = "RSA"
        case EVP_PKEY_EC: kind = "EC"
        case EVP_PKEY_ED25519: kind = "Ed25519"
        default: kind = "key type \(EVP_PKEY_get_base_id(key))"
        }
        return "\(kind) \(EVP_PKEY_get_bits(key))-bit"
    }
}
