import CWalletOrdersOpenSSL
package import Foundation

/// Issues X.509 certificates: for local development chains and for tests. Never for production.
package enum CertificateIssuer {
    /// What to put in a new certificate.
    package struct Template: Sendable {
        /// Subject attributes, most significant first: `[("C", "US"), ("O", "…"), ("CN", "…")]`.
        package var subject: [(type: String, value: String)]
        package var notBefore: Date
        package var notAfter: Date
        /// `nil` for an end-entity certificate; otherwise a CA with this path length (`-1`: unlimited).
        package var certificateAuthorityPathLength: Int?
        /// OpenSSL extension config value for `keyUsage`, e.g. `critical,digitalSignature`.
        package var keyUsage: String
        /// Extended key usages as dotted OIDs or OpenSSL names; empty for none.
        package var extendedKeyUsages: [String]
        /// Extra extensions: dotted OID, criticality and the DER of the extension value.
        package var customExtensions: [(oid: String, critical: Bool, derValue: [UInt8])]

        package init(
            subject: [(type: String, value: String)], notBefore: Date, notAfter: Date,
            certificateAuthorityPathLength: Int? = nil, keyUsage: String, extendedKeyUsages: [String] = [],
            customExtensions: [(oid: String, critical: Bool, derValue: [UInt8])] = []
        ) {
            self.subject = subject
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.certificateAuthorityPathLength = certificateAuthorityPathLength
            self.keyUsage = keyUsage
            self.extendedKeyUsages = extendedKeyUsages
            self.customExtensions = customExtensions
        }
    }

    /// Issues a certificate for `subjectKey`'s public key, signed by `issuerKey` (SHA-256).
    /// Self-signed when `issuer` is `nil`.
    ///
    /// The corresponding C functions are `X509_new`, `X509_set_version`, `X509_NAME_add_entry_by_txt`,
    /// `X509V3_EXT_conf_nid`, `X509_EXTENSION_create_by_OBJ`, `X509_add_ext` and `X509_sign`.
    package static func issue(
        _ template: Template,
        subjectKey: PrivateKey,
        issuer: X509Certificate?,
        issuerKey: PrivateKey
    ) throws(OpenSSLError) -> X509Certificate {
        OpenSSLError.clearQueue()
        guard let cert = X509_new() else { throw OpenSSLError.drain(function: "X509_new") }
        let certificate = X509Certificate(taking: cert)  // owns `cert` from here on
        X509_set_version(cert, 2)
        let serial = SecureRandom.bytes(16).enumerated().map { $0.offset == 0 ? $0.element & 0x7f | 0x01 : $0.element }
        let serialNumber = serial.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        defer { BN_free(serialNumber) }
        guard let serialNumber, BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(cert)) != nil else {
            throw OpenSSLError.drain(function: "BN_to_ASN1_INTEGER")
        }
        guard let notBefore = ASN1.makeTime(template.notBefore), let notAfter = ASN1.makeTime(template.notAfter) else {
            throw OpenSSLError.drain(function: "ASN1_TIME_set")
        }
        defer {
            ASN1_TIME_free(notBefore)
            ASN1_TIME_free(notAfter)
        }
        X509_set1_notBefore(cert, notBefore)
        X509_set1_notAfter(cert, notAfter)

        guard let name = X509_NAME_new() else { throw OpenSSLError.drain(function: "X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for (type, value) in template.subject {
            guard X509_NAME_add_entry_by_txt(name, type, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw OpenSSLError.drain(function: "X509_NAME_add_entry_by_txt", context: "Adding \(type)=\(value)")
            }
        }
        X509_set_subject_name(cert, name)
        X509_set_issuer_name(cert, issuer.map { X509_get_subject_name($0.ref) } ?? name)
        guard X509_set_pubkey(cert, subjectKey.ref) == 1 else { throw OpenSSLError.drain(function: "X509_set_pubkey") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.ref ?? cert, cert, nil, nil, 0)
        var extensions: [(Int32, String)] = []
        if let pathLength = template.certificateAuthorityPathLength {
            extensions.append((NID_basic_constraints, pathLength < 0 ? "critical,CA:TRUE" : "critical,CA:TRUE,pathlen:\(pathLength)"))
        } else {
            extensions.append((NID_basic_constraints, "critical,CA:FALSE"))
        }
        extensions.append((NID_key_usage, template.keyUsage))
        if !template.extendedKeyUsages.isEmpty {
            extensions.append((NID_ext_key_usage, template.extendedKeyUsages.joined(separator: ",")))
        }
        extensions.append((NID_subject_key_identifier, "hash"))
        if issuer != nil { extensions.append((NID_authority_key_identifier, "keyid:always")) }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw OpenSSLError.drain(function: "X509V3_EXT_conf_nid", context: "Encoding extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(cert, ext, -1) == 1 else { throw OpenSSLError.drain(function: "X509_add_ext") }
        }
        for custom in template.customExtensions {
            guard let object = OBJ_txt2obj(custom.oid, 1) else { throw OpenSSLError.drain(function: "OBJ_txt2obj") }
            defer { ASN1_OBJECT_free(object) }
            guard let value = ASN1_OCTET_STRING_new() else { throw OpenSSLError.drain(function: "ASN1_OCTET_STRING_new") }
            defer { ASN1_OCTET_STRING_free(value) }
            _ = custom.derValue.withUnsafeBufferPointer { ASN1_OCTET_STRING_set(value, $0.baseAddress, Int32($0.count)) }
            guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, custom.critical ? 1 : 0, value) else {
                throw OpenSSLError.drain(function: "X509_EXTENSION_create_by_OBJ")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(cert, ext, -1) == 1 else { throw OpenSSLError.drain(function: "X509_add_ext") }
        }
        guard X509_sign(cert, issuerKey.ref, EVP_sha256()) > 0 else {
            throw OpenSSLError.drain(function: "X509_sign", context: "Signing the certificate")
        }
        return certificate
    }
}
