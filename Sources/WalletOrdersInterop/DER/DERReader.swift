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
        encoding(of: bytes, derRegion: (under: [], name: ""), depth: depth).error
    }

    /// How bytes meant as one DER element are encoded: ``berForm`` when a BER decoder reads them
    /// but a strict DER one doesn't, ``error`` when not even BER reads them as one element.
    package struct Encoding: Sendable, Hashable {
        /// The first BER-only form: an indefinite length (closed by an end-of-contents marker),
        /// or a definite length with leading zero bytes or in the long form where the short fits.
        package var berForm: Violation?
        /// The first thing that keeps the bytes from being one BER element (a high tag number, a
        /// length that doesn't fit, an indefinite length never closed, bytes after the element),
        /// or a BER-only form inside the region that must be DER.
        package var error: Violation?
    }

    /// Walks `bytes` as one BER element, recursively through constructed elements (to `depth`
    /// levels), noting the first BER-only form and stopping at the first error.
    ///
    /// - Parameter derRegion: Where BER-only forms are errors: each element whose enclosing
    ///   elements' tags, outermost first, are `under`, and everything inside it (`[]`: everywhere).
    ///   `name` says what the region is in an error's reason ("a certificate").
    package static func encoding(of bytes: [UInt8], derRegion: (under: [UInt8], name: String)? = nil, depth: Int = 32) -> Encoding {
        guard !bytes.isEmpty else { return Encoding(error: Violation(offset: 0, reason: "no data")) }
        var walk = EncodingWalk(bytes: bytes, derRegion: derRegion)
        var ancestors: [UInt8] = []
        if let end = walk.element(at: 0, limit: bytes.count, depth: depth, ancestors: &ancestors, strict: nil), end < bytes.count {
            walk.error = Violation(
                offset: end, reason: "\(bytes.count - end) byte(s) after the end of the \(walk.berForm == nil ? "DER" : "BER") structure")
        }
        return Encoding(berForm: walk.berForm, error: walk.error)
    }

    /// The state of one ``encoding(of:derRegion:depth:)`` walk.
    private struct EncodingWalk {
        let bytes: [UInt8]
        let derRegion: (under: [UInt8], name: String)?
        var berForm: Violation?
        var error: Violation?

        mutating func fail(_ offset: Int, _ reason: String) -> Int? {
            error = Violation(offset: offset, reason: reason)
            return nil
        }

        /// Notes a BER-only form; inside the DER region (`strict`, its name) it is the error instead.
        /// Returns whether the walk goes on.
        mutating func berOnly(_ offset: Int, _ reason: String, strict: String?) -> Bool {
            if let strict {
                error = Violation(offset: offset, reason: strict.isEmpty ? reason : "\(reason) in \(strict)")
                return false
            }
            if berForm == nil { berForm = Violation(offset: offset, reason: reason) }
            return true
        }

        /// Reads the element at `position`, which must end by `limit`: where it ends, or `nil`
        /// with ``error`` set. `ancestors` are the enclosing elements' tags, outermost first;
        /// `strict` names the DER region when an enclosing element is in it.
        mutating func element(at position: Int, limit: Int, depth: Int, ancestors: inout [UInt8], strict: String?) -> Int? {
            guard depth > 0 else { return fail(position, "nesting deeper than the limit") }
            let tag = bytes[position]
            if tag & 0x1F == 0x1F { return fail(position, "a high-tag-number form tag") }
            guard position + 1 < limit else { return fail(position, "a tag without a length") }
            let strict = strict ?? derRegion.flatMap { $0.under == ancestors ? $0.name : nil }
            let constructed = tag & 0x20 != 0
            let first = bytes[position + 1]
            var index = position + 2
            var length: Int?  // nil: indefinite
            if first == 0x80 {
                guard constructed else { return fail(position + 1, "an indefinite length on a primitive element") }
                guard berOnly(position + 1, "an indefinite length", strict: strict) else { return nil }
            } else if first > 0x80 {
                let count = Int(first & 0x7F)
                guard count <= 4, index + count <= limit else { return fail(position + 1, "a length that doesn't fit") }
                var value = 0
                for offset in 0..<count { value = value << 8 | Int(bytes[index + offset]) }
                if bytes[index] == 0 {
                    guard berOnly(position + 1, "a length with leading zero bytes", strict: strict) else { return nil }
                } else if value < 0x80 {
                    guard berOnly(position + 1, "a long-form length where the short form fits", strict: strict) else { return nil }
                }
                index += count
                length = value
            } else {
                length = Int(first)
            }
            if let length {
                guard length <= limit - index else {
                    return fail(position + 1, "a length of \(length) bytes running past the end of its container")
                }
                guard constructed else { return index + length }
                ancestors.append(tag)
                defer { ancestors.removeLast() }
                var child = index
                while child < index + length {
                    guard let end = element(at: child, limit: index + length, depth: depth - 1, ancestors: &ancestors, strict: strict)
                    else { return nil }
                    child = end
                }
                return index + length
            }
            // An indefinite length: elements up to the end-of-contents marker (two zero bytes).
            ancestors.append(tag)
            defer { ancestors.removeLast() }
            var child = index
            while true {
                guard child + 1 < limit else { return fail(position + 1, "an indefinite length with no end-of-contents marker") }
                if bytes[child] == 0 && bytes[child + 1] == 0 { return child + 2 }
                guard let end = element(at: child, limit: limit, depth: depth - 1, ancestors: &ancestors, strict: strict) else { return nil }
                child = end
            }
        }
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
