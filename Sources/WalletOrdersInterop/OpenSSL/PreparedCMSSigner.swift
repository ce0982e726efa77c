import CWalletOrdersOpenSSL
package import Foundation
import Synchronization

/// Detached CMS signatures for one RSA signer, with everything that doesn't change between
/// signatures (certificates, signer identifier, algorithm identifiers) encoded once.
///
/// Produces exactly the DER that ``CMSSigner/signDetached(_:certificate:privateKey:additionalCertificates:signingTime:)``
/// (OpenSSL's `CMS_sign` … `i2d_CMS_ContentInfo`) produces for an RSA key, byte for byte (a test
/// compares them): `SignedData` version 1, digest algorithm SHA-256 without parameters,
/// encapsulated id-data without content, the additional certificates then the signer's,
/// one `SignerInfo` (version 1, issuer and serial number, SHA-256, signed attributes
/// `contentType`, `signingTime`, `messageDigest` in DER order, `rsaEncryption` with NULL
/// parameters). RSA PKCS #1 v1.5 is deterministic, so the signature value is the same too.
/// What it saves is OpenSSL's generic ASN.1 machinery around the one RSA operation.
///
/// `@unchecked Sendable`: immutable after `init` but for a pool of signing contexts, each used by
/// one signature at a time.
package final class PreparedCMSSigner: @unchecked Sendable {
    let privateKey: PrivateKey
    /// `EVP_PKEY_CTX`s set up for RSA PKCS #1 v1.5 with SHA-256, idle between signatures: making
    /// one (a provider fetch and its parameters) is a few percent of a signature, and a context
    /// signs any number of digests.
    private let contexts = Mutex<[SigningContext]>([])
    /// The most idle contexts kept.
    private static let idleContexts = 16

    /// An `EVP_PKEY_CTX` owned by the pool (`@unchecked Sendable`: one signature uses it at a time).
    private struct SigningContext: @unchecked Sendable {
        let ref: OpaquePointer
    }
    /// `[0] IMPLICIT` certificates field, encoded.
    let certificatesField: [UInt8]
    /// `issuerAndSerialNumber`, encoded.
    let signerIdentifier: [UInt8]

    static let sha256Algorithm: [UInt8] = [0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    static let rsaAlgorithm: [UInt8] = [
        0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]
    static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let contentTypeOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
    static let messageDigestOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    static let signingTimeOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x05]

    /// Prepares a signer; `nil` when the key is not an RSA key (other keys go through
    /// ``CMSSigner``), the certificate's DER can't be read, or a certificate is given twice.
    package init?(certificate: X509Certificate, privateKey: PrivateKey, additionalCertificates: [X509Certificate]) {
        guard EVP_PKEY_get_base_id(privateKey.ref) == EVP_PKEY_RSA else { return nil }
        let signerDER = certificate.derBytes
        var top = DERReader(signerDER)
        guard let outer = top.next(tag: 0x30) else { return nil }
        var fields = top.children(of: outer)
        guard let tbs = fields.next(tag: 0x30) else { return nil }
        var tbsFields = fields.children(of: tbs)
        if tbsFields.peekTag == 0xA0 { _ = tbsFields.next() }
        guard let serial = tbsFields.next(tag: 0x02), tbsFields.next(tag: 0x30) != nil, let issuer = tbsFields.next(tag: 0x30) else {
            return nil
        }
        // CMS_add1_cert and CMS_add1_signer refuse a certificate that is already there: leave
        // that case to CMSSigner, which reports it.
        let certificates = additionalCertificates.map(\.derBytes) + [signerDER]
        guard Set(certificates).count == certificates.count else { return nil }
        self.privateKey = privateKey
        self.certificatesField = DERWriter.tlv(0xA0, certificates.flatMap { $0 })
        self.signerIdentifier = DERWriter.tlv(0x30, Array(signerDER[issuer.whole] + signerDER[serial.whole]))
    }

    deinit {
        for context in contexts.withLock({ $0 }) { EVP_PKEY_CTX_free(context.ref) }
    }

    /// ``PrivateKey/signRSASHA256(digest:)`` with a context from the pool (kept for the next
    /// signature when it succeeds).
    func signRSASHA256(digest: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let idle = contexts.withLock { $0.popLast() }
        let context: OpaquePointer
        if let idle { context = idle.ref } else { context = try privateKey.rsaSHA256SigningContext() }
        do {
            let signature = try PrivateKey.sign(digest: digest, with: context)
            let kept = contexts.withLock { pool in
                guard pool.count < Self.idleContexts else { return false }
                pool.append(SigningContext(ref: context))
                return true
            }
            if !kept { EVP_PKEY_CTX_free(context) }
            return signature
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
    }

    /// Signs `content` and returns the detached CMS `SignedData` in DER; `nil` when
    /// `signingTime` is outside years 0–9999 (``CMSSigner`` handles that).
    package func sign(_ content: [UInt8], signingTime: Date) throws(OpenSSLError) -> [UInt8]? {
        guard let time = Self.encodeTime(signingTime) else { return nil }
        let digest = SHA256.hash(content)
        var attributes: [UInt8] = []
        attributes.reserveCapacity(110)
        attributes += DERWriter.tlv(0x30, Self.contentTypeOID + DERWriter.tlv(0x31, Self.dataOID))
        attributes += DERWriter.tlv(0x30, Self.signingTimeOID + DERWriter.tlv(0x31, time))
        attributes += DERWriter.tlv(0x30, Self.messageDigestOID + DERWriter.tlv(0x31, DERWriter.tlv(0x04, digest)))
        let signature = try signRSASHA256(digest: SHA256.hash(DERWriter.tlv(0x31, attributes)))

        var signerInfo: [UInt8] = [0x02, 0x01, 0x01]
        signerInfo.reserveCapacity(signerIdentifier.count + attributes.count + signature.count + 64)
        signerInfo += signerIdentifier
        signerInfo += Self.sha256Algorithm
        signerInfo += DERWriter.tlv(0xA0, attributes)
        signerInfo += Self.rsaAlgorithm
        signerInfo += DERWriter.tlv(0x04, signature)

        var signedData: [UInt8] = [0x02, 0x01, 0x01]
        signedData.reserveCapacity(certificatesField.count + signerInfo.count + 64)
        signedData += DERWriter.tlv(0x31, Self.sha256Algorithm)
        signedData += DERWriter.tlv(0x30, Self.dataOID)
        signedData += certificatesField
        signedData += DERWriter.tlv(0x31, DERWriter.tlv(0x30, signerInfo))
        return DERWriter.tlv(0x30, Self.signedDataOID + DERWriter.tlv(0xA0, DERWriter.tlv(0x30, signedData)))
    }

    /// `signingTime` as `ASN1_TIME_set` encodes it: UTCTime `YYMMDDHHMMSSZ` for 1950–2049,
    /// GeneralizedTime `YYYYMMDDHHMMSSZ` otherwise; seconds rounded down.
    static func encodeTime(_ date: Date) -> [UInt8]? {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return nil }
        var text: [UInt8] = []
        func two(_ value: Int) {
            text.append(UInt8(0x30 + value / 10))
            text.append(UInt8(0x30 + value % 10))
        }
        let utc = (1950...2049).contains(year)
        if utc {
            two(year % 100)
        } else {
            two(year / 100)
            two(year % 100)
        }
        two(Int(parts.tm_mon) + 1)
        two(Int(parts.tm_mday))
        two(Int(parts.tm_hour))
        two(Int(parts.tm_min))
        two(Int(parts.tm_sec))
        text.append(UInt8(ascii: "Z"))
        return DERWriter.tlv(utc ? 0x17 : 0x18, text)
    }
}

