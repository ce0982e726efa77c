import CWalletOrdersOpenSSL
package import Foundation

/// A distinguished name as an ordered list of attributes.
package struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// One attribute of a name, such as `CN=Apple Root CA`.
    package struct Attribute: Sendable, Hashable {
        /// OpenSSL's short name (`CN`, `OU`, `UID`) or the dotted OID when it has none.
        package var type: String
        /// The dotted object identifier.
        package var oid: String
        /// The value as UTF-8 text.
        package var value: String
    }

    /// The attributes in certificate order (most significant first, as stored).
    package var attributes: [Attribute]

    /// The first value of the attribute with the given short name (`"CN"`, `"UID"`, `"OU"`).
    package subscript(type: String) -> String? {
        attributes.first { $0.type == type }?.value
    }

    /// Most specific first, as people read names: `CN=…, OU=…, O=…, C=…`, or
    /// `UID=…, CN=…, OU=…, O=…, C=…` for Apple's leaf certificates.
    ///
    /// Names are stored either least specific first (`C`, `DC` or `O` leading: Apple's CAs) or
    /// most specific first (Apple's Order/Pass Type ID certificates lead with `UID`); only the
    /// former is reversed.
    package var description: String {
        let leastSpecificFirst = ["C", "DC", "O"].contains(attributes.first?.type ?? "")
        let ordered = leastSpecificFirst ? Array(attributes.reversed()) : attributes
        return ordered.map { "\($0.type)=\($0.value)" }.joined(separator: ", ")
    }

    /// Reads an `X509_NAME`. The name is borrowed, not freed.
    init(borrowing name: OpaquePointer?) {
        var attributes: [Attribute] = []
        if let name {
            for index in 0..<X509_NAME_entry_count(name) {
                guard let entry = X509_NAME_get_entry(name, index) else { continue }
                let object = X509_NAME_ENTRY_get_object(entry)
                var utf8: UnsafeMutablePointer<UInt8>? = nil
                let length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry))
                var value = ""
                if length >= 0, let utf8 {
                    value = String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
                    CWalletOrdersOpenSSL_OPENSSL_free(utf8)
                }
                attributes.append(Attribute(type: ASN1.shortName(object), oid: ASN1.dottedOID(object), value: value))
            }
        }
        self.attributes = attributes
    }

    package init(attributes: [Attribute]) {
        self.attributes = attributes
    }
}

