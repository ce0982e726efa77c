package import Foundation
import Synchronization
package import WalletOrdersInterop

/// A certificate seen in a signature, parsed once, with the facts verification reads from it.
///
/// The same Order Type ID certificate and WWDR intermediate appear in thousands of archives;
/// ``VerificationCache`` keeps one of these per distinct DER encoding.
package final class KnownCertificate: Sendable, Equatable {
    /// Unique for the process's lifetime (never reused, even after the cache is emptied).
    package let id: Int
    package let certificate: X509Certificate
    package let der: [UInt8]
    package let subject: DistinguishedName
    package let issuer: DistinguishedName
    package let notBefore: Date
    package let notAfter: Date
    /// Whether both validity dates were read (so validity at a time is a comparison of seconds).
    package let hasValidityDates: Bool
    /// The serial number's INTEGER content and the issuer `Name`'s DER, read from `der`.
    package let serial: ArraySlice<UInt8>?
    package let issuerNameDER: ArraySlice<UInt8>?
    /// How the certificate misses the Order Type ID profile, were it the signer of an order (worked out once).
    package let orderProfileProblems: [CertificateProfileProblem]
    /// How the certificate misses the Pass Type ID profile, were it the signer of a pass.
    package let passProfileProblems: [CertificateProfileProblem]
    /// How it misses the profile of the intermediate that issues an order's signer, were it that intermediate.
    package let intermediateProblem: CertificateProfileProblem?
    /// The types and team it names (subject `UID` and `OU`, the markers), were it the signer.
    package let signerNames: SignerNames

    package init(id: Int, certificate: X509Certificate, der: [UInt8]) {
        self.id = id
        self.certificate = certificate
        self.der = der
        subject = certificate.subject
        issuer = certificate.issuer
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        hasValidityDates = notBefore != .distantPast && notAfter != .distantFuture
        (serial, issuerNameDER) = Self.serialAndIssuer(der) ?? (nil, nil)
        let facts = certificate.profileFacts
        orderProfileProblems = OrderTypeCertificateProfile.problems(of: facts, subject: subject)
        passProfileProblems = PassTypeCertificateProfile.problems(of: facts, subject: subject)
        intermediateProblem = OrderTypeCertificateProfile.intermediateProblem(of: facts, subject: subject)
        signerNames = SignerNames(facts, subject: subject)
    }

    /// How the certificate misses the profile of `kind`'s signer.
    package func profileProblems(for kind: ArchiveKind) -> [CertificateProfileProblem] {
        switch kind {
        case .order: orderProfileProblems
        case .pass: passProfileProblems
        }
    }

    package static func == (lhs: KnownCertificate, rhs: KnownCertificate) -> Bool { lhs.der == rhs.der }

    /// `tbsCertificate`'s serialNumber content and issuer `Name` (whole DER), or `nil`.
    package static func serialAndIssuer(_ der: [UInt8]) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        var top = DERReader(der)
        guard let certificate = top.next(tag: 0x30) else { return nil }
        var fields = top.children(of: certificate)
        guard let tbs = fields.next(tag: 0x30) else { return nil }
        var tbsFields = fields.children(of: tbs)
        if tbsFields.peekTag == 0xA0 { _ = tbsFields.next() }  // [0] EXPLICIT version
        guard let serial = tbsFields.next(tag: 0x02), DERReader.isMinimalInteger(der, serial.content),
            tbsFields.next(tag: 0x30) != nil,  // signature AlgorithmIdentifier
            let issuer = tbsFields.next(tag: 0x30)
        else { return nil }
        return (der[serial.content], der[issuer.whole])
    }
}

