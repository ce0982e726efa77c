import Foundation
import Testing
import WalletOrders
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Loading a signing identity: every way it can go wrong has its own code and message.
@Suite(.temporaryFolder) struct SigningIdentityTests {
    static let typeIdentifier = "order.com.example.identity-tests"
    static let certificate = TestPKI.certificate(for: typeIdentifier)
    static let certificatePEM = Array(certificate.certificatePEM.utf8)
    static let intermediatePEM = Array(TestPKI.authority.intermediateCertificatePEM.utf8)

    func expectError(
        _ code: WalletOrdersError.Code, containing text: String, _ body: () throws -> SigningIdentity
    ) {
        do {
            let identity = try body()
            Issue.record("expected \(code), loaded \(identity.certificateSummary)")
        } catch let error as WalletOrdersError {
            #expect(error.code == code, "\(error.detailedDescription)")
            #expect(error.message.contains(text), "message: \(error.message)")
            #expect(error.hint?.isEmpty == false, "every identity error says what to do")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("An unencrypted PEM key loads and exposes the certificate's UID and Team ID")
    func plainPEM() throws {
        let identity = try SigningIdentity(
            certificate: Self.certificatePEM, privateKey: Array(try Self.certificate.privateKeyPEM().utf8),
            intermediate: Self.intermediatePEM)
        #expect(identity.orderTypeIdentifier == Self.typeIdentifier)
        #expect(identity.teamIdentifier == "TESTTEAM01")
        #expect(identity.intermediateSummary.organizationalUnit == "G4")
        #expect(throws: Never.self) { try identity.checkCanSign(orderTypeIdentifier: Self.typeIdentifier) }
        #expect { try identity.checkCanSign(orderTypeIdentifier: "order.com.other") } throws: { error in
            (error as? WalletOrdersError)?.code == .orderTypeMismatch
        }
    }

    @Test("An encrypted PEM key loads with its passphrase from the environment")
    func encryptedPEMFromEnvironment() throws {
        // The passphrase is PATH's value: a variable the process already has. Setting one here
        // (setenv) would race with the other tests starting programs, which copy the environment.
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        try #require(!path.isEmpty && path.utf8.count < 1_000)
        let key = Array(try Self.certificate.privateKeyPEM(passphrase: path).utf8)
        #expect(SigningIdentity.isEncryptedPrivateKey(key))
        let folder = try TemporaryFolder.ofTest
        let identity = try SigningIdentity.load(
            certificateFile: try folder.write(Self.certificatePEM, to: "cert.pem"),
            privateKeyFile: try folder.write(key, to: "key.pem"),
            passphrase: .environment("PATH"),
            intermediateFile: try folder.write(Self.intermediatePEM, to: "wwdr.pem"))
        #expect(identity.orderTypeIdentifier == Self.typeIdentifier)
        // And from a file whose first line is the passphrase.
        let passFile = try folder.write(Array("correct horse\n".utf8), to: "pass.txt")
        #expect(try PassphraseSource.file(passFile).resolve() == "correct horse")
    }

    @Test("An encrypted key without a passphrase asks for one")
    func passphraseMissing() throws {
        let key = Array(try Self.certificate.privateKeyPEM(passphrase: "secret").utf8)
        expectError(.passphraseRequired, containing: "encrypted") {
            try SigningIdentity(certificate: Self.certificatePEM, privateKey: key, intermediate: Self.intermediatePEM)
        }
    }

    @Test("A wrong passphrase for a PEM key is named as such")
    func wrongPEMPassphrase() throws {
        let key = Array(try Self.certificate.privateKeyPEM(passphrase: "secret").utf8)
        expectError(.wrongPassphrase, containing: "passphrase does not decrypt") {
            try SigningIdentity(certificate: Self.certificatePEM, privateKey: key, passphrase: "guess", intermediate: Self.intermediatePEM)
        }
    }

    @Test("A legacy RC2/3DES .p12, as older Keychain exports are, loads with its intermediate inside")
    func legacyPKCS12() async throws {
        let p12 = try Self.certificate.pkcs12(passphrase: "export", legacyEncryption: true)
        let folder = try TemporaryFolder.ofTest
        let path = try folder.write(p12, to: "legacy.p12")
        // Independent check that it really is legacy-encrypted: OpenSSL 3 refuses it without -legacy.
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        let plain = try await ExternalProgram.run(openssl, ["pkcs12", "-in", path.path, "-noout", "-passin", "pass:export"])
        #expect(plain.status != 0)
        let legacy = try await ExternalProgram.run(openssl, ["pkcs12", "-legacy", "-in", path.path, "-noout", "-passin", "pass:export"])
        #expect(legacy.status == 0, "\(legacy.errorOutput)")

        let identity = try SigningIdentity(pkcs12: p12, passphrase: "export", intermediate: nil)
        #expect(identity.orderTypeIdentifier == Self.typeIdentifier)
        #expect(identity.intermediateSummary.commonName == "wallet-orders Development WWDR Intermediate (TEST ONLY)")
    }

    @Test("A modern AES .p12 loads too")
    func modernPKCS12() throws {
        let identity = try SigningIdentity(
            pkcs12: try Self.certificate.pkcs12(passphrase: ""), passphrase: "", intermediate: Self.intermediatePEM)
        #expect(identity.certificateSummary.commonName == "Order Type ID: \(Self.typeIdentifier)")
    }

    @Test("A wrong .p12 passphrase is named as such")
    func wrongPKCS12Passphrase() throws {
        let p12 = try Self.certificate.pkcs12(passphrase: "export", legacyEncryption: true)
        expectError(.wrongPassphrase, containing: ".p12") {
            try SigningIdentity(pkcs12: p12, passphrase: "wrong", intermediate: nil)
        }
    }

    @Test("A key that belongs to another certificate is refused")
    func mismatchedKey() throws {
        let other = TestPKI.certificate(for: "order.com.example.someone-else")
        expectError(.keyCertificateMismatch, containing: "does not belong") {
            try SigningIdentity(
                certificate: Self.certificatePEM, privateKey: Array(try other.privateKeyPEM().utf8),
                intermediate: Self.intermediatePEM)
        }
    }

    @Test("An intermediate that did not issue the certificate is refused, naming both issuers (G1/G4 mix-up)")
    func wrongIntermediate() throws {
        let otherIntermediate = Array(TestPKI.otherAuthority.intermediateCertificatePEM.utf8)
        expectError(.intermediateMismatch, containing: "OU=G1") {
            try SigningIdentity(
                certificate: Self.certificatePEM, privateKey: Array(try Self.certificate.privateKeyPEM().utf8),
                intermediate: otherIntermediate)
        }
        do {
            _ = try SigningIdentity(
                certificate: Self.certificatePEM, privateKey: Array(try Self.certificate.privateKeyPEM().utf8),
                intermediate: otherIntermediate)
        } catch let error as WalletOrdersError {
            #expect(error.message.contains("OU=G4"), "names the certificate's real issuer: \(error.message)")
            #expect(error.hint?.contains("generations differ") == true, "\(error.hint ?? "")")
        }
    }

    @Test("No intermediate at all is refused with a pointer to --wwdr")
    func missingIntermediate() throws {
        expectError(.intermediateMissing, containing: "No WWDR intermediate") {
            try SigningIdentity(
                certificate: Self.certificatePEM, privateKey: Array(try Self.certificate.privateKeyPEM().utf8), intermediate: nil)
        }
    }

    @Test("An expired certificate (made at test time) is refused with its expiry date")
    func expiredCertificate() throws {
        let expired = try TestPKI.authority.issueOrderTypeCertificate(
            orderTypeIdentifier: Self.typeIdentifier, teamIdentifier: "TESTTEAM01",
            validFrom: Date().addingTimeInterval(-3 * 86_400), validFor: 86_400)
        expectError(.certificateNotValid, containing: "expired on") {
            try SigningIdentity(
                certificate: Array(expired.certificatePEM.utf8), privateKey: Array(try expired.privateKeyPEM().utf8),
                intermediate: Self.intermediatePEM)
        }
    }

    @Test("Building with a signing time outside the certificate's validity is refused")
    func signingTimeOutsideValidity() throws {
        let identity = try Self.certificate.signingIdentity()
        let source = OrderSource(files: ["order.json": Array(minimalOrderJSON(typeIdentifier: Self.typeIdentifier).utf8)])
        #expect(throws: WalletOrdersError(.certificateNotValid, "")) {
            try OrderArchiveBuilder(identity: identity).build(source, signingTime: Date(timeIntervalSince1970: 0))
        }
    }

    @Test("Garbage instead of a certificate or key gets a specific error")
    func garbageInputs() throws {
        expectError(.invalidCertificate, containing: "signing certificate") {
            try SigningIdentity(certificate: Array("hello".utf8), privateKey: [], intermediate: nil)
        }
        expectError(.invalidPrivateKey, containing: "private key") {
            try SigningIdentity(certificate: Self.certificatePEM, privateKey: Array("hello".utf8), intermediate: nil)
        }
        expectError(.invalidPKCS12, containing: "PKCS #12") {
            try SigningIdentity(pkcs12: Array("hello".utf8), passphrase: "", intermediate: nil)
        }
    }
}

/// The minimal valid order of spec §3.20.
func minimalOrderJSON(typeIdentifier: String, orderIdentifier: String = "A-1") -> String {
    """
    { "schemaVersion": 1, "orderTypeIdentifier": "\(typeIdentifier)", "orderIdentifier": "\(orderIdentifier)",
      "orderType": "ecommerce", "status": "open",
      "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z",
      "orderManagementURL": "https://shop.example.com/orders/A-1",
      "merchant": { "displayName": "Shop", "merchantIdentifier": "merchant.com.example.shop",
                    "url": "https://shop.example.com/" } }
    """
}
