import WalletOrdersInterop

/// The file name of an archive in a batch's output folder, made safe from the identifier that
/// tells it from the others (an order's `orderIdentifier`, a pass's `serialNumber`), with the
/// rule `OrderArchiveFileName` documents, then `.order` or `.pkpass`.
public enum ArchiveFileName {
    /// The longest name before the extension, in bytes.
    public static let maximumStemBytes = 200

    /// The file name for the archive of `kind` with this identifier.
    public static func make(identifier: String, kind: ArchiveKind) -> String {
        stem(identifier) + "." + kind.fileExtension
    }

    /// The identifier made safe as a file name, without the extension.
    package static func stem(_ identifier: String) -> String {
        if identifier.isEmpty { return "%" }
        var out: [UInt8] = []
        out.reserveCapacity(identifier.utf8.count)
        var boundaries: [Int] = []  // where each encoded byte starts, to cut between escapes
        let hex = Array("0123456789ABCDEF".utf8)
        for (position, byte) in identifier.utf8.enumerated() {
            boundaries.append(out.count)
            let keep =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && position > 0)
            if keep {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        if out.count > maximumStemBytes {
            let limit = maximumStemBytes - 17
            let cut = boundaries.last { $0 <= limit } ?? 0
            out = Array(out[..<cut]) + Array("~".utf8) + Array(SHA256.hexHash(Array(identifier.utf8)).prefix(16).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
