import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Wallet binds an order to the certificate of its order type, and only Order Type ID
/// certificates sign orders. These are the attacks that broke that promise (issue 10, findings 1
/// and 2), each made from a certificate of its own kind and signed by an independent signer
/// where one exists (the `openssl` CLI).
@Suite(.temporaryFolder) struct CertificateProfileTests {
    static let victimType = "order.com.example.shop"
    static let attackerType = "order.com.other.victim"

    /// The victim's genuine archive (the shipped sample, re-typed to the victim's order type).
    static let genuine: BuiltOrderArchive = try! build(orderType: victimType, updatedAt: "2026-11-01T10:00:00Z", url: nil)

    /// Sample `shipped-ecommerce` with its order type, `updatedAt` and (optionally) `orderManagementURL` replaced.
    static func source(orderType: String, updatedAt: String, url: String?) throws -> OrderSource {
        let sample = try SampleBuilds.source("shipped-ecommerce")
        var files = sample.files
        let orderJSON = try #require(sample.orderJSON)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(orderJSON)) as? [String: Any])
        object["orderTypeIdentifier"] = orderType
        object["updatedAt"] = updatedAt
        if let url { object["orderManagementURL"] = url }
        files[OrderArchive.orderPath] = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        return OrderSource(files: files)
    }

    static func build(orderType: String, updatedAt: String, url: String?) throws -> BuiltOrderArchive {
        try OrderArchiveBuilder(identity: TestPKI.identity(for: orderType))
            .build(try source(orderType: orderType, updatedAt: updatedAt, url: url), signingTime: TestPKI.signingTime)
    }

