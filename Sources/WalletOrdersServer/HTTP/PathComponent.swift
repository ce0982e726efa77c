/// Strict percent-decoding of one path segment (RFC 3986 §2.1): `%` must be followed by two hex
/// digits and the result must be UTF-8 without control characters. Identifiers are taken exactly
/// as decoded: no case folding, no normalization, no UUID assumption.
enum PathComponent {
    /// The longest decoded segment accepted, in bytes (order and type identifiers are far shorter).
    static let maximumBytes = 1_024

    /// The decoded segment, or `nil` when it doesn't decode.
    static func decode(_ raw: some StringProtocol) -> String? {
        let input = Array(raw.utf8)
        guard !input.isEmpty, input.count <= maximumBytes * 3 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        guard isServable(bytes), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return text
    }

    /// Whether a path segment can carry `identifier`: at most ``maximumBytes`` of UTF-8 and no
    /// control character. The merchant API refuses an order whose identifiers fail this, so that
    /// every order stored is one Wallet's requests can name.
    static func isServable(_ identifier: some Collection<UInt8>) -> Bool {
        !identifier.isEmpty && identifier.count <= maximumBytes && !identifier.contains { $0 < 0x20 || $0 == 0x7F }
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit (0-9, A-F, a-f).
    var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}
