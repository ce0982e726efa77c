import CWalletOrdersOpenSSL
package import Foundation

/// Producing detached CMS (PKCS #7) signatures.
package enum CMSSigner {
    /// Signs `content` and returns a detached CMS `SignedData` in DER.
    ///
    /// The structure is the one Wallet expects (spec §2.2): SHA-256, signed attributes
    /// `contentType`, `signingTime` (set to `signingTime`, so output is reproducible) and
    /// `messageDigest`; no S/MIME capabilities; certificates = signer + `additionalCertificates`.
    /// RSA PKCS #1 v1.5 is deterministic, so equal inputs give equal bytes.
    ///
    /// The corresponding C functions are `CMS_sign` (with `CMS_PARTIAL`), `CMS_add1_cert`,
    /// `CMS_add1_signer`, `CMS_signed_add1_attr_by_NID`, `CMS_final` and `i2d_CMS_ContentInfo`.
    package static func signDetached(
        _ content: [UInt8],
        certificate: X509Certificate,
        privateKey: PrivateKey,
        additionalCertificates: [X509Certificate],
        signingTime: Date
    ) throws(OpenSSLError) -> [UInt8] {
        OpenSSLError.clearQueue()
        let flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_PARTIAL | CMS_NOSMIMECAP)
        guard let cms = CMS_sign(nil, nil, nil, nil, flags) else {
            throw OpenSSLError.drain(function: "CMS_sign", context: "Creating the CMS structure")
        }
        defer { CMS_ContentInfo_free(cms) }
        for extra in additionalCertificates {
            guard CMS_add1_cert(cms, extra.ref) == 1 else {
                throw OpenSSLError.drain(function: "CMS_add1_cert", context: "Adding certificate \(extra.subject)")
            }
        }
        guard
            let signerInfo = CMS_add1_signer(
                cms, certificate.ref, privateKey.ref, EVP_sha256(), UInt32(CMS_BINARY | CMS_NOSMIMECAP))
        else {
            throw OpenSSLError.drain(function: "CMS_add1_signer", context: "Adding the signer")
        }
        guard let time = ASN1.makeTime(signingTime) else {
            throw OpenSSLError.drain(function: "ASN1_TIME_set", context: "Encoding the signing time")
        }
        defer { ASN1_TIME_free(time) }
        // With the attribute present, CMS_final doesn't add its own (current-time) signingTime.
        guard
            CMS_signed_add1_attr_by_NID(signerInfo, NID_pkcs9_signingTime, ASN1_STRING_type(time), time, -1) == 1
        else {
            throw OpenSSLError.drain(function: "CMS_signed_add1_attr_by_NID", context: "Adding the signingTime attribute")
        }
        let finalized = MemoryBIO.withReadOnly(content) { bio in CMS_final(cms, bio, nil, flags) }
        guard finalized == 1 else {
            throw OpenSSLError.drain(function: "CMS_final", context: "Computing the signature")
        }
        let length = i2d_CMS_ContentInfo(cms, nil)
        guard length > 0 else { throw OpenSSLError.drain(function: "i2d_CMS_ContentInfo") }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_CMS_ContentInfo(cms, &cursor)
        }
        return out
    }
}

