// Why this file is long (about 800 lines): it is one parser. `ByteParser` is a private,
// non-copyable struct whose hot loop (strings, numbers, keys, positions) is tuned as a unit;
// splitting it across files would make its private state internal to the whole module for no
// reader's benefit. The types it produces live in JSONProblem.swift and JSONParseResult.swift.

/// A strict RFC 8259 JSON parser that keeps positions, exact number text, member order and
/// duplicate keys, and reports problems instead of throwing.
///
/// It reads UTF-8 bytes directly, without recursion (nesting is limited by `maxDepth`, never by
/// the stack). Lines end at LF, CR or CRLF; columns count UTF-16 code units. A leading UTF-8
/// byte-order mark is reported and skipped, and takes no column.
///
/// A syntax error or too deep nesting ends the parse: only the first is reported, and there is no
/// document. A byte-order mark, a duplicate key, invalid UTF-8 in a string and an unpaired
/// surrogate escape are each reported while parsing goes on (bad text becomes U+FFFD; both
/// members of a duplicate key are kept). Input in UTF-16 or UTF-32 is a syntax error.
///
/// The returned tree is as deep as the input's nesting, and Swift releases and compares nested
/// values recursively, so keep `maxDepth` in the hundreds.
package enum JSONParser {
    /// Parses one JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 text (`order.json`'s bytes).
    ///   - maxDepth: how many arrays and objects may be nested; one more is a ``JSONProblem/Kind/tooDeep`` problem.
    ///   - allowingTrailingCommas: whether a comma before a closing `]` or `}` is a
    ///     ``JSONProblem/Kind/trailingComma`` problem (the value is read as if it weren't there)
    ///     rather than a syntax error. Apple's readers take such a text (Wallet shows passes whose
    ///     pass.json has one), so `order.json` and `pass.json` are parsed with it.
    /// - Returns: the document (unless a fatal problem was found) and the problems, in order.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 512, allowingTrailingCommas: Bool = false) -> JSONParseResult {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = ByteParser(buffer, maxDepth: max(0, maxDepth), allowsTrailingCommas: allowingTrailingCommas)
            return parser.run()
        }
    }
}

// MARK: - Implementation

/// A fatal problem, thrown to unwind the parse.
private struct Failure: Error {
    var problem: JSONProblem
}

/// A key compared and hashed by its UTF-8 bytes: JSON keys are equal only when their code points
/// are, whereas `String ==` also equates canonically equivalent text.
private struct KeyBytes: Hashable {
    var key: String

    static func == (lhs: Self, rhs: Self) -> Bool { sameKey(lhs.key, rhs.key) }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = key.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in key.utf8 { hasher.combine(byte) }
        }
        hasher.combine(key.utf8.count)
    }
}

/// Whether two keys are the same code points.
private func sameKey(_ lhs: String, _ rhs: String) -> Bool {
    // The counts and `==` reject almost every pair quickly; equal bytes imply canonical equivalence.
    lhs.utf8.count == rhs.utf8.count && lhs == rhs && lhs.utf8.elementsEqual(rhs.utf8)
}

/// An array or object being read. Its elements or members so far are `values[start...]` or
/// `members[start...]` of the parser, so that each container is allocated once, at its size. An
/// object's last member is the one whose value is being read (a `null` placeholder until then).
private struct Frame {
    var isObject: Bool
    var position: SourcePosition
    var start: Int
    /// Whether the object's keys are in the parser's last `keySets` (once the object is big
    /// enough for a linear search to cost too much).
    var hasKeySet = false
    /// One bit per key fingerprint seen so far: a key whose bit is clear is new, unsearched.
    var keyBloom: UInt64 = 0
}

/// A growable stack that hands its top elements over to a new array by moving them (one
/// exact-size allocation, no reference counting), unlike `Array(stack[start...])` plus
/// `removeSubrange`.
private struct MoveStack<Element>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        capacity *= 2
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
    }

    /// Moves `self[start...]` into a new array.
    mutating func popArray(from start: Int) -> [Element] {
        let moved = count - start
        guard moved > 0 else { return [] }
        let source = base + start
        count = start
        var array: [Element] = []
        array.reserveCapacity(moved)
        for offset in 0..<moved { array.append((source + offset).move()) }
        return array
    }

    subscript(position: Int) -> Element {
        @inline(__always) unsafeAddress { UnsafePointer(base + position) }
        @inline(__always) nonmutating unsafeMutableAddress { base + position }
    }
}

