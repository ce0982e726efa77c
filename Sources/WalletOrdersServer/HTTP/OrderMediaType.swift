import WalletOrders

/// The media type and file name of an order archive.
enum OrderMediaType {
    /// Apple's media type for order archives.
    static let order = "application/vnd.apple.finance.order"

    /// `attachment; filename=…` with the order identifier made safe for a file name: ASCII letters,
    /// digits, `-`, `_` and `.` kept, anything else `_`, at most 100 characters.
    static func attachment(for order: FullyQualifiedOrderIdentifier) -> String {
        var safe = [UInt8]()
        safe.reserveCapacity(min(order.orderIdentifier.utf8.count, 100))
        for scalar in order.orderIdentifier.unicodeScalars.prefix(100) {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F: safe.append(UInt8(scalar.value))
            default: safe.append(UInt8(ascii: "_"))
            }
        }
        return "attachment; filename=\"\(safe.isEmpty ? "order" : String(decoding: safe, as: UTF8.self)).order\""
    }
}
