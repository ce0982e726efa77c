import WalletOrders

/// The media type and file name of an archive served.
enum ArchiveMediaType {
    /// `attachment; filename=…` with `name` (the order identifier, the serial number) made safe
    /// for a file name: ASCII letters, digits, `-`, `_` and `.` kept, anything else `_`, at most
    /// 100 characters; then the kind's extension.
    static func attachment(named name: String, kind: ArchiveKind) -> String {
        var safe = [UInt8]()
        safe.reserveCapacity(min(name.utf8.count, 100))
        for scalar in name.unicodeScalars.prefix(100) {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F: safe.append(UInt8(scalar.value))
            default: safe.append(UInt8(ascii: "_"))
            }
        }
        let base = safe.isEmpty ? kind.rawValue : String(decoding: safe, as: UTF8.self)
        return "attachment; filename=\"\(base).\(kind.fileExtension)\""
    }
}

/// The media type and file name of an order archive.
enum OrderMediaType {
    /// Apple's media type for order archives.
    static let order = ArchiveKind.order.mimeType

    /// ``ArchiveMediaType/attachment(named:kind:)`` for the order's identifier.
    static func attachment(for order: FullyQualifiedOrderIdentifier) -> String {
        ArchiveMediaType.attachment(named: order.orderIdentifier, kind: .order)
    }
}