/// A parsed X.509 certificate (an owned `X509 *`).
///
/// `@unchecked Sendable`: the certificate is never mutated after parsing, and OpenSSL's read
/// accessors on a fully parsed `X509` are safe to call from several threads.
package final class X509Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned handle. Other wrappers in this module borrow it; it is freed in `deinit`.
    let ref: OpaquePointer

    /// Takes ownership of `ref`.
    init(taking ref: OpaquePointer) {
        self.ref = ref
    }

    /// Takes a new reference on a borrowed `ref` (for example one inside a CMS structure).
    ///
    /// The corresponding C function is `X509_up_ref`.
    convenience init(retaining ref: OpaquePointer) {
        X509_up_ref(ref)
        self.init(taking: ref)
    }

    deinit { X509_free(ref) }

    /// Parses one DER-encoded certificate.
    ///
    /// The corresponding C function is `d2i_X509`.
    package convenience init(derBytes: [UInt8]) throws(OpenSSLError) {
        OpenSSLError.clearQueue()
        let parsed: OpaquePointer? = derBytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLError.drain(function: "d2i_X509", context: "The data is not a DER-encoded X.509 certificate")
        }
        self.init(taking: parsed)
    }

    /// Parses every certificate in PEM text (`-----BEGIN CERTIFICATE-----` blocks), in order.
    ///
    /// The corresponding C function is `PEM_read_bio_X509`.
    package static func parsePEM(_ bytes: [UInt8]) throws(OpenSSLError) -> [X509Certificate] {
        OpenSSLError.clearQueue()
        let certificates: [X509Certificate] = MemoryBIO.withReadOnly(bytes) { bio in
            var found: [X509Certificate] = []
            while let cert = PEM_read_bio_X509(bio, nil, nil, nil) {
                found.append(X509Certificate(taking: cert))
            }
            return found
        }
        // Reaching the end of the input leaves a "no start line" entry behind: that's expected.
        ERR_clear_error()
        guard !certificates.isEmpty else {
            throw OpenSSLError(
                function: "PEM_read_bio_X509",
                context: "No PEM certificate (-----BEGIN CERTIFICATE-----) found"
            )
        }
        return certificates
    }

    /// Parses certificates given as PEM (one or more) or as one DER certificate.
    package static func parse(_ bytes: [UInt8]) throws(OpenSSLError) -> [X509Certificate] {
        if PEMText.looksLikePEM(bytes) { return try parsePEM(bytes) }
        return [try X509Certificate(derBytes: bytes)]
    }

    /// The DER encoding. The corresponding C function is `i2d_X509`.
    package var derBytes: [UInt8] {
        let length = i2d_X509(ref, nil)
        guard length > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_X509(ref, &cursor)
        }
        return out
    }

    /// The PEM encoding. The corresponding C function is `PEM_write_bio_X509`.
    package var pemString: String {
        let bytes = MemoryBIO.collecting { bio in _ = PEM_write_bio_X509(bio, ref) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The subject name. The corresponding C function is `X509_get_subject_name`.
    package var subject: DistinguishedName { DistinguishedName(borrowing: X509_get_subject_name(ref)) }

    /// The issuer name. The corresponding C function is `X509_get_issuer_name`.
    package var issuer: DistinguishedName { DistinguishedName(borrowing: X509_get_issuer_name(ref)) }

    /// The serial number as colon-separated uppercase hex, as `openssl x509 -serial` shows it.
    package var serialNumberHex: String {
        let bytes = ASN1.bytes(of: X509_get0_serialNumber(ref))
        return bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The start of the validity period.
    package var notBefore: Date { ASN1.date(from: CWalletOrdersOpenSSL_X509_get0_notBefore(ref)) ?? .distantPast }

    /// The end of the validity period.
    package var notAfter: Date { ASN1.date(from: CWalletOrdersOpenSSL_X509_get0_notAfter(ref)) ?? .distantFuture }

    /// Whether `date` falls inside the validity period (inclusive).
    package func isValid(at date: Date) -> Bool {
        notBefore <= date && date <= notAfter
    }

    /// The SHA-256 fingerprint of the DER encoding.
    package var sha256Fingerprint: [UInt8] { SHA256.hash(derBytes) }

    /// Whether the certificate has basic constraints CA:TRUE.
    ///
    /// The corresponding C function is `X509_check_ca`.
    package var isCertificateAuthority: Bool { X509_check_ca(ref) > 0 }

    /// The extended key usage purposes, as dotted OIDs (empty when the extension is absent).
    ///
    /// The corresponding C function is `X509_get_ext_d2i` with `NID_ext_key_usage`.
    package var extendedKeyUsageOIDs: [String] {
        guard let raw = X509_get_ext_d2i(ref, NID_ext_key_usage, nil, nil) else { return [] }
        let stack = OpaquePointer(raw)
        defer { OPENSSL_sk_pop_free(stack, { ASN1_OBJECT_free(OpaquePointer($0)) }) }
        return (0..<OPENSSL_sk_num(stack)).map { index in
            ASN1.dottedOID(OpaquePointer(OPENSSL_sk_value(stack, index)))
        }
    }

    /// One X.509 extension as the certificate carries it.
    package struct Extension: Sendable, Hashable {
        /// The extension's object identifier, dotted.
        package var oid: String
        /// Whether it is marked critical.
        package var isCritical: Bool
        /// The DER inside its `extnValue` OCTET STRING (for Apple's order-type marker, a UTF8String).
        package var value: [UInt8]
    }

    /// Every extension, in certificate order.
    ///
    /// The corresponding C functions are `X509_get_ext_count`, `X509_get_ext`,
    /// `X509_EXTENSION_get_object`, `X509_EXTENSION_get_critical` and `X509_EXTENSION_get_data`.
    package var extensions: [Extension] {
        (0..<X509_get_ext_count(ref)).compactMap { index in
            guard let item = X509_get_ext(ref, index) else { return nil }
            return Extension(
                oid: ASN1.dottedOID(X509_EXTENSION_get_object(item)), isCritical: X509_EXTENSION_get_critical(item) > 0,
                value: ASN1.bytes(of: X509_EXTENSION_get_data(item)))
        }
    }

    /// The facts an end-entity profile check reads: basic constraints, key usage and the key.
    package struct ProfileFacts: Sendable, Hashable {
        /// The public key's algorithm.
        package enum KeyAlgorithm: Sendable, Hashable {
            case rsa
            /// An elliptic-curve key on the named curve (`prime256v1`, `secp384r1`, …; empty if unnamed).
            case ec(curve: String)
            /// Any other algorithm, by OpenSSL's short name (`ED25519`, `DSA`, …).
            case other(String)
        }

        /// Whether basic constraints say `cA: TRUE`.
        package var isCertificateAuthority: Bool
        /// The key usage bits (`KU_*`), or `nil` when the certificate has no key usage extension.
        package var keyUsage: UInt32?
        /// Whether the key usage includes digitalSignature.
        package var allowsDigitalSignature: Bool { keyUsage.map { $0 & UInt32(KU_DIGITAL_SIGNATURE) != 0 } ?? true }
        /// The extended key usages, as dotted OIDs.
        package var extendedKeyUsages: [String]
        /// The public key's algorithm and size in bits.
        package var keyAlgorithm: KeyAlgorithm
        package var keyBits: Int
        /// Every extension (Apple's markers are private extensions that OpenSSL doesn't decode).
        package var extensions: [Extension]

        /// The value of the extension `oid`, or `nil` when the certificate doesn't carry it.
        package func extensionValue(_ oid: String) -> [UInt8]? {
            extensions.first { $0.oid == oid }?.value
        }
    }

    /// What the certificate says about its own use (read once per certificate by callers that cache).
    ///
    /// The corresponding C functions are `X509_get_extension_flags`, `X509_get_key_usage`,
    /// `X509_get0_pubkey`, `EVP_PKEY_get_base_id`, `EVP_PKEY_get_bits` and `EVP_PKEY_get_group_name`.
    package var profileFacts: ProfileFacts {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        let flags = X509_get_extension_flags(ref)
        let keyUsage: UInt32? = flags & UInt32(EXFLAG_KUSAGE) != 0 ? X509_get_key_usage(ref) : nil
        var algorithm = ProfileFacts.KeyAlgorithm.other("none")
        var bits = 0
        if let key = X509_get0_pubkey(ref) {
            bits = Int(EVP_PKEY_get_bits(key))
            switch EVP_PKEY_get_base_id(key) {
            case EVP_PKEY_RSA: algorithm = .rsa
            case EVP_PKEY_EC:
                var name = [CChar](repeating: 0, count: 64)
                var length = 0
                let found = EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1
                algorithm = .ec(curve: found ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "")
            case let other:
                algorithm = .other(OBJ_nid2sn(other).map { String(cString: $0) } ?? "algorithm \(other)")
            }
        }
        return ProfileFacts(
            isCertificateAuthority: flags & UInt32(EXFLAG_CA) != 0, keyUsage: keyUsage,
            extendedKeyUsages: extendedKeyUsageOIDs, keyAlgorithm: algorithm, keyBits: bits, extensions: extensions)
    }

    /// Whether this certificate's issuer name matches `issuer`'s subject and `issuer`'s key signed it.
    ///
    /// The corresponding C functions are `X509_check_issued` and `X509_verify`.
    package func isIssued(by issuer: X509Certificate) -> Bool {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        guard X509_check_issued(issuer.ref, ref) == X509_V_OK else { return false }
        guard let key = X509_get0_pubkey(issuer.ref) else { return false }
        return X509_verify(ref, key) == 1
    }

    /// Whether `key` is the private half of this certificate's public key.
    ///
    /// The corresponding C function is `X509_check_private_key`.
    package func matches(_ key: PrivateKey) -> Bool {
        OpenSSLError.clearQueue()
        defer { ERR_clear_error() }
        return X509_check_private_key(ref, key.ref) == 1
    }

    /// A short description of the public key, such as `RSA 2048-bit`.
    package var publicKeyDescription: String {
        guard let key = X509_get0_pubkey(ref) else { return "unknown key" }
        return PrivateKey.describe(key)
    }

    package static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        X509_cmp(lhs.ref, rhs.ref) == 0
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(sha256Fingerprint)
    }

    package var description: String { "\(subject) (serial \(serialNumberHex))" }
}

/// Sniffing PEM versus DER.
package enum PEMText {
    /// Whether `bytes` look like PEM (contain a `-----BEGIN ` armour line).
    package static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.count >= marker.count else { return false }
        // Search the first 4 KiB: comments or "Bag Attributes" may precede the armour.
        let window = bytes.prefix(4096)
        return window.indices.contains { start in
            start + marker.count <= window.endIndex && window[start..<start + marker.count].elementsEqual(marker)
        }
    }
}
