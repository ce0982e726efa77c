import CWalletOrdersOpenSSL

/// A public key read from a DER `SubjectPublicKeyInfo`, as far as judging it needs: its algorithm
/// and, for an elliptic-curve key, its curve.
package struct PublicKeyInfo: Sendable, Hashable {
    /// OpenSSL's short name of the algorithm (`EC`, `RSA`, `ED25519`).
    package var algorithm: String
    /// OpenSSL's name of an EC key's curve (`prime256v1` is P-256, secp256r1); `nil` for others.
    package var curve: String?

    /// Reads `der`; `nil` when it is not exactly one `SubjectPublicKeyInfo` OpenSSL can read (an
    /// EC point off its curve is not).
    ///
    /// The corresponding C functions are `d2i_PUBKEY`, `EVP_PKEY_get_base_id`,
    /// `EVP_PKEY_get_group_name` and `EVP_PKEY_free`.
    package init?(der: [UInt8]) {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return key
        }
        guard let key = parsed else { return nil }
        defer { EVP_PKEY_free(key) }
        guard consumed == der.count else { return nil }
        let id = EVP_PKEY_get_base_id(key)
        algorithm = OBJ_nid2sn(id).map { String(cString: $0) } ?? "algorithm \(id)"
        curve = nil
        if id == EVP_PKEY_EC {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            if EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 {
                curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
}
