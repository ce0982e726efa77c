/// A parsed `order.strings` file: `"key" = "value";` lines with `/* */` and `//` comments.
/// (`package` for the fuzz target in Tests/Fuzz.)
package struct StringsFile: Sendable {
    /// How the file was encoded.
    package enum Encoding: String, Sendable {
        case utf8 = "UTF-8"
        case utf8WithBOM = "UTF-8 with BOM"
        case utf16LittleEndian = "UTF-16LE"
        case utf16BigEndian = "UTF-16BE"
    }

    package struct Entry: Sendable, Hashable {
        package var key: String
        package var value: String
        package var line: Int
    }

    /// Why a file could not be read, with the line.
    package struct Failure: Error, Sendable {
        package var isEncoding: Bool
        package var message: String
        package var line: Int?
    }

    package var encoding: Encoding
    package var entries: [Entry]
    package var hasNonASCII: Bool

    package var keys: Set<String> { Set(entries.map(\.key)) }

    /// Decodes and parses `bytes`.
    package static func parse(_ bytes: [UInt8]) -> Result<StringsFile, Failure> {
        let text: String
        let encoding: Encoding
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            let body = bytes.dropFirst(2)
            guard body.count % 2 == 0 else {
                return .failure(Failure(isEncoding: true, message: "UTF-16 text has an odd number of bytes", line: nil))
            }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let first = UInt16(body[index])
                let second = UInt16(body[index + 1])
                units.append(little ? first | second << 8 : first << 8 | second)
                index += 2
            }
            guard let decoded = String(validating: units, as: UTF16.self) else {
                return .failure(Failure(isEncoding: true, message: "the UTF-16 text has invalid surrogates", line: nil))
            }
            text = decoded
            encoding = little ? .utf16LittleEndian : .utf16BigEndian
        } else {
            let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
            guard let decoded = String(validating: hasBOM ? Array(bytes.dropFirst(3)) : bytes, as: UTF8.self) else {
                return .failure(
                    Failure(isEncoding: true, message: "the file is neither valid UTF-8 nor UTF-16 with a byte-order mark", line: nil))
            }
            text = decoded
            encoding = hasBOM ? .utf8WithBOM : .utf8
        }
        var parser = Parser(scalars: Array(text.unicodeScalars))
        do {
            let entries = try parser.parseEntries()
            return .success(StringsFile(encoding: encoding, entries: entries, hasNonASCII: text.utf8.contains { $0 >= 0x80 }))
        } catch {
            return .failure(error)
        }
    }

    private struct Parser {
        package let scalars: [Unicode.Scalar]
        package var index = 0
        package var line = 1

        package init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        package mutating func parseEntries() throws(Failure) -> [Entry] {
            var entries: [Entry] = []
            while true {
                try skipTrivia()
                guard index < scalars.count else { return entries }
                let entryLine = line
                let key = try quoted("a quoted key")
                try skipTrivia()
                try expect("=")
                try skipTrivia()
                let value = try quoted("a quoted value after '='")
                try skipTrivia()
                try expect(";")
                entries.append(Entry(key: key, value: value, line: entryLine))
            }
        }

        package mutating func skipTrivia() throws(Failure) {
            while index < scalars.count {
                let scalar = scalars[index]
                if scalar == "\n" {
                    line += 1
                    index += 1
                } else if scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\u{FEFF}" {
                    index += 1
                } else if scalar == "/" && index + 1 < scalars.count && scalars[index + 1] == "*" {
                    let start = line
                    index += 2
                    while index + 1 < scalars.count && !(scalars[index] == "*" && scalars[index + 1] == "/") {
                        if scalars[index] == "\n" { line += 1 }
                        index += 1
                    }
                    guard index + 1 < scalars.count else {
                        throw Failure(isEncoding: false, message: "a /* comment is never closed", line: start)
                    }
                    index += 2
                } else if scalar == "/" && index + 1 < scalars.count && scalars[index + 1] == "/" {
                    while index < scalars.count && scalars[index] != "\n" { index += 1 }
                } else {
                    return
                }
            }
        }

        package mutating func expect(_ character: Unicode.Scalar) throws(Failure) {
            guard index < scalars.count, scalars[index] == character else {
                let found = index < scalars.count ? "'\(scalars[index])'" : "the end of the file"
                throw Failure(isEncoding: false, message: "expected '\(character)', found \(found)", line: line)
            }
            index += 1
        }

        package mutating func quoted(_ what: String) throws(Failure) -> String {
            guard index < scalars.count, scalars[index] == "\"" else {
                let found = index < scalars.count ? "'\(scalars[index])'" : "the end of the file"
                throw Failure(isEncoding: false, message: "expected \(what), found \(found)", line: line)
            }
            let start = line
            index += 1
            var result = String.UnicodeScalarView()
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                switch scalar {
                case "\"":
                    return String(result)
                case "\\":
                    guard index < scalars.count else { break }
                    let escaped = scalars[index]
                    index += 1
                    switch escaped {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    case "r": result.append("\r")
                    case "U", "u":
                        let digits = scalars[index..<min(index + 4, scalars.count)]
                        guard digits.count == 4, let value = UInt32(String(String.UnicodeScalarView(digits)), radix: 16),
                            let unicode = Unicode.Scalar(value)
                        else {
                            throw Failure(isEncoding: false, message: "invalid \\\(escaped) escape", line: line)
                        }
                        result.append(unicode)
                        index += 4
                    default: result.append(escaped)
                    }
                case "\n":
                    line += 1
                    result.append(scalar)
                default:
                    result.append(scalar)
                }
            }
            throw Failure(isEncoding: false, message: "a quoted string is never closed", line: start)
        }
    }
}
