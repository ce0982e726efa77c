import Foundation
import Testing
import WalletOrders
import WalletOrdersInterop
import WalletOrdersTestSupport

/// The Order Type ID profile judged against Apple's own artifacts: the signing certificate of a
/// production order archive (`Tests/Fixtures/Apple/`) and Apple's WWDR G4 intermediate and root
/// (bundled). Certificates the project makes itself can share its mistakes; these can't.
@Suite struct RealCertificateTests {
    static let orderType = "order.com.anybill.receipt.default"
    static let real: X509Certificate = try! X509Certificate.parse(
        Array(try! Data(contentsOf: Repository.tests.appendingPathComponent("Fixtures/Apple/real-order-type-id-certificate.pem"))))[0]
    /// Inside the real certificate's validity (2024-12-03 to 2026-01-02).
    static let whileValid = ISO8601DateFormatter().date(from: "2025-06-01T12:00:00Z")!

    @Test("The real Order Type ID certificate is inside the profile, and names its order type in its UID and marker")
    func realCertificateMeetsTheProfile() {
        let facts = Self.real.profileFacts
        #expect(OrderTypeCertificateProfile.problems(of: facts, subject: Self.real.subject).isEmpty)
        #expect(facts.extendedKeyUsages == [OrderTypeCertificateProfile.clientAuthentication, OrderTypeCertificateProfile.orderTypeExtendedKeyUsage])
        #expect(!OrderTypeCertificateProfile.isPassTypeCertificate(facts))
        let names = OrderTypeCertificateProfile.SignerNames(facts, subject: Self.real.subject)
        #expect(names.uid == Self.orderType)
        #expect(names.orderTypeMarker == Self.orderType)
        #expect(facts.extensionValue(OrderTypeCertificateProfile.orderTypeMarker) == OrderTypeCertificateProfile.markerValue(Self.orderType))
        #expect(facts.extensionValue(OrderTypeCertificateProfile.pushExtension) == [0x05, 0x00])
        let markerExtension = facts.extensions.first { $0.oid == OrderTypeCertificateProfile.orderTypeMarker }
        #expect(markerExtension?.isCritical == false)
    }

    @Test("The real certificate binds its own order type and no other")
    func realCertificateBindsItsType() {
        let names = OrderTypeCertificateProfile.SignerNames(Self.real.profileFacts, subject: Self.real.subject)
        #expect(OrderTypeCertificateProfile.bindingProblems(of: names, orderTypeIdentifier: Self.orderType).isEmpty)
        let other = OrderTypeCertificateProfile.bindingProblems(of: names, orderTypeIdentifier: "order.com.example.shop")
        #expect(other.map(\.ruleID) == ["signature.signer-order-type-mismatch"])
        #expect(other.first?.message.contains(Self.orderType) == true)
    }

    @Test("Apple's WWDR G4 issued the real certificate and carries the intermediate marker; Apple's root anchors the chain")
    func realChain() throws {
        let wwdr = BundledCertificates.appleWWDRG4
        #expect(Self.real.isIssued(by: wwdr))
        #expect(OrderTypeCertificateProfile.intermediateProblem(of: wwdr.profileFacts, subject: wwdr.subject) == nil)
        let store = try X509TrustStore(anchors: [BundledCertificates.appleRootCA])
        #expect(store.verify(Self.real, intermediates: [wwdr], at: Self.whileValid).isValid)
        let today = store.verify(Self.real, intermediates: [wwdr], at: Date())
        #expect(!today.isValid && today.isValidityError, "expired on 2026-01-02")
    }

    @Test("Verifying the real chain reports only the certificate's expiry at today's date")
    func verifierOnRealChain() throws {
        let verifier = try OrderArchiveVerifier()
        let signer = verifier.cache.certificate(Self.real)
        let wwdr = verifier.cache.certificate(BundledCertificates.appleWWDRG4)
        #expect(signer.profileProblems(for: .order).isEmpty)

        // Signed while valid, checked today: Wallet's answer is the archive's; the warning is the expiry.
        var signedWhileValid = ValidationReport(subject: "real")
        verifier.checkChain(signer: signer, certificates: [signer, wwdr], signingTime: Self.whileValid, now: Date(), into: &signedWhileValid)
        #expect(signedWhileValid.errors.isEmpty, "\(signedWhileValid.errors)")
        #expect(signedWhileValid.warnings.map(\.ruleID) == ["certificate.expired-now"], "\(signedWhileValid.diagnostics)")

        // Signed today: the expiry is the one error.
        var signedToday = ValidationReport(subject: "real")
        verifier.checkChain(signer: signer, certificates: [signer, wwdr], signingTime: Date(), now: Date(), into: &signedToday)
        #expect(signedToday.errors.map(\.ruleID) == ["certificate.expired-at-signing"], "\(signedToday.errors)")
    }
}
