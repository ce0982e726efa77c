public import Foundation
public import WalletOrders

/// The signing identities the service holds, one per order type, with the files every order of
/// that type shares (a template): with them the merchant posts an `order.json` and the service
/// builds, signs and stores the archive, so the signing key lives in one place.
///
/// ``load(directory:passphrase:)`` reads a folder with one subfolder per order type identifier:
///
/// ```
/// signing/
///   order.com.example.shop/
///     order-type.pem + order-type.key.pem   (or order-type.p12)
///     wwdr-intermediate.pem                 (optional when the certificate file holds it)
///     template/                             (optional: images, xx.lproj/order.strings)
/// ```
///
/// These are the names `wallet-orders dev-certs --out signing/TYPE` writes, so a test identity is
/// one command; production files are the Order Type ID certificate exported from Keychain Access.
public struct SigningIdentities: Sendable {
    /// One order type's identity and template.
    public struct Entry: Sendable {
        /// Signs the order type's archives.
        public var identity: SigningIdentity
        /// The files every order of the type shares.
        public var template: OrderBatchTemplate

        /// Creates an entry.
        public init(identity: SigningIdentity, template: OrderBatchTemplate = OrderBatchTemplate()) {
            self.identity = identity
            self.template = template
        }
    }

    /// Order type identifier → entry.
    public var entries: [String: Entry]

    /// Identities given in memory.
    public init(_ entries: [String: Entry] = [:]) {
        self.entries = entries
    }

    /// Reads every subfolder of `directory` named after an order type (see the type's overview).
    ///
    /// - Parameter passphrase: For encrypted keys and `.p12` files (one for all).
    /// - Throws: ``WalletOrdersError`` naming the subfolder: a missing certificate or key, a
    ///   certificate for another order type than its folder's name, or the certificate's own
    ///   errors; or naming `directory` when it holds an identity's files itself (one type's folder
    ///   given in place of the folder of folders).
    public static func load(directory: URL, passphrase: PassphraseSource? = nil, validAt date: Date = Date()) throws -> SigningIdentities {
        let files = FileManager.default
        let names: [String]
        do {
            names = try files.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw WalletOrdersError(
                .invalidConfiguration, "The signing folder \(directory.path) can't be read: \(error.localizedDescription)",
                hint: "Give a folder with one subfolder per order type identifier.")
        }
        // The likeliest mistake: the folder `dev-certs --out` wrote for one type, given itself.
        // Its files are no subfolder, so it would load as no identity at all, silently.
        if let flat = ["order-type.p12", "order-type.pem", "order-type.key.pem"].first(where: { names.contains($0) }) {
            throw WalletOrdersError(
                .invalidConfiguration,
                "The signing folder \(directory.path) holds \(flat) itself; it takes one subfolder per order type, named after the order type identifier.",
                hint:
                    "Move the files into a subfolder named after their order type (\(directory.path)/ORDER_TYPE_ID/\(flat)); the folder to give is the one above them."
            )
        }
        var entries: [String: Entry] = [:]
        for name in names {
            let folder = directory.appendingPathComponent(name, isDirectory: true)
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            func file(_ name: String) -> URL? {
                let url = folder.appendingPathComponent(name)
                return files.fileExists(atPath: url.path) ? url : nil
            }
            let wwdr = file("wwdr-intermediate.pem")
            let identity: SigningIdentity
            if let p12 = file("order-type.p12") {
                identity = try SigningIdentity.load(pkcs12File: p12, passphrase: passphrase ?? .literal(""), intermediateFile: wwdr, validAt: date)
            } else if let certificate = file("order-type.pem"), let key = file("order-type.key.pem") {
                identity = try SigningIdentity.load(
                    certificateFile: certificate, privateKeyFile: key, passphrase: passphrase, intermediateFile: wwdr, validAt: date)
            } else {
                throw WalletOrdersError(
                    .invalidConfiguration, "The signing folder \(folder.path) has neither order-type.pem with order-type.key.pem nor order-type.p12.",
                    hint: "Make a test one with `wallet-orders dev-certs --order-type-id \(name) --team-id TEAM --out \(folder.path)`.")
            }
            guard identity.orderTypeIdentifier == name else {
                throw WalletOrdersError(
                    .invalidConfiguration,
                    "The certificate in \(folder.path) is for \(identity.orderTypeIdentifier ?? "no order type"), not \(name).",
                    hint: "Name each folder after the order type identifier of the certificate in it.")
            }
            let template = try file("template").map { try OrderBatchTemplate(directory: $0) } ?? OrderBatchTemplate()
            entries[name] = Entry(identity: identity, template: template)
        }
        return SigningIdentities(entries)
    }
}
