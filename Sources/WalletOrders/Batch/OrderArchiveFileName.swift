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
    public static let maximumStemBytes = ArchiveFileName.maximumStemBytes

    /// The archive file name for an order with this `orderIdentifier`.
    public static func make(orderIdentifier: String) -> String {
        ArchiveFileName.make(identifier: orderIdentifier, kind: .order)
    }

    static func stem(_ identifier: String) -> String { ArchiveFileName.stem(identifier) }
}