/// A parsed CMS `ContentInfo` (an owned `CMS_ContentInfo *`), read and checked piece by piece
/// so that each problem can be reported on its own.
///
/// Not `Sendable`: verification caches the signer certificate inside the structure.
package final class CMSSignedData {
    let ref: OpaquePointer

    deinit { CMS_ContentInfo_free(ref) }

    /// Parses DER.
    ///
    /// The corresponding C function is `d2i_CMS_ContentInfo`.
    package init(derBytes: [UInt8]) throws(OpenSSLError) {
        OpenSSLError.clearQueue()
        let parsed: OpaquePointer? = derBytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLError.drain(function: "d2i_CMS_ContentInfo", context: "The data is not a DER-encoded CMS structure")
        }
        ref = parsed
    }

    /// The outer content type as a short name (`pkcs7-signedData` for SignedData).
    ///
    /// The corresponding C function is `CMS_get0_type`.
    package var contentType: String { ASN1.shortName(CMS_get0_type(ref)) }

    /// Whether the outer content type is id-signedData (1.2.840.113549.1.7.2).
    package var isSignedData: Bool { OBJ_obj2nid(CMS_get0_type(ref)) == NID_pkcs7_signed }

    /// The encapsulated content type as a short name (`pkcs7-data` for id-data).
    ///
    /// The corresponding C function is `CMS_get0_eContentType`.
    package var encapsulatedContentType: String { ASN1.shortName(CMS_get0_eContentType(ref)) }

    /// Whether the encapsulated content type is id-data (1.2.840.113549.1.7.1).
    package var encapsulatesData: Bool { OBJ_obj2nid(CMS_get0_eContentType(ref)) == NID_pkcs7_data }

    /// Whether the content is absent (a detached signature).
    ///
    /// The corresponding C function is `CMS_is_detached`.
    package var isDetached: Bool { CMS_is_detached(ref) == 1 }

    /// The certificates the structure carries, in order.
    ///
    /// The corresponding C function is `CMS_get1_certs`.
    package var certificates: [X509Certificate] {
        guard isSignedData, let stack = CMS_get1_certs(ref) else { return [] }
        defer { CWalletOrdersOpenSSL_sk_X509_pop_free(stack) }
        return (0..<CWalletOrdersOpenSSL_sk_X509_num(stack)).compactMap { index in
            CWalletOrdersOpenSSL_sk_X509_value(stack, index).map { X509Certificate(retaining: $0) }
        }
    }

    /// The signer infos, in order.
    ///
    /// The corresponding C function is `CMS_get0_SignerInfos`.
    package var signerInfos: [CMSSignerInfo] {
        guard isSignedData, let stack = CMS_get0_SignerInfos(ref) else { return [] }
        return (0..<CWalletOrdersOpenSSL_sk_CMS_SignerInfo_num(stack)).compactMap { index in
            CWalletOrdersOpenSSL_sk_CMS_SignerInfo_value(stack, index).map { CMSSignerInfo(owner: self, ref: $0) }
        }
    }
}

