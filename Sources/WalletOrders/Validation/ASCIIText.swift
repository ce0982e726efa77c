/// String checks the rules make on every amount and code, with a byte-level path for ASCII text
/// (what valid orders hold) that gives exactly the Character-level answer, and the
/// Character-level code for anything else.
enum ASCIIText {
    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `text.count == count && text.allSatisfy(\.isUppercase)`.
    static func isUppercaseLetters(_ text: String, count: Int) -> Bool {
        guard isASCII(text) else { return text.count == count && text.allSatisfy(\.isUppercase) }
        // In ASCII, exactly A–Z are uppercase.
        return text.utf8.count == count && text.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A }
    }

    /// The number of characters after the first `.` when there is one and no `e`/`E`; else `nil`.
    static func decimalsWithoutExponent(_ text: String) -> Int? {
        // CR LF is one Character but two bytes: such text takes the Character path.
        guard isASCII(text), !text.utf8.contains(0x0D) else {
            guard let dot = text.firstIndex(of: "."), !text.contains("e"), !text.contains("E") else { return nil }
            return text[text.index(after: dot)...].count
        }
        let bytes = text.utf8
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")),
            !bytes.contains(UInt8(ascii: "e")), !bytes.contains(UInt8(ascii: "E"))
        else { return nil }
        return bytes.distance(from: dot, to: bytes.endIndex) - 1
    }
}