/// DER encoding of one element.
package enum DERWriter {
    /// `tag`, the shortest definite length, `content`.
    package static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(content.count + 6)
        out.append(tag)
        let length = content.count
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            var bytes: [UInt8] = []
            var remaining = length
            while remaining > 0 {
                bytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        out += content
        return out
    }
}

extension PrivateKey {
    /// The RSA PKCS #1 v1.5 signature of a SHA-256 `digest` (what `CMS_final` computes over the
    /// signed attributes).
    ///
    /// The corresponding C functions are `EVP_PKEY_sign_init`, `EVP_PKEY_CTX_set_rsa_padding`,
    /// `EVP_PKEY_CTX_set_signature_md` and `EVP_PKEY_sign`.
    func signRSASHA256(digest: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let context = try rsaSHA256SigningContext()
        defer { EVP_PKEY_CTX_free(context) }
        return try Self.sign(digest: digest, with: context)
    }

    /// A new `EVP_PKEY_CTX` of this key, set up for RSA PKCS #1 v1.5 signatures of SHA-256
    /// digests; the caller frees it (`EVP_PKEY_CTX_free`).
    func rsaSHA256SigningContext() throws(OpenSSLError) -> OpaquePointer {
        OpenSSLError.clearQueue()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, ref, nil) else {
            throw OpenSSLError.drain(function: "EVP_PKEY_CTX_new_from_pkey")
        }
        guard EVP_PKEY_sign_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
        else {
            EVP_PKEY_CTX_free(context)
            throw OpenSSLError.drain(function: "EVP_PKEY_sign_init", context: "Preparing the RSA signature")
        }
        return context
    }

    /// The signature of `digest` with a context from ``rsaSHA256SigningContext()``.
    static func sign(digest: [UInt8], with context: OpaquePointer) throws(OpenSSLError) -> [UInt8] {
        OpenSSLError.clearQueue()
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1 else {
            throw OpenSSLError.drain(function: "EVP_PKEY_sign", context: "Sizing the RSA signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
            throw OpenSSLError.drain(function: "EVP_PKEY_sign", context: "Computing the RSA signature")
        }
        return Array(signature.prefix(length))
    }
}
