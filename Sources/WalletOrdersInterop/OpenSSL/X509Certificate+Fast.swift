import CWalletOrdersOpenSSL

extension X509Certificate {
    /// Parses the one DER certificate that fills `range` of `bytes` exactly; `nil` when OpenSSL
    /// refuses it or it doesn't end where `range` does.
    ///
    /// The corresponding C function is `d2i_X509`.
    package static func parse(exactly bytes: [UInt8], range: Range<Int>) -> X509Certificate? {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        return bytes.withUnsafeBufferPointer { buffer -> X509Certificate? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base + range.lowerBound
            guard let parsed = d2i_X509(nil, &cursor, range.count) else { return nil }
            let certificate = X509Certificate(taking: parsed)
            return cursor == base + range.upperBound ? certificate : nil
        }
    }

    /// Whether `signature` is this certificate's RSA key's PKCS #1 v1.5 signature of the SHA-256
    /// of `data`; `nil` when the key is not a plain RSA key.
    ///
    /// What `CMS_SignerInfo_verify` computes for an RSA signer with SHA-256, over the signed
    /// attributes' DER. The corresponding C functions are `X509_get0_pubkey`,
    /// `EVP_DigestVerifyInit_ex` and `EVP_DigestVerify`.
    package func verifiesRSASHA256(signature: ArraySlice<UInt8>, over data: [UInt8]) -> Bool? {
        guard let key = X509_get0_pubkey(ref), EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else { return nil }
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1 else { return nil }
        return signature.withUnsafeBufferPointer { signatureBuffer in
            data.withUnsafeBufferPointer { dataBuffer in
                EVP_DigestVerify(context, signatureBuffer.baseAddress, signatureBuffer.count, dataBuffer.baseAddress, dataBuffer.count) == 1
            }
        }
    }
}
