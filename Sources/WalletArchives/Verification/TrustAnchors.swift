import Foundation
package import WalletOrdersInterop

/// The certificates compiled into this package: Apple's public root and the WWDR G4 intermediate.
public enum BundledCertificates {
    /// Apple Root CA (PEM), the trust anchor of every genuine order signature.
    public static var appleRootCAPEM: [UInt8] { resource("apple-root-ca") }
    /// Apple Worldwide Developer Relations Certification Authority G4 (PEM), the current intermediate.
    public static var appleWWDRG4PEM: [UInt8] { resource("apple-wwdr-g4") }

    private static func resource(_ name: String) -> [UInt8] {
        guard let bytes = EmbeddedResources.bytes("TrustAnchors/\(name).pem") else {
            preconditionFailure("The certificate \(name).pem is not embedded in WalletOrders; run `make resources`.")
        }
        return bytes
    }

    package static let appleRootCA: X509Certificate = try! X509Certificate.parse(appleRootCAPEM)[0]
    package static let appleWWDRG4: X509Certificate = try! X509Certificate.parse(appleWWDRG4PEM)[0]
}
