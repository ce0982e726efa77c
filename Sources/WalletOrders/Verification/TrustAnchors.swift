import Foundation
import WalletOrdersInterop

/// The certificates this package ships as resources: Apple's public root and the WWDR G4 intermediate.
public enum BundledCertificates {
    /// Apple Root CA (PEM), the trust anchor of every genuine order signature.
    public static var appleRootCAPEM: [UInt8] { resource("apple-root-ca") }
    /// Apple Worldwide Developer Relations Certification Authority G4 (PEM), the current intermediate.
    public static var appleWWDRG4PEM: [UInt8] { resource("apple-wwdr-g4") }

    private static func resource(_ name: String) -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "pem", subdirectory: "TrustAnchors"),
            let data = FileManager.default.contents(atPath: url.path)
        else {
            preconditionFailure("The bundled certificate \(name).pem is missing from the WalletOrders resource bundle.")
        }
        return Array(data)
    }

    static let appleRootCA: X509Certificate = try! X509Certificate.parse(appleRootCAPEM)[0]
    static let appleWWDRG4: X509Certificate = try! X509Certificate.parse(appleWWDRG4PEM)[0]
}
