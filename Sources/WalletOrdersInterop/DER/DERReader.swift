/// A strict reader of DER (ITU-T X.690 distinguished encoding): one-byte tags, definite lengths
/// in their shortest form. Anything else (BER's indefinite lengths, long-form tags, padded
/// lengths, lengths past the end) reads as `nil`.
///
/// It only finds elements; it never allocates. Used where OpenSSL's generic ASN.1 template
/// parser is too slow for a structure whose exact shape we know (``StrictSignedData``), with
/// OpenSSL kept as the judge of everything that doesn't have that shape.
package struct DERReader {
    /// One element: its tag and where its header, content and end are in the buffer.
    package struct Element {
        package var tag: UInt8
        /// The index of the tag byte.
        package var start: Int
        /// The index of the first content byte.
        package var contentStart: Int
        /// The index past the last content byte.
        package var end: Int

        package var content: Range<Int> { contentStart..<end }
        package var whole: Range<Int> { start..<end }
        package var isConstructed: Bool { tag & 0x20 != 0 }
    }

    package let bytes: [UInt8]
    package private(set) var position: Int
    package let end: Int

    /// A reader over `range` of `bytes` (all of it by default).
    package init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        self.position = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? bytes.count
    }

    /// A reader over the content of `element`.
    package func children(of element: Element) -> DERReader {
        DERReader(bytes, range: element.content)
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { position >= end }

    /// The next element's tag, without reading it.
    package var peekTag: UInt8? { position < end ? bytes[position] : nil }

    /// Reads the next element; `nil` when there is none or it isn't strict DER.
    package mutating func next() -> Element? {
        guard position + 2 <= end else { return nil }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { return nil }  // high-tag-number form: never in our structures
        var index = position + 1
        let first = bytes[index]
        index += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, index + count <= end else { return nil }  // 0x80: indefinite (BER)
            guard bytes[index] != 0 else { return nil }  // padded length
            for offset in 0..<count { length = length << 8 | Int(bytes[index + offset]) }
            index += count
            guard length >= 0x80 else { return nil }  // long form where the short one fits
        }
        guard length <= end - index else { return nil }
        let element = Element(tag: tag, start: position, contentStart: index, end: index + length)
        position = element.end
        return element
    }

    /// Reads the next element when it has `tag`.
    package mutating func next(tag: UInt8) -> Element? {
        guard peekTag == tag else { return nil }
        return next()
    }

    /// Whether `range` holds a sequence of well-formed elements, recursively (to `depth` levels).
    package static func isWellFormed(_ bytes: [UInt8], _ range: Range<Int>, depth: Int = 16) -> Bool {
        guard depth > 0 else { return false }
        var reader = DERReader(bytes, range: range)
        while !reader.isAtEnd {
            guard let element = reader.next() else { return false }
            if element.isConstructed, !isWellFormed(bytes, element.content, depth: depth - 1) { return false }
        }
        return true
    }

    /// Why bytes are not one strict DER element, and at which byte offset.
    package struct Violation: Sendable, Hashable, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "\(reason) at byte \(offset)" }
    }

    /// The first place where `bytes` stop being exactly one DER element, checked recursively
    /// through constructed elements (to `depth` levels): BER's indefinite lengths, lengths in a
    /// longer form than needed, lengths past the end, high tag numbers (never used by CMS),
    /// and bytes after the element. `nil` when `bytes` are one strict DER element.
    package static func violation(in bytes: [UInt8], depth: Int = 32) -> Violation? {
        guard !bytes.isEmpty else { return Violation(offset: 0, reason: "no data") }
        var firstEnd = 0
        if let problem = violation(in: bytes, 0..<bytes.count, depth: depth, single: true, end: &firstEnd) { return problem }
        if firstEnd < bytes.count {
            return Violation(offset: firstEnd, reason: "\(bytes.count - firstEnd) byte(s) after the end of the DER structure")
        }
        return nil
    }

    private static func violation(
        in bytes: [UInt8], _ range: Range<Int>, depth: Int, single: Bool, end firstEnd: inout Int
    ) -> Violation? {
        guard depth > 0 else { return Violation(offset: range.lowerBound, reason: "nesting deeper than the limit") }
        var position = range.lowerBound
        while position < range.upperBound {
            let tag = bytes[position]
            if tag & 0x1F == 0x1F { return Violation(offset: position, reason: "a high-tag-number form tag") }
            guard position + 1 < range.upperBound else { return Violation(offset: position, reason: "a tag without a length") }
            let first = bytes[position + 1]
            var index = position + 2
            var length = 0
            if first == 0x80 {
                return Violation(offset: position + 1, reason: "an indefinite length (BER, not DER)")
            } else if first > 0x80 {
                let count = Int(first & 0x7F)
                guard count <= 4, index + count <= range.upperBound else {
                    return Violation(offset: position + 1, reason: "a length that doesn't fit")
                }
                guard bytes[index] != 0 else { return Violation(offset: position + 1, reason: "a length with leading zero bytes (not DER)") }
                for offset in 0..<count { length = length << 8 | Int(bytes[index + offset]) }
                guard length >= 0x80 else { return Violation(offset: position + 1, reason: "a long-form length where the short form fits (not DER)") }
                index += count
            } else {
                length = Int(first)
            }
            guard length <= range.upperBound - index else {
                return Violation(offset: position + 1, reason: "a length of \(length) bytes running past the end of its container")
            }
            if tag & 0x20 != 0 {
                var ignored = 0
                if let problem = violation(in: bytes, index..<index + length, depth: depth - 1, single: false, end: &ignored) {
                    return problem
                }
            }
            position = index + length
            if single {
                firstEnd = position
                return nil
            }
        }
        return nil
    }

    /// Whether `range` is the content of a DER INTEGER: not empty, no redundant leading byte.
    package static func isMinimalInteger(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        guard range.count > 1 else { return true }
        let first = bytes[range.lowerBound]
        let second = bytes[range.lowerBound + 1]
        return !(first == 0x00 && second < 0x80) && !(first == 0xFF && second >= 0x80)
    }

    /// Whether `bytes[range]` equals `expected`.
    package static func equals(_ bytes: [UInt8], _ range: Range<Int>, _ expected: [UInt8]) -> Bool {
        range.count == expected.count && bytes[range].elementsEqual(expected)
    }
}
