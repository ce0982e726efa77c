import Foundation
import WalletOrdersInterop
import WalletOrdersJSON

/// What a reader scans or taps: each barcode's message in its `messageEncoding` (passes
/// specification §3.5) and the NFC payload (§3.7).
enum PassBarcodeRules {
    static func check(_ root: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        for (index, barcode) in (root["barcodes"]?.elements ?? []).enumerated() where barcode.members != nil {
            checkEncoding(barcode, pointer: "/barcodes/\(index)", fatal: false, context: context, into: &findings)
        }
        if let barcode = root["barcode"], barcode.members != nil {
            checkEncoding(barcode, pointer: "/barcode", fatal: true, context: context, into: &findings)
        }
        if let nfc = root["nfc"], nfc.members != nil { checkNFC(nfc, context: context, into: &findings) }
    }

    /// The characters a character set can encode, as far as this check knows them.
    enum Repertoire {
        /// Every Unicode scalar (UTF-8, UTF-16, UTF-32 and their forms).
        case unicode
        /// U+0000 to U+007F.
        case ascii
        /// U+0000 to U+00FF.
        case latin1
        /// Windows-1252: Latin-1 with 27 printable characters where Latin-1 has C1 controls.
        case windows1252
        /// A character set IANA registers whose repertoire this check doesn't hold.
        case unchecked
    }

    /// IANA character set names and aliases (lower-cased; the IANA registry "Character Sets"),
    /// those Wallet's barcodes use with their repertoire and the other common ones unchecked.
    static let characterSets: [String: Repertoire] = {
        var sets: [String: Repertoire] = [:]
        for name in ["utf-8", "utf8", "csutf8", "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-32be", "utf-32le", "csutf16", "csutf32"] {
            sets[name] = .unicode
        }
        for name in [
            "us-ascii", "ascii", "iso646-us", "us", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso-ir-6", "iso_646.irv:1991", "cp367", "ibm367", "csascii",
        ] {
            sets[name] = .ascii
        }
        for name in ["iso-8859-1", "iso_8859-1", "iso_8859-1:1987", "iso-ir-100", "latin1", "l1", "ibm819", "cp819", "csisolatin1"] {
            sets[name] = .latin1
        }
        for name in ["windows-1252", "cp1252", "cswindows1252"] { sets[name] = .windows1252 }
        var unchecked = [
            "shift_jis", "ms_kanji", "csshiftjis", "windows-31j", "euc-jp", "iso-2022-jp", "euc-kr", "iso-2022-kr", "ks_c_5601-1987", "gb2312",
            "gbk", "gb18030", "big5", "big5-hkscs", "koi8-r", "koi8-u", "macintosh", "mac", "ibm437", "ibm850", "ibm852", "ibm866", "tis-620",
            "hz-gb-2312", "iso-2022-cn", "utf-7", "cesu-8", "scsu", "bocu-1",
        ]
        unchecked += (2...16).filter { $0 != 12 }.flatMap { ["iso-8859-\($0)", "iso_8859-\($0)"] }
        unchecked += (1250...1258).filter { $0 != 1252 }.map { "windows-\($0)" }
        unchecked += (2...10).map { "latin\($0)" }
        for name in unchecked { sets[name] = .unchecked }
        return sets
    }()

    /// The characters of `message` that `repertoire` can't encode (at most a few).
    static func unencodable(_ message: String, in repertoire: Repertoire) -> [Unicode.Scalar] {
        let windows1252Extras: Set<UInt32> = [
            0x20AC, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x017D, 0x2018, 0x2019, 0x201C,
            0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x017E, 0x0178,
        ]
        let fits: (Unicode.Scalar) -> Bool
        switch repertoire {
        case .unicode, .unchecked: return []
        case .ascii: fits = { $0.value < 0x80 }
        case .latin1: fits = { $0.value < 0x100 }
        case .windows1252: fits = { ($0.value < 0x100 && !(0x80..<0xA0).contains($0.value)) || windows1252Extras.contains($0.value) }
        }
        return Array(message.unicodeScalars.filter { !fits($0) }.prefix(3))
    }

