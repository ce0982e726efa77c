/// What a file's first bytes say it is.
package enum FileContent: Equatable, Sendable {
    case png(width: Int, height: Int, hasAlpha: Bool)
    case jpeg(width: Int, height: Int)
    case pdf
    case other

    package var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .pdf: "PDF"
        case .other: "not PNG, JPEG or PDF"
        }
    }

    package var pixelSize: (width: Int, height: Int)? {
        switch self {
        case .png(let width, let height, _), .jpeg(let width, let height): (width, height)
        default: nil
        }
    }

    /// The largest width or height an image may claim to be shown: Wallet's images are a few
    /// hundred pixels, and a header claiming 100000×100000 would have a browser try to decode 40 GB.
    package static let maximumImageSide = 4_096

    /// The image's MIME type when its header is whole and claims between 1 and
    /// ``maximumImageSide`` pixels a side; nil for anything else (PDF, SVG, HTML, GIF, a truncated
    /// or oversized header). What may be handed to a browser as an image.
    package var displayableImageType: String? {
        switch self {
        case .png(let width, let height, _) where Self.isDisplayable(width, height): "image/png"
        case .jpeg(let width, let height) where Self.isDisplayable(width, height): "image/jpeg"
        default: nil
        }
    }

    private static func isDisplayable(_ width: Int, _ height: Int) -> Bool {
        (1...maximumImageSide).contains(width) && (1...maximumImageSide).contains(height)
    }

    /// Sniffs PNG (signature, then an IHDR chunk of 13 bytes), JPEG (SOI, then the segments up to
    /// the first start-of-frame header; `0×0` when none comes before the scan data or the end) and
    /// PDF (`%PDF-`). The file's name says nothing.
    package static func sniff(_ bytes: [UInt8]) -> FileContent {
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 26, be32(8) == 13, bytes[12..<16].elementsEqual("IHDR".utf8) else { return .other }
            let colorType = bytes[25]
            return .png(width: be32(16), height: be32(20), hasAlpha: colorType == 4 || colorType == 6)
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            return jpegFrameSize(bytes).map { .jpeg(width: $0.width, height: $0.height) } ?? .jpeg(width: 0, height: 0)
        }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return .other
    }

    /// The size in the first start-of-frame header (SOF0–SOF15 but DHT, JPG and DAC), walking the
    /// segments from SOI; nil when a segment is malformed or the scan data or the end comes first.
    private static func jpegFrameSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                index += 2
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard index + 9 <= bytes.count else { return nil }
                return (Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]), Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]))
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // the end, or scan data before any frame header
            index += 2 + length
        }
        return nil
    }
}
