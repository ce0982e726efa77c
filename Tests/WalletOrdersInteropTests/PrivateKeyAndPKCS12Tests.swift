import Foundation
import Testing
import WalletOrdersInterop
import WalletOrdersTestSupport

@Suite(.temporaryFolder) struct PrivateKeyTests {
    @Test("An unencrypted PKCS #8 PEM key loads back without a passphrase")
    func unencryptedRoundTrip() throws {
        let chain = try TestChain.get()
        let pem = try chain.leafKey.pemBytes()
        let text = String(decoding: pem, as: UTF8.self)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(!PrivateKey.isEncryptedPEM(pem))
        let loaded = try PrivateKey(bytes: pem, passphrase: nil)
        #expect(loaded.keyDescription == "RSA 2048-bit")
        #expect(chain.leaf.matches(loaded))
        #expect(!chain.intermediate.matches(loaded))
    }

    @Test("An encrypted PEM key opens with its passphrase")
    func encryptedRoundTrip() throws {
        let chain = try TestChain.get()
        let pem = try chain.leafKey.pemBytes(passphrase: Array("correct horse".utf8))
        let text = String(decoding: pem, as: UTF8.self)
        #expect(text.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"))
        #expect(PrivateKey.isEncryptedPEM(pem))
        let loaded = try PrivateKey(bytes: pem, passphrase: Array("correct horse".utf8))
        #expect(chain.leaf.matches(loaded))
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("A wrong passphrase is reported as one, with the OpenSSL queue drained")
    func wrongPassphrase() throws {
        let chain = try TestChain.get()
        let pem = try chain.leafKey.pemBytes(passphrase: Array("correct horse".utf8))
        let error = try #require(throws: OpenSSLError.self) {
            try PrivateKey(bytes: pem, passphrase: Array("battery staple".utf8))
        }
        #expect(error.isWrongPassphrase)
        #expect(error.function == "PEM_read_bio_PrivateKey")
        #expect(error.context == "The passphrase does not decrypt the private key")
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("An encrypted key without a passphrase says so")
    func missingPassphrase() throws {
        let chain = try TestChain.get()
        let pem = try chain.leafKey.pemBytes(passphrase: Array("correct horse".utf8))
        let error = try #require(throws: OpenSSLError.self) { try PrivateKey(bytes: pem, passphrase: nil) }
        #expect(error.context == "The private key is encrypted and no passphrase was given")
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("Bytes that are no key at all fail without claiming a wrong passphrase")
    func notAKey() throws {
        let error = try #require(throws: OpenSSLError.self) {
            try PrivateKey(bytes: Array("definitely not a key".utf8), passphrase: nil)
        }
        #expect(error.function == "d2i_AutoPrivateKey")
        #expect(error.context == "The data is not a PEM or DER private key")
        #expect(!error.isWrongPassphrase)
        #expect(openSSLErrorQueueIsEmpty())
    }
}

/// `PKCS12.Encryption` with what `openssl pkcs12 -info` reports for it.
struct PKCS12Case: Sendable, CustomTestStringConvertible {
    var encryption: PKCS12.Encryption
    var name: String
    var opensslFlags: [String]
    var expectedInfo: [String]
    /// The MAC line the documentation promises.
    var expectedMAC: String
    var testDescription: String { name }

    static let all: [PKCS12Case] = [
        PKCS12Case(
            encryption: .modern, name: "modern (AES-256, SHA-256 MAC)", opensslFlags: [],
            expectedInfo: [
                "PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC", "Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC",
            ],
            expectedMAC: "MAC: sha256"),
        PKCS12Case(
            encryption: .legacy, name: "legacy (RC2-40 / 3DES, SHA-1 MAC)", opensslFlags: ["-legacy"],
            expectedInfo: [
                "PKCS7 Encrypted data: pbeWithSHA1And40BitRC2-CBC", "Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC",
            ],
            expectedMAC: "MAC: sha1"),
    ]
}

@Suite(.temporaryFolder) struct PKCS12Tests {
    static let passphrase = "p12 secret"

