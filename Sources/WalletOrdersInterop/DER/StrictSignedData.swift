package import Foundation

/// The parts of a detached CMS `SignedData` (RFC 5652) that verification needs, read with
/// ``DERReader`` from a signature of exactly the shape Wallet orders use: DER, one signer named
/// by issuer and serial number, SHA-256, RSA, signed attributes `contentType` (id-data),
/// `signingTime`, `messageDigest` and optionally `smimeCapabilities`, certificates present, no
/// CRLs, no unsigned attributes, no encapsulated content.
///
/// `init` returns `nil` for anything else, and the verifier then asks OpenSSL
/// (``CMSSignedData``), which reports each problem on its own. Within this shape OpenSSL reaches
/// the same verdicts: its parser accepts every such structure (certificates are still parsed by
/// `d2i_X509`), `CMS_SignerInfo_verify` hashes the signed attributes re-encoded in their original
/// order, which for strict DER with one value per attribute are the bytes read here with the
/// `[0]` tag replaced by SET, and the `messageDigest` is compared with the SHA-256 of the content.
package struct StrictSignedData {
    /// The certificates, each as its whole DER encoding, in stored order.
    package var certificates: [Range<Int>]
    /// The signer's issuer `Name`, whole DER encoding.
    package var signerIssuer: Range<Int>
    /// The signer's serial number, INTEGER content bytes.
    package var signerSerial: Range<Int>
    /// The DER that the signature covers: the signed attributes with the SET tag.
    package var signedAttributesDER: [UInt8]
    /// The `signingTime` attribute.
    package var signingTime: Date
    /// The `messageDigest` attribute's bytes.
    package var messageDigest: Range<Int>
    /// The signature value.
    package var signature: Range<Int>
    /// The buffer the ranges index.
    package var bytes: [UInt8]

    // DER contents of the object identifiers involved.
    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let sha256OID: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    static let rsaEncryptionOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let sha256WithRSAOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]
    static let contentTypeOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
    static let messageDigestOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]
    static let signingTimeOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x05]
    static let smimeCapabilitiesOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x0F]

    // Tags.
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let integer: UInt8 = 0x02
    static let octetString: UInt8 = 0x04
    static let null: UInt8 = 0x05
    static let oid: UInt8 = 0x06
    static let utcTime: UInt8 = 0x17
    static let generalizedTime: UInt8 = 0x18
    static let context0: UInt8 = 0xA0
    static let context1: UInt8 = 0xA1

    /// Reads `bytes`; `nil` when they are not a signature of the shape described above.
    package init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        var top = DERReader(bytes)
        guard let contentInfo = top.next(tag: Self.sequence), top.isAtEnd else { return nil }
        var info = top.children(of: contentInfo)
        guard let type = info.next(tag: Self.oid), DERReader.equals(bytes, type.content, Self.signedDataOID),
            let explicit = info.next(tag: Self.context0), info.isAtEnd
        else { return nil }
        var wrapper = info.children(of: explicit)
        guard let signedData = wrapper.next(tag: Self.sequence), wrapper.isAtEnd else { return nil }

        var fields = wrapper.children(of: signedData)
        guard let version = fields.next(tag: Self.integer), DERReader.isMinimalInteger(bytes, version.content),
            let digestAlgorithms = fields.next(tag: Self.set)
        else { return nil }
        var algorithms = fields.children(of: digestAlgorithms)
        while !algorithms.isAtEnd {
            guard let algorithm = algorithms.next(tag: Self.sequence), Self.isAlgorithm(bytes, algorithm, Self.sha256OID) else {
                return nil
            }
        }
        // encapContentInfo: id-data with no content (detached).
        guard let encapsulated = fields.next(tag: Self.sequence) else { return nil }
        var encapsulatedFields = fields.children(of: encapsulated)
        guard let encapsulatedType = encapsulatedFields.next(tag: Self.oid),
            DERReader.equals(bytes, encapsulatedType.content, Self.dataOID), encapsulatedFields.isAtEnd
        else { return nil }
        // certificates [0] IMPLICIT SET OF Certificate (plain certificates only).
        guard let certificateSet = fields.next(tag: Self.context0) else { return nil }
        var certificateReader = fields.children(of: certificateSet)
        var certificates: [Range<Int>] = []
        while !certificateReader.isAtEnd {
            // Strict DER all through: OpenSSL would also take a certificate with BER inside it.
            guard let certificate = certificateReader.next(tag: Self.sequence), DERReader.isWellFormed(bytes, certificate.content)
            else { return nil }
            certificates.append(certificate.whole)
        }
        guard !certificates.isEmpty else { return nil }
        // No CRLs; exactly one SignerInfo.
        guard let signerInfos = fields.next(tag: Self.set), fields.isAtEnd else { return nil }
        var signers = fields.children(of: signerInfos)
        guard let signerInfo = signers.next(tag: Self.sequence), signers.isAtEnd else { return nil }

        var signer = signers.children(of: signerInfo)
        guard let signerVersion = signer.next(tag: Self.integer), DERReader.equals(bytes, signerVersion.content, [1]),
            let issuerAndSerial = signer.next(tag: Self.sequence)
        else { return nil }
        var sid = signer.children(of: issuerAndSerial)
        guard let issuer = sid.next(tag: Self.sequence), let serial = sid.next(tag: Self.integer), sid.isAtEnd,
            DERReader.isMinimalInteger(bytes, serial.content), DERReader.isWellFormed(bytes, issuer.content)
        else { return nil }
        guard let digestAlgorithm = signer.next(tag: Self.sequence), Self.isAlgorithm(bytes, digestAlgorithm, Self.sha256OID),
            let attributes = signer.next(tag: Self.context0),
            let signatureAlgorithm = signer.next(tag: Self.sequence),
            Self.isAlgorithm(bytes, signatureAlgorithm, Self.rsaEncryptionOID)
                || Self.isAlgorithm(bytes, signatureAlgorithm, Self.sha256WithRSAOID),
            let signature = signer.next(tag: Self.octetString), signer.isAtEnd
        else { return nil }

        // Signed attributes: each exactly once, one value each.
        var contentType = false
        var signingTime: Date?
        var messageDigest: Range<Int>?
        var capabilities = false
        var attributeReader = signer.children(of: attributes)
        while !attributeReader.isAtEnd {
            guard let attribute = attributeReader.next(tag: Self.sequence) else { return nil }
            var parts = attributeReader.children(of: attribute)
            guard let attributeType = parts.next(tag: Self.oid), let values = parts.next(tag: Self.set), parts.isAtEnd else {
                return nil
            }
            var valueReader = parts.children(of: values)
            guard let value = valueReader.next(), valueReader.isAtEnd else { return nil }
            let typeRange = attributeType.content
            if DERReader.equals(bytes, typeRange, Self.contentTypeOID) {
                guard !contentType, value.tag == Self.oid, DERReader.equals(bytes, value.content, Self.dataOID) else { return nil }
                contentType = true
            } else if DERReader.equals(bytes, typeRange, Self.signingTimeOID) {
                guard signingTime == nil, let time = Self.time(bytes, value) else { return nil }
                signingTime = time
            } else if DERReader.equals(bytes, typeRange, Self.messageDigestOID) {
                guard messageDigest == nil, value.tag == Self.octetString else { return nil }
                messageDigest = value.content
            } else if DERReader.equals(bytes, typeRange, Self.smimeCapabilitiesOID) {
                guard !capabilities, value.tag == Self.sequence, DERReader.isWellFormed(bytes, value.content) else { return nil }
                capabilities = true
            } else {
                return nil
            }
        }
        guard contentType, let signingTime, let messageDigest else { return nil }

        var signed = Array(bytes[attributes.whole])
        signed[0] = Self.set
        self.certificates = certificates
        self.signerIssuer = issuer.whole
        self.signerSerial = serial.content
        self.signedAttributesDER = signed
        self.signingTime = signingTime
        self.messageDigest = messageDigest
        self.signature = signature.content
    }

    /// Whether `element` is an AlgorithmIdentifier for `oid` with absent or NULL parameters.
    static func isAlgorithm(_ bytes: [UInt8], _ element: DERReader.Element, _ oid: [UInt8]) -> Bool {
        var reader = DERReader(bytes, range: element.content)
        guard let identifier = reader.next(tag: Self.oid), DERReader.equals(bytes, identifier.content, oid) else { return false }
        if reader.isAtEnd { return true }
        guard let parameters = reader.next(tag: Self.null), parameters.content.isEmpty, reader.isAtEnd else { return false }
        return true
    }

    /// A UTCTime `YYMMDDHHMMSSZ` or GeneralizedTime `YYYYMMDDHHMMSSZ`, fields in range (as
    /// OpenSSL's `ASN1_TIME_to_tm` requires); other spellings are left to OpenSSL.
    static func time(_ bytes: [UInt8], _ element: DERReader.Element) -> Date? {
        let content = element.content
        let yearDigits: Int
        switch element.tag {
        case Self.utcTime: yearDigits = 2
        case Self.generalizedTime: yearDigits = 4
        default: return nil
        }
        guard content.count == yearDigits + 11, bytes[content.upperBound - 1] == UInt8(ascii: "Z") else { return nil }
        var digits: [Int] = []
        digits.reserveCapacity(yearDigits + 10)
        for index in content.lowerBound..<content.upperBound - 1 {
            let byte = bytes[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            digits.append(Int(byte - 0x30))
        }
        func number(_ at: Int, _ count: Int) -> Int { digits[at..<at + count].reduce(0) { $0 * 10 + $1 } }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year < 50 ? 2000 : 1900 }
        let month = number(yearDigits, 2)
        let day = number(yearDigits + 2, 2)
        let hour = number(yearDigits + 4, 2)
        let minute = number(yearDigits + 6, 2)
        let second = number(yearDigits + 8, 2)
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= monthDays[month - 1], hour < 24, minute < 60, second < 60 else {
            return nil
        }
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}