    /// `pass.barcode-encoding` (the legacy `barcode`, which the device refuses the pass for),
    /// `-logged` (an entry of `barcodes`, which it only logs), and `-unknown`.
    static func checkEncoding(_ barcode: JSONNode, pointer: String, fatal: Bool, context: ValidationContext, into findings: inout [Diagnostic]) {
        guard let encoding = barcode["messageEncoding"]?.stringValue, let message = barcode["message"]?.stringValue else { return }
        guard let repertoire = characterSets[encoding.lowercased()] else {
            findings.append(
                context.diagnostic(
                    .passBarcodeEncodingUnknown,
                    "messageEncoding '\(encoding)' is not a character set name this tool knows. Wallet refuses a name that is not IANA's: 'message encoding \(encoding) is not an IANA character set name.'",
                    pointer: pointer + "/messageEncoding", hint: "Use iso-8859-1 (what scanners expect) or utf-8."))
            return
        }
        let missing = unencodable(message, in: repertoire)
        guard !missing.isEmpty else { return }
        let characters = missing.map { "'\(Character($0))' (U+\(String($0.value, radix: 16, uppercase: true).leftPadded(to: 4)))" }
        let consequence =
            fatal
            ? "The device refuses the pass for it in the legacy barcode key."
            : "In barcodes the device only logs it ('The barcodes array did not validate correctly'), and shows no barcode from it."
        findings.append(
            context.diagnostic(
                fatal ? .passBarcodeEncoding : .passBarcodeEncodingLogged,
                "The barcode message has \(characters.joined(separator: ", ")), which \(encoding) can't encode. Wallet logs: 'barcode message … isn't encodable with encoding '\(encoding)'.' \(consequence)",
                pointer: pointer + "/message",
                hint: "Use utf-8 for this message (if the scanners read it), or keep the message to \(encoding)'s characters."))
    }

    /// `pass.nfc-message-length` and `pass.nfc-key`.
    static func checkNFC(_ nfc: JSONNode, context: ValidationContext, into findings: inout [Diagnostic]) {
        if let message = nfc["message"]?.stringValue, message.utf8.count > 64 {
            findings.append(
                context.diagnostic(
                    .passNFCMessageLength,
                    "nfc.message is \(message.utf8.count) bytes; Apple documents 64 at most, and a longer payload is cut.",
                    pointer: "/nfc/message", hint: "Keep the payload to 64 bytes of UTF-8; put a reference the reader resolves, not the data."))
        }
        guard let key = nfc["encryptionPublicKey"]?.stringValue else { return }
        if let problem = publicKeyProblem(key) {
            let shown = key.count > 48 ? key.prefix(45) + "…" : key
            findings.append(
                context.diagnostic(
                    .passNFCKey,
                    "nfc.encryptionPublicKey \(problem). Wallet logs: 'nfc encryptionPublicKey '\(shown)' isn't a valid EC compact public key. Valid curves are secp256r1.'",
                    pointer: "/nfc/encryptionPublicKey",
                    hint:
                        "Give the reader's P-256 public key as a Base64 DER SubjectPublicKeyInfo: the body of its PEM, without the BEGIN and END lines."
                ))
        }
    }

    /// What is wrong with an NFC encryption key, or `nil` for a P-256 SubjectPublicKeyInfo.
    static func publicKeyProblem(_ key: String) -> String? {
        if key.contains("-----BEGIN") { return "is a whole PEM; Wallet takes its Base64 body only" }
        guard let der = Data(base64Encoded: key.filter { !$0.isWhitespace }) else { return "is not Base64" }
        guard let info = PublicKeyInfo(der: Array(der)) else { return "is not a DER SubjectPublicKeyInfo (or its point is not on its curve)" }
        guard let curve = info.curve else { return "is a \(info.algorithm) key, not an elliptic-curve one" }
        guard curve == "prime256v1" else { return "is on the curve \(curve), not P-256 (secp256r1)" }
        return nil
    }
}

extension String {
    /// The string with leading zeros to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