/// What one ``ArchiveVerifier`` has already worked out about certificates: parsed
/// certificates by DER, issuer signature checks, and chain verifications.
///
/// A chain's verdict depends on the certificates (leaf, helpers in order, trust anchors) and on
/// the verification time only through how that time compares with each certificate's notBefore
/// and notAfter (OpenSSL checks nothing else time-dependent: no CRLs, no policies). The key
/// holds exactly those comparisons, in seconds as OpenSSL makes them, so a cached verdict is the
/// verdict OpenSSL gives for that time: the chain is still checked at the signing time.
///
/// Thread-safe; bounded (each table is emptied when it reaches its limit).
package final class VerificationCache: Sendable {
    package struct Bytes: Hashable {
        package let bytes: ArraySlice<UInt8>
        package func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        package static func == (lhs: Bytes, rhs: Bytes) -> Bool {
            lhs.bytes.count == rhs.bytes.count
                && lhs.bytes.withUnsafeBytes { l in rhs.bytes.withUnsafeBytes { r in memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 } }
        }
    }

    package struct ChainKey: Hashable {
        /// Leaf then helpers, by ``KnownCertificate/id``.
        package var certificates: [Int]
        /// For the leaf, the helpers and the anchors: sign(time − notBefore), sign(time − notAfter).
        package var timeOrder: [Int8]
    }

    package struct IssuedKey: Hashable {
        package var child: Int
        package var issuer: Int
    }

    package struct State {
        package var nextID = 0
        package var certificates: [Bytes: KnownCertificate] = [:]
        package var issued: [IssuedKey: Bool] = [:]
        package var chains: [ChainKey: X509TrustStore.ChainResult] = [:]
    }

    package static let certificateLimit = 1_024
    package static let resultLimit = 16_384

    private let state = Mutex(State())

    /// The known certificate for the DER in `range` of `bytes`, parsing it on first sight;
    /// `nil` when OpenSSL can't parse exactly that range as a certificate.
    package func certificate(in bytes: [UInt8], range: Range<Int>) -> KnownCertificate? {
        let slice = bytes[range]
        if let known = state.withLockVisibleToSanitizers({ $0.certificates[Bytes(bytes: slice)] }) { return known }
        guard let parsed = X509Certificate.parse(exactly: bytes, range: range) else { return nil }
        return insert(parsed, der: Array(slice))
    }

    /// The known certificate for a parsed certificate.
    package func certificate(_ certificate: X509Certificate) -> KnownCertificate {
        let der = certificate.derBytes
        if let known = state.withLockVisibleToSanitizers({ $0.certificates[Bytes(bytes: der[...])] }) { return known }
        return insert(certificate, der: der)
    }

    private func insert(_ certificate: X509Certificate, der: [UInt8]) -> KnownCertificate {
        state.withLockVisibleToSanitizers { state in
            if let known = state.certificates[Bytes(bytes: der[...])] { return known }
            if state.certificates.count >= Self.certificateLimit { state.certificates.removeAll() }
            let known = KnownCertificate(id: state.nextID, certificate: certificate, der: der)
            state.nextID += 1
            state.certificates[Bytes(bytes: der[...])] = known
            return known
        }
    }

    /// Whether `issuer` issued `child` (name match and signature), computed once per pair.
    package func isIssued(_ child: KnownCertificate, by issuer: KnownCertificate) -> Bool {
        let key = IssuedKey(child: child.id, issuer: issuer.id)
        if let known = state.withLockVisibleToSanitizers({ $0.issued[key] }) { return known }
        let result = child.certificate.isIssued(by: issuer.certificate)
        state.withLockVisibleToSanitizers { state in
            if state.issued.count >= Self.resultLimit { state.issued.removeAll() }
            state.issued[key] = result
        }
        return result
    }

    /// `trustStore.verify(leaf, intermediates: helpers, at: time)`, computed once per set of
    /// certificates and ordering of `time` among their validity dates.
    package func verifyChain(
        _ trustStore: X509TrustStore, anchors: [KnownCertificate], leaf: KnownCertificate, helpers: [KnownCertificate],
        at time: Date
    ) -> X509TrustStore.ChainResult {
        let involved = [leaf] + helpers + anchors
        guard involved.allSatisfy(\.hasValidityDates) else {
            return trustStore.verify(leaf.certificate, intermediates: helpers.map(\.certificate), at: time)
        }
        // X509_STORE_CTX_set_time takes whole seconds.
        let seconds = time.timeIntervalSince1970.rounded(.down)
        var order: [Int8] = []
        order.reserveCapacity(involved.count * 2)
        for certificate in involved {
            order.append(Self.sign(seconds - certificate.notBefore.timeIntervalSince1970))
            order.append(Self.sign(seconds - certificate.notAfter.timeIntervalSince1970))
        }
        let key = ChainKey(certificates: ([leaf] + helpers).map(\.id), timeOrder: order)
        if let known = state.withLockVisibleToSanitizers({ $0.chains[key] }) { return known }
        let result = trustStore.verify(leaf.certificate, intermediates: helpers.map(\.certificate), at: time)
        state.withLockVisibleToSanitizers { state in
            if state.chains.count >= Self.resultLimit { state.chains.removeAll() }
            state.chains[key] = result
        }
        return result
    }

    private static func sign(_ value: Double) -> Int8 { value < 0 ? -1 : value > 0 ? 1 : 0 }
}