/// Where a value is expected, for the error message when there is none.
private enum ValueContext {
    case top, firstElement, elementAfterComma, memberValue
}

/// Objects up to this many members are searched linearly for duplicate keys.
private let linearKeySearchLimit = 16

/// The state of one parse over a borrowed buffer.
private struct ByteParser: ~Copyable {
    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    let maxDepth: Int
    /// Whether a comma before a closing bracket is a problem reported, not a syntax error.
    let allowsTrailingCommas: Bool

    /// The next byte to read.
    var index = 0
    /// The current 1-based line.
    var line = 1
    /// The offset of the current line's first byte.
    var lineStart = 0
    /// UTF-8 bytes minus UTF-16 code units of the multi-byte characters read so far on this line.
    var columnAdjustment = 0

    /// The open arrays and objects, innermost last.
    var stack: [Frame] = []
    /// The keys of the open objects that have ``Frame/hasKeySet``, innermost last.
    var keySets: [Set<KeyBytes>] = []
    /// The elements of the open arrays, innermost last.
    var values = MoveStack<JSONNode>(capacity: 16)
    /// The members of the open objects, innermost last.
    var members = MoveStack<JSONMember>(capacity: 16)
    /// The problems so far, in order.
    var problems: [JSONProblem] = []
    /// Where strings with escapes or bad bytes are put together.
    var scratch: [UInt8] = []
    /// A bit chosen by the bytes of the last key read (see ``keyFingerprint(_:)``).
    var lastKeyFingerprint: UInt64 = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool) {
        self.bytes = bytes
        self.end = bytes.count
        self.maxDepth = maxDepth
        self.allowsTrailingCommas = allowsTrailingCommas
        stack.reserveCapacity(16)
    }

    /// Parses the whole buffer.
    mutating func run() -> JSONParseResult {
        do throws(Failure) {
            try checkEncoding()
            let root = try parseDocument()
            skipWhitespace()
            if index < end {
                throw syntax("Expected the end of the input after the top-level value, found \(describe(index))")
            }
            return JSONParseResult(root: root, problems: problems)
        } catch {
            problems.append(error.problem)
            return JSONParseResult(root: nil, problems: problems)
        }
    }

    // MARK: Positions and problems

    @inline(__always)
    func position(at offset: Int) -> SourcePosition {
        SourcePosition(line: line, column: offset - lineStart - columnAdjustment + 1, offset: offset)
    }

    /// A syntax error at `offset` (the current byte by default).
    func syntax(_ message: String, at offset: Int? = nil) -> Failure {
        Failure(problem: JSONProblem(kind: .syntax, message: message, position: position(at: offset ?? index)))
    }

    /// The pointer of the value being read, through the outermost `depth` frames (all by default).
    func pointer(depth: Int? = nil) -> String {
        // Walk inwards to outwards: a frame's current element or member ends where the next
        // deeper frame of its kind starts.
        let depth = depth ?? stack.count
        var tokens: [String] = []
        var valuesEnd = values.count
        var membersEnd = members.count
        for level in stack.indices.reversed() {
            let frame = stack[level]
            if frame.isObject {
                if level < depth { tokens.append(JSONPointer.escape(members[membersEnd - 1].key)) }
                membersEnd = frame.start
            } else {
                if level < depth { tokens.append(String(valuesEnd - frame.start)) }
                valuesEnd = frame.start
            }
        }
        return tokens.reversed().map { "/" + $0 }.joined()
    }

    /// What is at `offset`, for "found …" in messages.
    func describe(_ offset: Int) -> String {
        guard offset < end else { return "the end of the input" }
        let byte = bytes[offset]
        switch byte {
        case 0x00: return "a NUL byte"
        case 0x09: return "a tab"
        case 0x0A: return "a line feed"
        case 0x0D: return "a carriage return"
        case 0x20: return "a space"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x01...0x1F, 0x7F: return "the control character \(scalarName(UInt32(byte)))"
        default:
            let (length, valid) = utf8Sequence(at: offset)
            guard valid else {
                let hex = (offset..<offset + length).map { "0x" + hexDigits(UInt32(bytes[$0]), width: 2) }
                return "the invalid UTF-8 \(length == 1 ? "byte" : "sequence") \(hex.joined(separator: " "))"
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
            return "'\(text)' (\(scalarName(text.unicodeScalars.first!.value)))"
        }
    }

    // MARK: Encoding

    /// Rejects UTF-16 and UTF-32 (by their byte-order marks or the NUL bytes in the first
    /// characters, as RFC 4627 §3 suggests) and reports and skips a UTF-8 byte-order mark.
    mutating func checkEncoding() throws(Failure) {
        func at(_ offset: Int) -> UInt8? { offset < end ? bytes[offset] : nil }
        let (b0, b1, b2, b3) = (at(0), at(1), at(2), at(3))
        var encoding: String?
        if (b0, b1, b2, b3) == (0, 0, 0xFE, 0xFF) || (b0, b1, b2, b3) == (0xFF, 0xFE, 0, 0) {
            encoding = "UTF-32"
        } else if (b0, b1) == (0xFE, 0xFF) || (b0, b1) == (0xFF, 0xFE) {
            encoding = "UTF-16"
        } else if end >= 4, let b0, let b1, let b2, let b3 {
            if b0 == 0 && b1 == 0 && b2 == 0 && b3 != 0 || b0 != 0 && b1 == 0 && b2 == 0 && b3 == 0 {
                encoding = "UTF-32"
            } else if b0 == 0 && b1 != 0 && b2 == 0 && b3 != 0 || b0 != 0 && b1 == 0 && b2 != 0 && b3 == 0 {
                encoding = "UTF-16"
            }
        } else if end == 2, let b0, let b1, (b0 == 0) != (b1 == 0) {
            encoding = "UTF-16"
        }
        if let encoding {
            throw syntax("order.json must be UTF-8 (this looks like \(encoding))", at: 0)
        }
        if (b0, b1, b2) == (0xEF, 0xBB, 0xBF) {
            problems.append(
                JSONProblem(
                    kind: .byteOrderMark,
                    message:
                        "The text starts with a UTF-8 byte-order mark, which JSON does not allow; expected the first value right away (the mark was skipped)",
                    position: position(at: 0)))
            index = 3
            lineStart = 3  // the mark takes no column, as in editors
        }
    }

    /// At a byte ≥ 0x80: the length of the well-formed UTF-8 sequence there, or of its maximal
    /// ill-formed subpart (which is one U+FFFD).
    func utf8Sequence(at offset: Int) -> (length: Int, valid: Bool) {
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        var remaining: Int
        switch bytes[offset] {
        case 0xC2...0xDF: remaining = 1
        case 0xE0:
            remaining = 2
            low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: remaining = 2
        case 0xED:
            remaining = 2
            high = 0x9F
        case 0xF0:
            remaining = 3
            low = 0x90
        case 0xF1...0xF3: remaining = 3
        case 0xF4:
            remaining = 3
            high = 0x8F
        default: return (1, false)
        }
        var next = offset + 1
        while remaining > 0 {
            guard next < end, bytes[next] >= low, bytes[next] <= high else { return (next - offset, false) }
            low = 0x80
            high = 0xBF
            next += 1
            remaining -= 1
        }
        return (next - offset, true)
    }

    // MARK: Structure

    @inline(__always)
    mutating func skipWhitespace() {
        // Ifs rather than a switch: a jump table mispredicts on indented text.
        while index < end {
            let byte = bytes[index]
            if byte == 0x20 {
                index += 1
                skipSpaces()
            } else if byte > 0x20 {
                return
            } else if byte == 0x0A {
                index += 1
                startLine()
            } else if byte == 0x0D {
                index += 1
                if index < end && bytes[index] == 0x0A { index += 1 }
                startLine()
            } else if byte == 0x09 {
                index += 1
            } else {
                return
            }
        }
    }

    /// Skips runs of eight spaces (indentation).
    @inline(__always)
    mutating func skipSpaces() {
        let spaces: UInt64 = 0x2020_2020_2020_2020
        guard let start = UnsafeRawPointer(bytes.baseAddress) else { return }
        while index &+ 8 <= end && start.loadUnaligned(fromByteOffset: index, as: UInt64.self) == spaces {
            index &+= 8
        }
    }

    @inline(__always)
    mutating func startLine() {
        line += 1
        lineStart = index
        columnAdjustment = 0
    }

    /// Reads one value, without recursion: containers are frames on `stack`.
    mutating func parseDocument() throws(Failure) -> JSONNode {
        var context = ValueContext.top
        var node: JSONNode
        descend: while true {
            skipWhitespace()
            guard index < end else { throw expectedValue(context) }
            let start = position(at: index)
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard stack.count < maxDepth else {
                    throw Failure(
                        problem: JSONProblem(
                            kind: .tooDeep,
                            message: "Arrays and objects are nested more than \(maxDepth) deep; expected at most \(maxDepth) levels",
                            position: start, pointer: pointer()))
                }
                index += 1
                skipWhitespace()
                if index < end && bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    node = JSONNode(isObject ? .object([]) : .array([]), at: start)
                } else {
                    stack.append(
                        Frame(isObject: isObject, position: start, start: isObject ? members.count : values.count))
                    if isObject {
                        try parseKey(afterComma: false)
                        context = .memberValue
                    } else {
                        context = .firstElement
                    }
                    continue descend
                }
            case UInt8(ascii: "\""):
                node = JSONNode(.string(try parseString(isKey: false)), at: start)
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                node = JSONNode(.bool(true), at: start)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                node = JSONNode(.bool(false), at: start)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                node = JSONNode(.null, at: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                node = JSONNode(.number(try parseNumber()), at: start)
            default:
                throw expectedValue(context)
            }

            // Hand the value to the containers it completes.
            while let top = stack.indices.last {
                skipWhitespace()
                if stack[top].isObject {
                    members[members.count - 1].value = node
                    if index < end && bytes[index] == UInt8(ascii: ",") {
                        let comma = position(at: index)
                        index += 1
                        skipWhitespace()
                        if !(allowsTrailingCommas && index < end && bytes[index] == UInt8(ascii: "}")) {
                            try parseKey(afterComma: true)
                            context = .memberValue
                            continue descend
                        }
                        reportTrailingComma(at: comma, closing: "}")
                    }
                    guard index < end && bytes[index] == UInt8(ascii: "}") else {
                        throw syntax("Expected ',' or '}' after an object member, found \(describe(index))")
                    }
                    index += 1
                    let frame = stack.removeLast()
                    if frame.hasKeySet { keySets.removeLast() }
                    node = JSONNode(.object(members.popArray(from: frame.start)), at: frame.position)
                } else {
                    values.append(node)
                    if index < end && bytes[index] == UInt8(ascii: ",") {
                        let comma = position(at: index)
                        index += 1
                        if allowsTrailingCommas {
                            skipWhitespace()
                            if index < end && bytes[index] == UInt8(ascii: "]") { reportTrailingComma(at: comma, closing: "]") }
                        }
                        if !(allowsTrailingCommas && index < end && bytes[index] == UInt8(ascii: "]")) {
                            context = .elementAfterComma
                            continue descend
                        }
                    }
                    guard index < end && bytes[index] == UInt8(ascii: "]") else {
                        throw syntax("Expected ',' or ']' after an array element, found \(describe(index))")
                    }
                    index += 1
                    let frame = stack.removeLast()
                    node = JSONNode(.array(values.popArray(from: frame.start)), at: frame.position)
                }
            }
            return node
        }
    }

    /// A comma at `comma` right before `closing`, read as if it weren't there.
    mutating func reportTrailingComma(at comma: SourcePosition, closing: String) {
        let container = closing == "]" ? "array" : "object"
        problems.append(
            JSONProblem(
                kind: .trailingComma,
                message: "A comma before the '\(closing)' that closes an \(container); strict JSON (RFC 8259) has none there",
                position: comma, pointer: pointer(depth: stack.count - 1)))
    }

    func expectedValue(_ context: ValueContext) -> Failure {
        let found = describe(index)
        switch context {
        case .top:
            return syntax("Expected a JSON value (object, array, string, number, true, false or null), found \(found)")
        case .firstElement:
            return syntax("Expected a value or ']' in an array, found \(found)")
        case .elementAfterComma:
            let trailing = index < end && bytes[index] == UInt8(ascii: "]") ? " (trailing commas are not allowed)" : ""
            return syntax("Expected a value after ',' in an array, found \(found)\(trailing)")
        case .memberValue:
            return syntax("Expected a value after ':' in an object, found \(found)")
        }
    }

    /// Reads `"key" :` (whitespace skipped before), checks it for duplicates and makes it the
    /// top frame's pending key.
    mutating func parseKey(afterComma: Bool) throws(Failure) {
        guard index < end && bytes[index] == UInt8(ascii: "\"") else {
            if afterComma {
                let trailing = index < end && bytes[index] == UInt8(ascii: "}") ? " (trailing commas are not allowed)" : ""
                throw syntax("Expected '\"' to start the next object key after ',', found \(describe(index))\(trailing)")
            }
            throw syntax("Expected '\"' to start an object key or '}' to close the object, found \(describe(index))")
        }
        let keyPosition = position(at: index)
        let key = try parseString(isKey: true)
        checkDuplicate(key, fingerprint: lastKeyFingerprint, at: keyPosition)
        members.append(JSONMember(key: key, keyPosition: keyPosition, value: JSONNode(.null, at: keyPosition)))
        skipWhitespace()
        guard index < end && bytes[index] == UInt8(ascii: ":") else {
            throw syntax("Expected ':' after the object key \"\(key)\", found \(describe(index))")
        }
        index += 1
    }

    /// Reports `key` if the innermost object already has it.
    mutating func checkDuplicate(_ key: String, fingerprint: UInt64, at keyPosition: SourcePosition) {
        let top = stack.count - 1
        let siblings = stack[top].start..<members.count
        var isDuplicate = false
        if !stack[top].hasKeySet {
            let seen = stack[top].keyBloom & fingerprint != 0
            stack[top].keyBloom |= fingerprint
            if !seen {
                // No earlier key has this fingerprint.
            } else if siblings.count < linearKeySearchLimit {
                for member in siblings where sameKey(members[member].key, key) {
                    isDuplicate = true
                    break
                }
            } else {
                var keys = Set<KeyBytes>(minimumCapacity: 2 * siblings.count)
                for member in siblings { keys.insert(KeyBytes(key: members[member].key)) }
                keySets.append(keys)
                stack[top].hasKeySet = true
            }
        }
        if stack[top].hasKeySet {
            isDuplicate = !keySets[keySets.count - 1].insert(KeyBytes(key: key)).inserted
        }
        guard isDuplicate else { return }
        var first = siblings.lowerBound
        while !sameKey(members[first].key, key) { first += 1 }
        let firstPosition = members[first].keyPosition
        problems.append(
            JSONProblem(
                kind: .duplicateKey,
                message: "Duplicate key \"\(key)\" (first at \(firstPosition)); expected each key once in an object",
                position: keyPosition, pointer: pointer(depth: top) + "/" + JSONPointer.escape(key)))
    }

    // MARK: Scalars

    /// Reads `true`, `false` or `null`.
    mutating func parseLiteral(_ literal: StaticString) throws(Failure) {
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in text {
            guard index < end && bytes[index] == expected else {
                throw syntax(
                    "Expected '\(Character(Unicode.Scalar(expected)))' to complete '\(literal)', found \(describe(index))")
            }
            index += 1
        }
    }

    /// Reads a number (RFC 8259 §6) and returns its exact text.
    mutating func parseNumber() throws(Failure) -> String {
        let start = index
        @inline(__always) func isDigit(_ offset: Int) -> Bool {
            offset < end && bytes[offset] &- UInt8(ascii: "0") < 10
        }
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
            guard isDigit(index) else { throw syntax("Expected a digit after '-' in a number, found \(describe(index))") }
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) {
                throw syntax(
                    "Numbers must not have leading zeros: expected '.', 'e' or the end of the number after '0', found \(describe(index))")
            }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < end && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else {
                throw syntax("Expected a digit after the decimal point in a number, found \(describe(index))")
            }
            while isDigit(index) { index += 1 }
        }
        if index < end && bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < end && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else {
                throw syntax("Expected a digit in the exponent of a number, found \(describe(index))")
            }
            while isDigit(index) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Reads a string from its opening quote. Without escapes or bad bytes it is decoded straight
    /// from the input; otherwise it is put together in `scratch`.
    mutating func parseString(isKey: Bool) throws(Failure) -> String {
        let opening = position(at: index)
        let firstProblem = problems.count
        index += 1
        var segmentStart = index
        var assembling = false
        while true {
            skipPlainStringBytes()
            guard index < end else {
                throw syntax(
                    "Unterminated string: expected '\"' to close the string that starts at \(opening), found the end of the input")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string: String
                if assembling {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                    string = scratch.withUnsafeBufferPointer { text in
                        if isKey { lastKeyFingerprint = keyFingerprint(text) }
                        return String(decoding: text, as: UTF8.self)
                    }
                } else {
                    let text = UnsafeBufferPointer(rebasing: bytes[segmentStart..<index])
                    if isKey { lastKeyFingerprint = keyFingerprint(text) }
                    string = String(decoding: text, as: UTF8.self)
                }
                index += 1
                if problems.count > firstProblem {
                    let concerned = isKey ? pointer(depth: stack.count - 1) + "/" + JSONPointer.escape(string) : pointer()
                    for problem in firstProblem..<problems.count { problems[problem].pointer = concerned }
                }
                return string
            }
            if byte >= 0x80 {
                let (length, valid) = utf8Sequence(at: index)
                if valid {
                    index += length
                    columnAdjustment += length == 4 ? 2 : length - 1
                    continue
                }
                let what = describe(index)
                problems.append(
                    JSONProblem(
                        kind: .invalidUTF8,
                        message: "Expected UTF-8 text in a string, found \(what) (replaced by U+FFFD)",
                        position: position(at: index)))
                startAssembling(&assembling, segmentStart)
                scratch.append(contentsOf: [0xEF, 0xBF, 0xBD])
                index += length
                columnAdjustment += length - 1
                segmentStart = index
                continue
            }
            if byte == UInt8(ascii: "\\") {
                startAssembling(&assembling, segmentStart)
                try parseEscape()
                segmentStart = index
                continue
            }
            if byte < 0x20 {
                if byte == 0x0A || byte == 0x0D {
                    throw syntax(
                        "Unterminated string: expected '\"' to close the string that starts at \(opening) before the end of the line, found \(describe(index)) (write a line break in a string as \\n)"
                    )
                }
                throw syntax(
                    "Expected '\"' or a character that may appear unescaped in a string, found \(describe(index)) (escape it as \(byte == 0x09 ? "\\t" : "\\u" + hexDigits(UInt32(byte), width: 4)))"
                )
            }
            index += 1
        }
    }

    /// Skips ASCII bytes that stand for themselves in a string, eight at a time, stopping at the
    /// first `"`, `\`, control character or non-ASCII byte (or fewer than eight bytes from the end).
    @inline(__always)
    mutating func skipPlainStringBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let start = UnsafeRawPointer(bytes.baseAddress)
        while index &+ 8 <= end, let start {
            let word = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            // A byte's high bit is set when it is ≥ 0x80, < 0x20, '"' or '\' (exact for the first such byte).
            let special =
                (word | (word &- ones &* 0x20) & ~word | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes)
                & highBits
            if special != 0 {
                index &+= special.trailingZeroBitCount >> 3
                return
            }
            index &+= 8
        }
    }

    /// Switches a string to being put together in `scratch`, copying what was read so far.
    @inline(__always)
    mutating func startAssembling(_ assembling: inout Bool, _ segmentStart: Int) {
        if !assembling {
            assembling = true
            scratch.removeAll(keepingCapacity: true)
        }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
    }

    /// Reads the escape at `index` (a backslash) into `scratch`.
    mutating func parseEscape() throws(Failure) {
        let backslash = index
        guard index + 1 < end else {
            throw syntax("Expected an escape character after '\\', found the end of the input", at: index + 1)
        }
        let unescaped: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): unescaped = 0x22
        case UInt8(ascii: "\\"): unescaped = 0x5C
        case UInt8(ascii: "/"): unescaped = 0x2F
        case UInt8(ascii: "b"): unescaped = 0x08
        case UInt8(ascii: "f"): unescaped = 0x0C
        case UInt8(ascii: "n"): unescaped = 0x0A
        case UInt8(ascii: "r"): unescaped = 0x0D
        case UInt8(ascii: "t"): unescaped = 0x09
        case UInt8(ascii: "u"):
            let unit = try hexQuad(at: index + 2)
            index += 6
            switch unit {
            case 0xD800...0xDBFF:
                if index + 1 < end, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                    let low = optionalHexQuad(at: index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    index += 6
                    appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    unpairedSurrogate(unit, at: backslash, "a high surrogate must be followed by a \\uDC00–\\uDFFF escape")
                }
            case 0xDC00...0xDFFF:
                unpairedSurrogate(unit, at: backslash, "a low surrogate must follow a \\uD800–\\uDBFF escape")
            default:
                appendScalar(unit)
            }
            return
        default:
            throw syntax(
                "Invalid escape in a string: expected one of \" \\ / b f n r t u after '\\', found \(describe(index + 1))",
                at: backslash)
        }
        scratch.append(unescaped)
        index += 2
    }

    /// Reports an unpaired surrogate escape and writes U+FFFD instead.
    mutating func unpairedSurrogate(_ unit: UInt32, at offset: Int, _ rule: String) {
        problems.append(
            JSONProblem(
                kind: .invalidUnicodeEscape,
                message: "Unpaired surrogate escape \\u\(hexDigits(unit, width: 4)): \(rule) (replaced by U+FFFD)",
                position: position(at: offset)))
        appendScalar(0xFFFD)
    }

    /// The 4 hex digits of a `\u` escape at `offset`.
    func hexQuad(at offset: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for digit in offset..<offset + 4 {
            guard digit < end, let nibble = hexValue(bytes[digit]) else {
                throw syntax("Expected 4 hexadecimal digits after '\\u', found \(describe(digit))", at: digit)
            }
            value = value << 4 | nibble
        }
        return value
    }

    /// The 4 hex digits at `offset`, if there are.
    func optionalHexQuad(at offset: Int) -> UInt32? {
        guard offset + 4 <= end else { return nil }
        var value: UInt32 = 0
        for digit in offset..<offset + 4 {
            guard let nibble = hexValue(bytes[digit]) else { return nil }
            value = value << 4 | nibble
        }
        return value
    }

    /// Writes a scalar (or U+FFFD) to `scratch` as UTF-8.
    mutating func appendScalar(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

/// One of 64 bits, chosen by a key's UTF-8 bytes (length, first, middle and last byte), so that
/// most new keys of an object need no comparison with the earlier ones.
@inline(__always)
private func keyFingerprint(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
    let count = text.count
    var mixed = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
    if count > 0 {
        mixed ^= UInt64(text[0]) | UInt64(text[count / 2]) << 8 | UInt64(text[count - 1]) << 16
        mixed &*= 0xBF58_476D_1CE4_E5B9
    }
    return 1 << (mixed >> 58)
}

@inline(__always)
private func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
}

/// `value` in upper-case hex, zero-padded to `width`.
private func hexDigits(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `U+000A`.
private func scalarName(_ value: UInt32) -> String {
    "U+" + hexDigits(value, width: 4)
}