/// One `SignerInfo` of a ``CMSSignedData``. Keeps its owner alive.
package struct CMSSignerInfo {
    let owner: CMSSignedData
    let ref: OpaquePointer

    /// The signer's issuer name and serial number (`issuerAndSerialNumber`), if it uses that form.
    ///
    /// The corresponding C function is `CMS_SignerInfo_get0_signer_id`.
    package var issuerAndSerial: (issuer: DistinguishedName, serialHex: String)? {
        var keyIdentifier: UnsafeMutablePointer<ASN1_OCTET_STRING>? = nil
        var issuer: OpaquePointer? = nil
        var serial: UnsafeMutablePointer<ASN1_INTEGER>? = nil
        guard CMS_SignerInfo_get0_signer_id(ref, &keyIdentifier, &issuer, &serial) == 1, issuer != nil else { return nil }
        let serialHex = ASN1.bytes(of: serial).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
        return (DistinguishedName(borrowing: issuer), serialHex)
    }

    /// The digest algorithm's short name as OpenSSL gives it (`SHA256`).
    ///
    /// The corresponding C functions are `CMS_SignerInfo_get0_algs` and `X509_ALGOR_get0`.
    package var digestAlgorithm: String {
        var digest: UnsafeMutablePointer<X509_ALGOR>? = nil
        var signature: UnsafeMutablePointer<X509_ALGOR>? = nil
        CMS_SignerInfo_get0_algs(ref, nil, nil, &digest, &signature)
        return Self.algorithmName(digest)
    }

    /// The signature algorithm's short name (`rsaEncryption` or `RSA-SHA256`).
    package var signatureAlgorithm: String {
        var digest: UnsafeMutablePointer<X509_ALGOR>? = nil
        var signature: UnsafeMutablePointer<X509_ALGOR>? = nil
        CMS_SignerInfo_get0_algs(ref, nil, nil, &digest, &signature)
        return Self.algorithmName(signature)
    }

    private static func algorithmName(_ algorithm: UnsafeMutablePointer<X509_ALGOR>?) -> String {
        guard let algorithm else { return "" }
        var object: OpaquePointer? = nil
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        return ASN1.shortName(object)
    }

    /// The dotted OIDs of the signed attributes, in stored order.
    ///
    /// The corresponding C functions are `CMS_signed_get_attr_count`, `CMS_signed_get_attr`
    /// and `X509_ATTRIBUTE_get0_object`.
    package var signedAttributeOIDs: [String] {
        let count = CMS_signed_get_attr_count(ref)
        guard count > 0 else { return [] }
        return (0..<count).map { index in ASN1.dottedOID(X509_ATTRIBUTE_get0_object(CMS_signed_get_attr(ref, index))) }
    }

    private func attribute(_ nid: Int32) -> OpaquePointer? {
        let index = CMS_signed_get_attr_by_NID(ref, nid, -1)
        return index >= 0 ? CMS_signed_get_attr(ref, index) : nil
    }

    /// The `signingTime` signed attribute, when present and well formed.
    package var signingTime: Date? {
        guard let attribute = attribute(NID_pkcs9_signingTime) else { return nil }
        for type in [V_ASN1_UTCTIME, V_ASN1_GENERALIZEDTIME] {
            if let value = X509_ATTRIBUTE_get0_data(attribute, 0, type, nil) {
                return ASN1.date(from: value.assumingMemoryBound(to: ASN1_TIME.self))
            }
        }
        return nil
    }

    /// The `messageDigest` signed attribute's bytes, when present.
    package var messageDigest: [UInt8]? {
        guard let attribute = attribute(NID_pkcs9_messageDigest),
            let value = X509_ATTRIBUTE_get0_data(attribute, 0, V_ASN1_OCTET_STRING, nil)
        else { return nil }
        return ASN1.bytes(of: value.assumingMemoryBound(to: ASN1_STRING.self))
    }

    /// Whether the `contentType` signed attribute says id-data.
    package var contentTypeAttributeIsData: Bool {
        guard let attribute = attribute(NID_pkcs9_contentType),
            let value = X509_ATTRIBUTE_get0_data(attribute, 0, V_ASN1_OBJECT, nil)
        else { return false }
        return OBJ_obj2nid(OpaquePointer(value)) == NID_pkcs7_data
    }

    /// The digest of `content` under this signer's digest algorithm, or `nil` when OpenSSL
    /// doesn't know the algorithm.
    ///
    /// The corresponding C functions are `EVP_get_digestbyobj` and `EVP_Digest`.
    package func digest(of content: [UInt8]) -> [UInt8]? {
        var digest: UnsafeMutablePointer<X509_ALGOR>? = nil
        var signature: UnsafeMutablePointer<X509_ALGOR>? = nil
        CMS_SignerInfo_get0_algs(ref, nil, nil, &digest, &signature)
        guard let digest else { return nil }
        var object: OpaquePointer? = nil
        X509_ALGOR_get0(&object, nil, nil, digest)
        guard let md = EVP_get_digestbyname(OBJ_nid2sn(OBJ_obj2nid(object))) else { return nil }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = content.withUnsafeBytes { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &out, &length, md, nil)
        }
        return ok == 1 ? Array(out.prefix(Int(length))) : nil
    }

    /// Whether `certificate` is the one this signer info names.
    ///
    /// The corresponding C function is `CMS_SignerInfo_cert_cmp`.
    package func identifies(_ certificate: X509Certificate) -> Bool {
        CMS_SignerInfo_cert_cmp(ref, certificate.ref) == 0
    }

    /// Whether the signature over the DER-encoded signed attributes verifies with `signer`'s key.
    ///
    /// The corresponding C functions are `CMS_SignerInfo_set1_signer_cert` and `CMS_SignerInfo_verify`.
    package func verifySignature(with signer: X509Certificate) -> Bool {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        CMS_SignerInfo_set1_signer_cert(ref, signer.ref)
        return CMS_SignerInfo_verify(ref) == 1
    }
}