    /// The attack: the victim's order type, a later `updatedAt`, a phishing URL, signed with the
    /// attacker's own genuine certificate (same intermediate) by `openssl cms`.
    static func forged() async throws -> [UInt8] {
        // Built with the victim's type under the victim's identity only to get the files and
        // manifest; the signature is then replaced with the attacker's.
        let carrier = try build(orderType: victimType, updatedAt: "2026-11-20T10:00:00Z", url: "https://evil.example/login")
        let attacker = TestPKI.certificate(for: attackerType)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let manifest = try folder.write(carrier.manifestBytes, to: "manifest.json")
        let cert = try folder.write(Array(attacker.certificatePEM.utf8), to: "cert.pem")
        let key = try folder.write(Array(try attacker.privateKeyPEM().utf8), to: "key.pem")
        let chain = try folder.write(Array(TestPKI.authority.intermediateCertificatePEM.utf8), to: "wwdr.pem")
        let root = try folder.write(Array(TestPKI.authority.rootCertificatePEM.utf8), to: "root.pem")
        let signature = folder.url.appendingPathComponent("signature")
        let signed = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-sign", "-binary", "-md", "sha256", "-signer", cert.path, "-inkey", key.path, "-certfile", chain.path,
                "-in", manifest.path, "-outform", "DER", "-out", signature.path,
            ])
        #expect(signed.status == 0, "\(signed)")
        // openssl itself finds the forged signature cryptographically sound: only the binding is wrong.
        let verified = try await ExternalProgram.run(
            tool: "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", signature.path, "-content", manifest.path,
                "-CAfile", root.path, "-purpose", "any", "-out", "/dev/null",
            ])
        #expect(verified.status == 0, "\(verified)")
        let signatureBytes = Array(try Data(contentsOf: signature))
        return try ArchiveSurgery.rewrite(carrier.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == OrderArchive.signaturePath })
            files[index].bytes = signatureBytes
        }
    }

    @Test("An archive signed with another order type's certificate is an error, naming both identifiers")
    func crossMerchantSignatureIsAnError() async throws {
        let forged = try await Self.forged()
        let report = TestPKI.verifier.verify(archiveBytes: forged, subject: "forged")
        // The order-type marker and the subject UID name the same other type: one finding, for the marker.
        let findings = report.diagnostics(ruleID: "signature.signer-order-type-mismatch")
        #expect(findings.count == 1, "\(report.diagnostics)")
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.location.jsonPointer == "/orderTypeIdentifier")
        #expect(findings.first?.message.contains(Self.victimType) == true)
        #expect(findings.first?.message.contains(Self.attackerType) == true)
        #expect(!report.isValid)
        // It is the only problem: the signature, chain and manifest are all sound.
        #expect(report.errors.map(\.ruleID) == ["signature.signer-order-type-mismatch"], "\(report.errors)")

        let validation = try OrderValidator(verifier: TestPKI.verifier).validate(archiveBytes: forged, subject: "forged")
        #expect(validation.errors.map(\.ruleID).contains("signature.signer-order-type-mismatch"), "\(validation.errors)")
        #expect(!validation.isValid)
    }

    @Test("The builder refuses to sign an order with another order type's certificate")
    func builderRefusesMismatchedIdentity() throws {
        let source = try Self.source(orderType: Self.victimType, updatedAt: "2026-11-20T10:00:00Z", url: nil)
        let builder = OrderArchiveBuilder(identity: TestPKI.identity(for: Self.attackerType))
        do {
            _ = try builder.build(source, signingTime: TestPKI.signingTime)
            Issue.record("the builder signed an order of another type")
        } catch let error as WalletOrdersError {
            #expect(error.code == .orderTypeMismatch)
            #expect(error.message.contains(Self.victimType) && error.message.contains(Self.attackerType), "\(error.message)")
        }
    }

    /// A leaf issued by the test intermediate (or by the root), for profile tests: Apple's Order
    /// Type ID profile unless told otherwise (`marker: nil` leaves the order-type marker out;
    /// `customExtensions` replace the marker and the APNs extension).
    static func leaf(
        uid: String? = victimType, keyUsage: String = "critical,digitalSignature",
        extendedKeyUsages: [String] = ["clientAuth", OrderTypeCertificateProfile.orderTypeExtendedKeyUsage],
        marker: String? = victimType, customExtensions: [(oid: String, critical: Bool, derValue: [UInt8])]? = nil,
        organization: String = DevelopmentCertificateAuthority.organization, caPathLength: Int? = nil,
        key: PrivateKey? = nil, issuedByRoot: Bool = false
    ) throws -> (X509Certificate, PrivateKey) {
        let authority = TestPKI.authority
        let key = try key ?? PrivateKey.generateRSA(bits: 2048)
        var subject: [(type: String, value: String)] = []
        if let uid { subject.append(("UID", uid)) }
        subject += [("CN", "Profile test"), ("OU", "TESTTEAM01"), ("O", organization), ("C", "US")]
        var extensions: [(oid: String, critical: Bool, derValue: [UInt8])] = [(OrderTypeCertificateProfile.pushExtension, false, [0x05, 0x00])]
        if let marker {
            extensions.insert((OrderTypeCertificateProfile.orderTypeMarker, false, OrderTypeCertificateProfile.markerValue(marker)), at: 0)
        }
        if let customExtensions { extensions = customExtensions }
        let certificate = try CertificateIssuer.issue(
            .init(
                subject: subject, notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(86_400 * 30),
                certificateAuthorityPathLength: caPathLength, keyUsage: keyUsage, extendedKeyUsages: extendedKeyUsages,
                customExtensions: extensions),
            subjectKey: key, issuer: issuedByRoot ? authority.root : authority.intermediate,
            issuerKey: issuedByRoot ? authority.rootKey : authority.intermediateKey)
        return (certificate, key)
    }

    /// A leaf in the Pass Type ID profile (pass-signing EKU and pass marker) of `organization`.
    static func passShapedLeaf(organization: String, uid: String? = victimType) throws -> (X509Certificate, PrivateKey) {
        try leaf(
            uid: uid, extendedKeyUsages: ["clientAuth", OrderTypeCertificateProfile.passTypeExtendedKeyUsage],
            customExtensions: [(OrderTypeCertificateProfile.passTypeMarker, false, [0x05, 0x00])], organization: organization)
    }

    static func ecKey(curve: String) async throws -> PrivateKey {
        let generated = try await ExternalProgram.run(
            tool: "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)"])
        #expect(generated.status == 0, "\(generated)")
        return try PrivateKey(bytes: Array(generated.standardOutput), passphrase: nil)
    }

    /// Re-signs the genuine archive's manifest with `certificate` (CMS through OpenSSL, with the test intermediate).
    static func resigned(with certificate: X509Certificate, key: PrivateKey, chain: [X509Certificate]? = nil) async throws -> [UInt8] {
        let signature = try CMSSigner.signDetached(
            genuine.manifestBytes, certificate: certificate, privateKey: key,
            additionalCertificates: chain ?? [TestPKI.authority.intermediate], signingTime: TestPKI.signingTime)
        return try ArchiveSurgery.rewrite(genuine.bytes) { files in
            let index = try #require(files.firstIndex { $0.path == OrderArchive.signaturePath })
            files[index].bytes = signature
        }
    }

    struct ProfileCase: Sendable, CustomTestStringConvertible {
        var name: String
        var ruleID: String
        var make: @Sendable () async throws -> (X509Certificate, PrivateKey)
        var testDescription: String { name }
    }

    static let profileCases: [ProfileCase] = [
        .init(name: "no Order Type ID extended key usage (a TLS client certificate)", ruleID: "certificate.leaf-extended-key-usage") {
            try leaf(extendedKeyUsages: ["clientAuth"])
        },
        .init(name: "no extended key usage at all", ruleID: "certificate.leaf-extended-key-usage") { try leaf(extendedKeyUsages: []) },
        .init(name: "basicConstraints CA:TRUE", ruleID: "certificate.leaf-is-ca") { try leaf(caPathLength: 0) },
        .init(name: "key usage without digitalSignature", ruleID: "certificate.leaf-key-usage") {
            try leaf(keyUsage: "critical,keyEncipherment")
        },
        .init(name: "RSA 1024-bit key", ruleID: "certificate.leaf-key-type") { try leaf(key: PrivateKey.generateRSA(bits: 1024)) },
        .init(name: "EC key on secp256k1", ruleID: "certificate.leaf-key-type") { try leaf(key: await ecKey(curve: "secp256k1")) },
        .init(name: "no subject UID", ruleID: "signature.signer-uid-missing") { try leaf(uid: nil) },
        .init(name: "a Pass Type ID certificate", ruleID: "certificate.pass-type-certificate") {
            try passShapedLeaf(organization: "Example Shop Inc.")
        },
        .init(name: "a development certificate in the old, pass-shaped profile", ruleID: "certificate.pass-type-certificate") {
            try passShapedLeaf(organization: DevelopmentCertificateAuthority.organization)
        },
        .init(name: "the order-type marker left out", ruleID: "certificate.leaf-order-type-marker") { try leaf(marker: nil) },
        .init(name: "an order-type marker that is not a UTF8String", ruleID: "certificate.leaf-order-type-marker") {
            // A PrintableString where Apple writes a UTF8String.
            try leaf(customExtensions: [(OrderTypeCertificateProfile.orderTypeMarker, false, [0x13, 0x03, 0x61, 0x62, 0x63])])
        },
        .init(name: "clientAuth alone, with the order-type marker", ruleID: "certificate.leaf-extended-key-usage") {
            try leaf(extendedKeyUsages: ["clientAuth"])
        },
    ]

    @Test("A signer outside the Order Type ID profile fails verification, saying which part", arguments: profileCases)
    func profileViolationIsAnError(_ profileCase: ProfileCase) async throws {
        let (certificate, key) = try await profileCase.make()
        let report = TestPKI.verifier.verify(archiveBytes: try await Self.resigned(with: certificate, key: key), subject: "profile")
        let findings = report.diagnostics(ruleID: profileCase.ruleID)
        #expect(findings.count == 1, "\(report.diagnostics)")
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.location.file == OrderArchive.signaturePath)
        #expect(!report.isValid)
    }

    @Test("A certificate outside the profile can't be loaded as a signing identity", arguments: profileCases)
    func profileViolationRefusedWhenLoading(_ profileCase: ProfileCase) async throws {
        let (certificate, key) = try await profileCase.make()
        do {
            _ = try SigningIdentity(
                certificate: certificate, privateKey: key, intermediateCandidates: [TestPKI.authority.intermediate], validAt: Date())
            Issue.record("loaded a certificate outside the profile")
        } catch let error as WalletOrdersError {
            #expect(error.code == .certificateProfile)
            #expect(error.hint?.isEmpty == false)
        }
    }

    @Test("An EC P-256 Order Type ID certificate is inside the profile: it signs and verifies cleanly")
    func ecP256IsAccepted() async throws {
        let (certificate, key) = try Self.leaf(key: await Self.ecKey(curve: "P-256"))
        let identity = try SigningIdentity(
            certificate: certificate, privateKey: key, intermediateCandidates: [TestPKI.authority.intermediate], validAt: Date())
        let built = try OrderArchiveBuilder(identity: identity)
            .build(try Self.source(orderType: Self.victimType, updatedAt: "2026-11-01T10:00:00Z", url: nil), signingTime: TestPKI.signingTime)
        let report = TestPKI.verifier.verify(archiveBytes: built.bytes, subject: "ec")
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    @Test("A leaf issued directly by the root (no WWDR intermediate) gets its own error")
    func leafIssuedByRoot() async throws {
        let (certificate, key) = try Self.leaf(issuedByRoot: true)
        let report = TestPKI.verifier.verify(
            archiveBytes: try await Self.resigned(with: certificate, key: key, chain: []), subject: "root-issued")
        let findings = report.diagnostics(ruleID: "certificate.leaf-issued-by-root")
        #expect(findings.count == 1, "\(report.diagnostics)")
        #expect(findings.first?.message.contains("Development Root CA") == true)
        #expect(!report.contains(ruleID: "signature.intermediate-missing"))
        #expect(!report.isValid)
    }

    @Test("The wrong WWDR generation in the signature: the finding names the one there and the one needed")
    func wrongIntermediateGeneration() async throws {
        let (certificate, key) = try Self.leaf()
        let report = TestPKI.verifier.verify(
            archiveBytes: try await Self.resigned(with: certificate, key: key, chain: [TestPKI.otherAuthority.intermediate]),
            subject: "wrong-generation")
        let findings = report.diagnostics(ruleID: "signature.intermediate-missing")
        #expect(findings.count == 1, "\(report.diagnostics)")
        let message = findings.first?.message ?? ""
        #expect(message.contains("G1"), "names the intermediate that is there: \(message)")
        #expect(message.contains("G4"), "names the one that issued the signer: \(message)")
        #expect(findings.first?.hint?.contains("G4") == true, "\(String(describing: findings.first?.hint))")
        #expect(!report.isValid)
    }

    @Test("Apple's and the development WWDR intermediates are not accepted as signers")
    func intermediateAsSigner() throws {
        let problems = OrderTypeCertificateProfile.problems(
            of: BundledCertificates.appleWWDRG4.profileFacts, subject: BundledCertificates.appleWWDRG4.subject)
        #expect(
            Set(problems.map(\.ruleID)) == [
                "signature.signer-uid-missing", "certificate.leaf-extended-key-usage", "certificate.leaf-order-type-marker",
                "certificate.leaf-is-ca", "certificate.leaf-key-usage",
            ])
    }

    @Test("A pass certificate is named as one; one made by an older dev-certs says to make new ones")
    func passCertificatesAreNamed() async throws {
        for (organization, expected) in [
            ("Example Shop Inc.", "Order Type ID Certificate"), (DevelopmentCertificateAuthority.organization, "wallet-orders dev-certs"),
        ] {
            let (certificate, key) = try Self.passShapedLeaf(organization: organization)
            let report = TestPKI.verifier.verify(archiveBytes: try await Self.resigned(with: certificate, key: key), subject: "pass")
            // One finding for the one mistake, not also the missing order EKU and marker.
            #expect(report.errors.map(\.ruleID) == ["certificate.pass-type-certificate"], "\(report.errors)")
            #expect(report.errors.first?.hint?.contains(expected) == true, "\(String(describing: report.errors.first?.hint))")
            do {
                _ = try SigningIdentity(
                    certificate: certificate, privateKey: key, intermediateCandidates: [TestPKI.authority.intermediate], validAt: Date())
                Issue.record("loaded a pass certificate as a signing identity")
            } catch let error as WalletOrdersError {
                #expect(error.code == .certificateProfile)
                #expect(error.message.contains("certificate.pass-type-certificate"), "\(error.message)")
                #expect(error.hint?.contains(expected) == true, "\(String(describing: error.hint))")
            }
        }
    }

    @Test("A real pass certificate's UID names a pass type: still one finding, not also the UID's mismatch")
    func passCertificateWithPassUID() async throws {
        // Seen: a pass certificate on an order gave two errors for the one mistake.
        let (certificate, key) = try Self.passShapedLeaf(organization: "Example Shop Inc.", uid: "pass.com.example.shop.coupons")
        let report = TestPKI.verifier.verify(archiveBytes: try await Self.resigned(with: certificate, key: key), subject: "pass")
        #expect(report.errors.map(\.ruleID) == ["certificate.pass-type-certificate"], "\(report.errors)")
    }

    @Test("A self-signed signer: the finding says so, and no hint names the signer itself as the intermediate to include")
    func selfSignedSigner() async throws {
        // Seen: signature.intermediate-missing told the merchant to include the leaf itself.
        let folder = try TemporaryFolder.ofTest
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder.file("key.pem").path, "-out", folder.file("cert.pem").path,
                "-days", "30", "-subj", "/CN=Self Signed Orders/UID=\(Self.victimType)/O=Example Shop Inc.",
                "-addext", "extendedKeyUsage=clientAuth,\(OrderTypeCertificateProfile.orderTypeExtendedKeyUsage)",
                "-addext", "keyUsage=critical,digitalSignature",
            ])
        #expect(made.status == 0, "\(made)")
        let key = try PrivateKey(bytes: Array(try Data(contentsOf: folder.file("key.pem"))), passphrase: nil)
        let certificate = try #require(try X509Certificate.parse(Array(try Data(contentsOf: folder.file("cert.pem")))).first)
        let report = await TestPKI.verifier.verify(archiveBytes: try Self.resigned(with: certificate, key: key), subject: "self-signed")
        #expect(!report.contains(ruleID: "signature.intermediate-missing"), "\(report.diagnostics.map(\.description))")
        let untrusted = try #require(report.diagnostics(ruleID: "certificate.untrusted").first, "\(report.diagnostics.map(\.description))")
        #expect(untrusted.message.contains("is self-signed"), "\(untrusted.message)")
        #expect(report.diagnostics.allSatisfy { !($0.hint ?? "").contains("Include") || !($0.hint ?? "").contains("Self Signed Orders") })
    }

    @Test("A subject UID naming another type than the order-type marker fails the binding, naming the UID")
    func uidDisagreeingWithMarker() async throws {
        let (certificate, key) = try Self.leaf(uid: Self.attackerType, marker: Self.victimType)
        let report = TestPKI.verifier.verify(archiveBytes: try await Self.resigned(with: certificate, key: key), subject: "uid")
        #expect(report.errors.map(\.ruleID) == ["signature.signer-uid-mismatch"], "\(report.errors)")
        #expect(report.errors.first?.message.contains(Self.attackerType) == true)
        let identity = try SigningIdentity(
            certificate: certificate, privateKey: key, intermediateCandidates: [TestPKI.authority.intermediate], validAt: Date())
        #expect(throws: WalletOrdersError(.orderTypeMismatch, "")) { try identity.checkCanSign(orderTypeIdentifier: Self.victimType) }
    }

    @Test("An intermediate without Apple's WWDR marker can't issue order signers")
    func intermediateWithoutMarker() async throws {
        let authority = TestPKI.authority
        let intermediateKey = try PrivateKey.generateRSA(bits: 2048)
        let intermediate = try CertificateIssuer.issue(
            .init(
                subject: [("C", "US"), ("O", "Unmarked CA"), ("OU", "G4"), ("CN", "Unmarked Intermediate")],
                notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(86_400 * 60),
                certificateAuthorityPathLength: 0, keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: intermediateKey, issuer: authority.root, issuerKey: authority.rootKey)
        let key = try PrivateKey.generateRSA(bits: 2048)
        let certificate = try CertificateIssuer.issue(
            .init(
                subject: [("UID", Self.victimType), ("CN", "Order Type ID: \(Self.victimType)"), ("OU", "TESTTEAM01"), ("C", "US")],
                notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(86_400 * 30),
                keyUsage: "critical,digitalSignature",
                extendedKeyUsages: ["clientAuth", OrderTypeCertificateProfile.orderTypeExtendedKeyUsage],
                customExtensions: [
                    (OrderTypeCertificateProfile.orderTypeMarker, false, OrderTypeCertificateProfile.markerValue(Self.victimType))
                ]),
            subjectKey: key, issuer: intermediate, issuerKey: intermediateKey)
        let report = TestPKI.verifier.verify(
            archiveBytes: try await Self.resigned(with: certificate, key: key, chain: [intermediate]), subject: "unmarked")
        #expect(report.errors.map(\.ruleID) == ["certificate.intermediate-marker"], "\(report.errors)")
        do {
            _ = try SigningIdentity(certificate: certificate, privateKey: key, intermediateCandidates: [intermediate], validAt: Date())
            Issue.record("loaded a signer whose intermediate lacks the WWDR marker")
        } catch let error as WalletOrdersError {
            #expect(error.code == .certificateProfile)
            #expect(error.message.contains("certificate.intermediate-marker"), "\(error.message)")
        }
    }

    @Test("The marker's value is a DER UTF8String, long-form length included, and reads back")
    func markerValueRoundTrips() {
        for text in ["order.com.example.shop", String(repeating: "o", count: 200), String(repeating: "é", count: 40_000)] {
            let value = OrderTypeCertificateProfile.markerValue(text)
            #expect(value.first == 0x0C)
            #expect(OrderTypeCertificateProfile.markerText(value) == text)
        }
        #expect(OrderTypeCertificateProfile.markerText([0x0C, 0x02, 0x61]) == nil, "short")
        #expect(OrderTypeCertificateProfile.markerText([0x0C, 0x01, 0x61, 0x00]) == nil, "trailing bytes")
        #expect(OrderTypeCertificateProfile.markerText([0x0C, 0x01, 0xFF]) == nil, "not UTF-8")
    }
}
