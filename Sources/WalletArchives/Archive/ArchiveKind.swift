/// The two kinds of signed Wallet archive this package reads and writes: an order (`.order`,
/// what FinanceKit's `saveOrder(signedArchive:)` takes) and a pass (`.pkpass`).
///
/// They share the container: a zip with a content file, `manifest.json` (a hash of every other
/// file) and `signature` (a detached CMS signature of the manifest by the type's certificate).
/// What differs is named here: the content file, the manifest's hash, the certificate and the
/// words messages use.
public enum ArchiveKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A Wallet order (`order.json`, SHA-256 manifest, Order Type ID certificate).
    case order
    /// A Wallet pass (`pass.json`, SHA-1 manifest, Pass Type ID certificate).
    case pass

    /// `manifest.json`, the hash of every other file.
    public static let manifestPath = "manifest.json"
    /// `signature`, the detached CMS signature of `manifest.json`.
    public static let signaturePath = "signature"

    /// The content file at the archive's root: `order.json` or `pass.json`.
    public var contentPath: String {
        switch self {
        case .order: "order.json"
        case .pass: "pass.json"
        }
    }

    /// The file extension, without the dot: `order` or `pkpass`.
    public var fileExtension: String {
        switch self {
        case .order: "order"
        case .pass: "pkpass"
        }
    }

    /// The MIME type to serve archives of this kind with.
    public var mimeType: String {
        switch self {
        case .order: "application/vnd.apple.finance.order"
        case .pass: "application/vnd.apple.pkpass"
        }
    }

    /// The hash `manifest.json` lists for every file: SHA-256 for orders, SHA-1 for passes
    /// (Apple's Building a Pass; every pass builder, Apple's own included, writes SHA-1).
    public var manifestHash: Manifest.HashAlgorithm {
        switch self {
        case .order: .sha256
        case .pass: .sha1
        }
    }

    /// The key of the content file that names the type the certificate is issued for.
    public var typeIdentifierKey: String {
        switch self {
        case .order: "orderTypeIdentifier"
        case .pass: "passTypeIdentifier"
        }
    }

    /// The certificate Apple issues to sign this kind: `Order Type ID` or `Pass Type ID`.
    public var certificateName: String {
        switch self {
        case .order: "Order Type ID"
        case .pass: "Pass Type ID"
        }
    }

    /// `order` or `pass`, as messages say it.
    public var noun: String { rawValue }

    /// `orders` or `passes`.
    public var plural: String {
        switch self {
        case .order: "orders"
        case .pass: "passes"
        }
    }

    /// `an order` or `a pass`.
    public var withArticle: String {
        switch self {
        case .order: "an order"
        case .pass: "a pass"
        }
    }

    public var description: String { rawValue }

    /// The three files at the root of every archive of this kind.
    public var requiredPaths: [String] { [contentPath, Self.manifestPath, Self.signaturePath] }
}

extension String {
    /// The string with its first letter in upper case (`an order` → `An order`).
    package var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
