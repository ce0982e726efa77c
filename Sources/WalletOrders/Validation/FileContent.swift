/// What a file's first bytes say it is.
package enum FileContent: Equatable, Sendable {
    case png(width: Int, height: Int, hasAlpha: Bool)
    case jpeg(width: Int, height: Int)
    case pdf
    case other

    var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .pdf: "PDF"
        case .other: "not PNG, JPEG or PDF"
        }
    }

    var pixelSize: (width: Int, height: Int)? {
        switch self {
        case .png(let width, let height, _), .jpeg(let width, let height): (width, height)
        default: nil
        }
    }

    /// Sniffs PNG (signature + IHDR), JPEG (SOI + the first SOFn frame header) and PDF (`%PDF-`).
    package static func sniff(_ bytes: [UInt8]) -> FileContent {
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 26, bytes.starts(with: pngSignature), bytes[12..<16].elementsEqual(Array("IHDR".utf8)) {
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            let colorType = bytes[25]
            return .png(width: width, height: height, hasAlpha: colorType == 4 || colorType == 6)
        }
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            var index = 2
            while index + 9 < bytes.count {
                guard bytes[index] == 0xFF else { index += 1; continue }
                let marker = bytes[index + 1]
                if marker == 0xFF { index += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                    let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                    let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                    return .jpeg(width: width, height: height)
                }
                index += 2 + length
            }
            return .jpeg(width: 0, height: 0)
        }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return .other
    }
}