    @Test("make then parse returns the key, the certificate and the other certificates", arguments: PKCS12Case.all)
    func roundTrip(_ testCase: PKCS12Case) throws {
        let chain = try TestChain.get()
        let p12 = try PKCS12.make(
            privateKey: chain.leafKey, certificate: chain.leaf, otherCertificates: [chain.intermediate],
            passphrase: Self.passphrase, friendlyName: "Order Type ID: \(TestChain.leafUID)",
            encryption: testCase.encryption)
        #expect(p12.first == 0x30)
        let contents = try PKCS12.parse(p12, passphrase: Self.passphrase)
        #expect(contents.certificate == chain.leaf)
        #expect(chain.leaf.matches(contents.privateKey))
        #expect(contents.otherCertificates == [chain.intermediate])
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("The openssl CLI sees the expected algorithms and friendly name", arguments: PKCS12Case.all)
    func opensslAgrees(_ testCase: PKCS12Case) async throws {
        let chain = try TestChain.get()
        let p12 = try PKCS12.make(
            privateKey: chain.leafKey, certificate: chain.leaf, otherCertificates: [chain.intermediate],
            passphrase: Self.passphrase, friendlyName: "Order Type ID: \(TestChain.leafUID)",
            encryption: testCase.encryption)
        let folder = try TemporaryFolder.ofTest
        let file = try folder.write(p12, to: "identity.p12")
        let result = try await ExternalProgram.run(
            tool: "openssl",
            ["pkcs12", "-in", file.path, "-info", "-nokeys", "-passin", "pass:\(Self.passphrase)"]
                + testCase.opensslFlags)
        #expect(result.status == 0, "\(result.errorOutput)")
        let info = result.errorOutput + result.output
        for expected in testCase.expectedInfo {
            #expect(info.contains(expected), "missing '\(expected)' in:\n\(info)")
        }
        #expect(info.contains(testCase.expectedMAC), "\(info)")
        #expect(result.output.contains("friendlyName: Order Type ID: \(TestChain.leafUID)"))
        #expect(result.output.contains(chain.intermediate.pemString))
    }

    @Test("A wrong passphrase is a MAC failure flagged as isWrongPassphrase", arguments: PKCS12Case.all)
    func wrongPassphrase(_ testCase: PKCS12Case) throws {
        let chain = try TestChain.get()
        let p12 = try PKCS12.make(
            privateKey: chain.leafKey, certificate: chain.leaf, otherCertificates: [], passphrase: Self.passphrase,
            friendlyName: "x", encryption: testCase.encryption)
        let error = try #require(throws: OpenSSLError.self) { try PKCS12.parse(p12, passphrase: "not it") }
        #expect(error.isWrongPassphrase)
        #expect(error.function == "PKCS12_verify_mac")
        #expect(error.context == "The passphrase does not open the .p12 file")
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("An empty passphrase works both ways")
    func emptyPassphrase() throws {
        let chain = try TestChain.get()
        let p12 = try PKCS12.make(
            privateKey: chain.leafKey, certificate: chain.leaf, otherCertificates: [chain.intermediate], passphrase: "",
            friendlyName: "empty")
        let contents = try PKCS12.parse(p12, passphrase: "")
        #expect(contents.certificate == chain.leaf)
        #expect(contents.otherCertificates == [chain.intermediate])
    }

    @Test("A .p12 written by the openssl CLI opens, with the key matching the certificate")
    func opensslMadePKCS12() async throws {
        let chain = try TestChain.get()
        let folder = try TemporaryFolder.ofTest
        let certificate = try folder.write(chain.leaf.pemString.utf8, to: "cert.pem")
        let key = try folder.write(try chain.leafKey.pemBytes(), to: "key.pem")
        let chainFile = try folder.write(chain.intermediate.pemString.utf8, to: "chain.pem")
        let p12 = folder.file("cli.p12")
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "pkcs12", "-export", "-legacy", "-in", certificate.path, "-inkey", key.path, "-certfile",
                chainFile.path,
                "-passout", "pass:\(Self.passphrase)", "-out", p12.path,
            ])
        #expect(made.status == 0, "\(made.errorOutput)")
        let contents = try PKCS12.parse(Array(try Data(contentsOf: p12)), passphrase: Self.passphrase)
        #expect(contents.certificate == chain.leaf)
        #expect(chain.leaf.matches(contents.privateKey))
        #expect(contents.otherCertificates == [chain.intermediate])
    }

    @Test("A .p12 without a MAC (openssl pkcs12 -nomac) is not mistaken for a wrong passphrase")
    func pkcs12WithoutMAC() async throws {
        let chain = try TestChain.get()
        let folder = try TemporaryFolder.ofTest
        let certificate = try folder.write(chain.leaf.pemString.utf8, to: "cert.pem")
        let key = try folder.write(try chain.leafKey.pemBytes(), to: "key.pem")
        let p12 = folder.file("nomac.p12")
        let made = try await ExternalProgram.run(
            tool: "openssl",
            [
                "pkcs12", "-export", "-nomac", "-in", certificate.path, "-inkey", key.path, "-passout",
                "pass:\(Self.passphrase)", "-out", p12.path,
            ])
        #expect(made.status == 0, "\(made.errorOutput)")
        let bytes = Array(try Data(contentsOf: p12))
        let contents = try PKCS12.parse(bytes, passphrase: Self.passphrase)
        #expect(contents.certificate == chain.leaf)
        // Without a MAC, a wrong passphrase shows as a decryption failure, still named as such.
        let wrong = try #require(throws: OpenSSLError.self) { try PKCS12.parse(bytes, passphrase: "not it") }
        #expect(wrong.isWrongPassphrase, "\(wrong)")
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("Bytes that are not a .p12 fail with a context, not as a wrong passphrase")
    func notPKCS12() throws {
        let error = try #require(throws: OpenSSLError.self) {
            try PKCS12.parse(Array("PK\u{3}\u{4} not a p12".utf8), passphrase: "x")
        }
        #expect(error.function == "d2i_PKCS12")
        #expect(error.context == "The file is not a PKCS #12 (.p12) archive")
        #expect(!error.isWrongPassphrase)
        #expect(openSSLErrorQueueIsEmpty())
    }

    @Test("The legacy provider is available on this machine")
    func legacyProvider() {
        #expect(PKCS12.loadLegacyProvider())
    }
}
