import WalletOrdersInterop

/// The file name of an order's archive in a batch's output folder, made safe from its
/// `orderIdentifier`.
///
/// The rule, stable across releases:
/// - ASCII letters, digits, `-`, `_` and `.` are kept; every other byte of the identifier's
///   UTF-8 (`/`, `\`, `%`, `~`, spaces, control characters, non-ASCII) becomes `%XX` (uppercase
///   hex), so no name holds a path separator or a control character and distinct identifiers get
///   distinct names;
/// - a leading `.` becomes `%2E`: no hidden files, and never `.` or `..`;
/// - an empty identifier becomes `%` (which the encoding never produces otherwise);
/// - a name longer than 200 bytes is cut to 183 bytes (never inside an escape) and ends with `~`
///   and the first 16 hexadecimal digits of the identifier's SHA-256;
/// - then `.order` is appended.
///
/// So `A-1001` → `A-1001.order`, `../../etc/passwd` → `%2E.%2F..%2Fetc%2Fpasswd.order`, and
/// `a/b` → `a%2Fb.order`. Names differ only when identifiers do; a file system that ignores case
/// may still equate two of them, which is why `wallet-orders build --batch` compares names
/// without case.
public enum OrderArchiveFileName {
    /// The longest name before `.order`, in bytes.
    public static let maximumStemBytes = 200

    /// The archive file name for an order with this `orderIdentifier`.
    public static func make(orderIdentifier: String) -> String {
        stem(orderIdentifier) + ".order"
    }

    static func stem(_ identifier: String) -> String {
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
