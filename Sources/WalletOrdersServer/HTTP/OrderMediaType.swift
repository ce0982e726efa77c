import Foundation
import WalletOrders

/// The media type and file name of an order archive.
enum OrderMediaType {
    /// Apple's media type for order archives.
    static let order = "application/vnd.apple.finance.order"

    /// `attachment; filename=…` with the order identifier made safe for a file name.
    static func attachment(for order: FullyQualifiedOrderIdentifier) -> String {
        let safe = String(
            order.orderIdentifier.unicodeScalars.prefix(100).map { scalar -> Character in
                let allowed = CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "-_.".unicodeScalars.contains(scalar)
                return allowed ? Character(scalar) : "_"
            })
        return "attachment; filename=\"\(safe.isEmpty ? "order" : safe).order\""
    }
}
