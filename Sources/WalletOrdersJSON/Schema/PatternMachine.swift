/// A set of Unicode scalars: a bitmap for ASCII, sorted disjoint ranges above it.
struct ScalarSet: Sendable, Equatable {
    var low: UInt64 = 0
    var high: UInt64 = 0
    var ranges: [ClosedRange<UInt32>] = []

    static let empty = ScalarSet()

    init() {}

    init(_ scalar: UInt32) {
        self.init(scalar...scalar)
    }

    init(_ range: ClosedRange<UInt32>) {
        var set = ScalarSet()
        if range.lowerBound <= 127 {
            for value in range.lowerBound...min(range.upperBound, 127) { set.insertASCII(value) }
        }
        if range.upperBound >= 128 { set.ranges = [max(range.lowerBound, 128)...range.upperBound] }
        self = set
    }

    private mutating func insertASCII(_ value: UInt32) {
        if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
    }

    @inline(__always)
    func contains(_ scalar: UInt32) -> Bool {
        if scalar < 64 { return low & (1 << UInt64(scalar)) != 0 }
        if scalar < 128 { return high & (1 << UInt64(scalar - 64)) != 0 }
        for range in ranges {
            if scalar < range.lowerBound { return false }
            if scalar <= range.upperBound { return true }
        }
        return false
    }

    func union(_ other: ScalarSet) -> ScalarSet {
        var result = ScalarSet()
        result.low = low | other.low
        result.high = high | other.high
        let sorted = (ranges + other.ranges).sorted { $0.lowerBound < $1.lowerBound }
        for range in sorted {
            if let last = result.ranges.last, range.lowerBound <= last.upperBound &+ 1 {
                result.ranges[result.ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.ranges.append(range)
            }
        }
        return result
    }

    /// Every scalar (up to U+10FFFF) not in the set.
    var complement: ScalarSet {
        var result = ScalarSet()
        result.low = ~low
        result.high = ~high
        var next: UInt32 = 128
        for range in ranges {
            if range.lowerBound > next { result.ranges.append(next...range.lowerBound - 1) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { result.ranges.append(next...0x10FFFF) }
        return result
    }

    static let digits = ScalarSet(48...57)
    static let word = ScalarSet(48...57).union(ScalarSet(65...90)).union(ScalarSet(97...122)).union(ScalarSet(95))
    /// ECMA-262 `WhiteSpace` and `LineTerminator`.
    static let whitespace: ScalarSet = {
        var set = ScalarSet(9...13).union(ScalarSet(32))
        for scalar: UInt32 in [0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF] {
            set = set.union(ScalarSet(scalar))
        }
        return set.union(ScalarSet(0x2000...0x200A))
    }()
    /// What `.` matches: everything but line terminators.
    static let dot = ScalarSet(10).union(ScalarSet(13)).union(ScalarSet(0x2028...0x2029)).complement
}

/// A compiled regular expression for the part of ECMA-262 that describes a regular language:
/// literals, `.`, classes, `\d \w \s` (and negations), `^`, `$`, groups, alternation and every
/// quantifier. Whether a pattern matches somewhere in a string is decided by a Pike VM (a
/// breadth-first NFA simulation) in time linear in the string, with no allocation for programs
/// of up to a few hundred instructions.
///
/// Anything else (backreferences, lookaround, `\b`, `\p{…}`, named groups, flags) makes `init`
/// return `nil`, and ``SchemaPattern`` uses Swift `Regex`.
struct PatternMachine: Sendable {
    enum Instruction: Sendable {
        case scalars(Int)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    private let instructions: [Instruction]
    private let sets: [ScalarSet]
    /// Each set's ASCII bitmap, apart, so the common case reads two words and retains nothing.
    private let asciiLow: [UInt64]
    private let asciiHigh: [UInt64]
    private let anchored: Bool

    private indirect enum Node {
        case empty
        case scalars(ScalarSet)
        case start
        case end
        case sequence([Node])
        case alternatives([Node])
        case repetition(Node, min: Int, max: Int?)
    }

    private static let maximumInstructions = 2048

    init?(_ source: String) {
        var parser = Parser(scalars: Array(source.unicodeScalars))
        guard let node = parser.parseAlternatives(), parser.atEnd else { return nil }
        var emitter = Emitter()
        emitter.emit(node)
        emitter.instructions.append(.match)
        guard emitter.instructions.count <= Self.maximumInstructions, !emitter.overflow else { return nil }
        instructions = emitter.instructions
        sets = emitter.sets
        asciiLow = emitter.sets.map(\.low)
        asciiHigh = emitter.sets.map(\.high)
        if case .assertStart = emitter.instructions[0] { anchored = true } else { anchored = false }
    }

    // MARK: Parsing

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        var atEnd: Bool { index == scalars.count }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        mutating func parseAlternatives() -> Node? {
            var alternatives: [Node] = []
            while true {
                guard let sequence = parseSequence() else { return nil }
                alternatives.append(sequence)
                guard peek() == "|" else { break }
                index += 1
            }
            return alternatives.count == 1 ? alternatives[0] : .alternatives(alternatives)
        }

        mutating func parseSequence() -> Node? {
            var items: [Node] = []
            while let scalar = peek(), scalar != "|", scalar != ")" {
                guard var atom = parseAtom() else { return nil }
                if let (minimum, maximum) = parseQuantifier() {
                    switch atom {
                    case .start, .end: return nil  // a quantified assertion
                    default: break
                    }
                    if let maximum, maximum < minimum { return nil }
                    atom = .repetition(atom, min: minimum, max: maximum)
                } else if peek() == "{" {
                    return nil  // a brace that is not a quantifier: leave it to Swift Regex
                }
                items.append(atom)
            }
            return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
        }

        mutating func parseQuantifier() -> (Int, Int?)? {
            guard let scalar = peek() else { return nil }
            var result: (Int, Int?)
            switch scalar {
            case "*": result = (0, nil)
            case "+": result = (1, nil)
            case "?": result = (0, 1)
            case "{":
                var lookahead = index + 1
                func number() -> Int? {
                    let start = lookahead
                    var value = 0
                    while lookahead < scalars.count, ("0"..."9").contains(scalars[lookahead]) {
                        value = min(value * 10 + Int(scalars[lookahead].value - 48), 100_000)
                        lookahead += 1
                    }
                    return lookahead > start ? value : nil
                }
                guard let minimum = number() else { return nil }
                var maximum: Int? = minimum
                if lookahead < scalars.count && scalars[lookahead] == "," {
                    lookahead += 1
                    maximum = number()
                }
                guard lookahead < scalars.count, scalars[lookahead] == "}" else { return nil }
                index = lookahead
                result = (minimum, maximum)
            default: return nil
            }
            index += 1
            if peek() == "?" { index += 1 }  // lazy: the same language, so the same answer
            return result
        }

        mutating func parseAtom() -> Node? {
            guard let scalar = peek() else { return nil }
            index += 1
            switch scalar {
            case "^": return .start
            case "$": return .end
            case ".": return .scalars(.dot)
            case "(":
                if peek() == "?" {
                    guard peek(1) == ":" else { return nil }  // lookaround, named group
                    index += 2
                }
                guard let inner = parseAlternatives(), peek() == ")" else { return nil }
                index += 1
                return inner
            case "[": return parseClass().map(Node.scalars)
            case "\\": return parseEscape(inClass: false).map(Node.scalars)
            case "*", "+", "?", "{", "}", "]", ")", "|": return nil
            default: return .scalars(ScalarSet(scalar.value))
            }
        }

        /// After `\`: a class escape or one scalar.
        mutating func parseEscape(inClass: Bool) -> ScalarSet? {
            guard let scalar = peek() else { return nil }
            index += 1
            switch scalar {
            case "d": return .digits
            case "D": return ScalarSet.digits.complement
            case "w": return .word
            case "W": return ScalarSet.word.complement
            case "s": return .whitespace
            case "S": return ScalarSet.whitespace.complement
            case "t": return ScalarSet(9)
            case "n": return ScalarSet(10)
            case "v": return ScalarSet(11)
            case "f": return ScalarSet(12)
            case "r": return ScalarSet(13)
            case "0":
                if let next = peek(), ("0"..."9").contains(next) { return nil }
                return ScalarSet(0)
            case "x": return hexadecimal(digits: 2).map(ScalarSet.init)
            case "u":
                // A surrogate (half of a UTF-16 pair) is left to Swift Regex.
                guard let value = hexadecimal(digits: 4), !(0xD800...0xDFFF).contains(value) else { return nil }
                return ScalarSet(value)
            case "-" where inClass: return ScalarSet(45)
            case "^", "$", "\\", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/":
                return ScalarSet(scalar.value)
            default: return nil  // \b, \B, backreferences, \c, \p, \k, …
            }
        }

        mutating func hexadecimal(digits: Int) -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<digits {
                guard let scalar = peek(), scalar.isASCII, let digit = URIReference.hexValue(UInt8(scalar.value)) else {
                    return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// After `[`: the class up to `]`.
        mutating func parseClass() -> ScalarSet? {
            var negated = false
            if peek() == "^" {
                negated = true
                index += 1
            }
            var set = ScalarSet.empty
            while let scalar = peek(), scalar != "]" {
                guard let first = classAtom() else { return nil }
                if peek() == "-", let after = peek(1), after != "]" {
                    index += 1
                    guard let last = classAtom(),
                        let lower = first.single, let upper = last.single, lower <= upper
                    else { return nil }
                    set = set.union(ScalarSet(lower...upper))
                } else {
                    set = set.union(first)
                }
            }
            guard peek() == "]" else { return nil }
            index += 1
            return negated ? set.complement : set
        }

        mutating func classAtom() -> ScalarSet? {
            guard let scalar = peek() else { return nil }
            index += 1
            if scalar == "\\" {
                if peek() == "b" {
                    index += 1
                    return ScalarSet(8)  // backspace, in a class
                }
                return parseEscape(inClass: true)
            }
            if scalar == "[" { return nil }  // leave set notation alone
            return ScalarSet(scalar.value)
        }
    }

    // MARK: Code generation

    private struct Emitter {
        var instructions: [Instruction] = []
        var sets: [ScalarSet] = []
        var overflow = false

        mutating func emit(_ node: Node) {
            if instructions.count > PatternMachine.maximumInstructions {
                overflow = true
                return
            }
            switch node {
            case .empty: break
            case .start: instructions.append(.assertStart)
            case .end: instructions.append(.assertEnd)
            case .scalars(let set):
                if let existing = sets.firstIndex(of: set) {
                    instructions.append(.scalars(existing))
                } else {
                    sets.append(set)
                    instructions.append(.scalars(sets.count - 1))
                }
            case .sequence(let items):
                for item in items { emit(item) }
            case .alternatives(let alternatives):
                var jumps: [Int] = []
                for (offset, alternative) in alternatives.enumerated() {
                    if offset == alternatives.count - 1 {
                        emit(alternative)
                    } else {
                        let split = instructions.count
                        instructions.append(.split(split + 1, -1))
                        emit(alternative)
                        jumps.append(instructions.count)
                        instructions.append(.jump(-1))
                        instructions[split] = .split(split + 1, instructions.count)
                    }
                }
                for jump in jumps { instructions[jump] = .jump(instructions.count) }
            case .repetition(let inner, let minimum, let maximum):
                if minimum > 1000 || (maximum ?? 0) > 1000 {
                    overflow = true
                    return
                }
                for _ in 0..<minimum { emit(inner) }
                if let maximum {
                    for _ in minimum..<maximum {
                        let split = instructions.count
                        instructions.append(.split(split + 1, -1))
                        emit(inner)
                        instructions[split] = .split(split + 1, instructions.count)
                        if overflow { return }
                    }
                } else {
                    let split = instructions.count
                    instructions.append(.split(split + 1, -1))
                    emit(inner)
                    instructions.append(.jump(split))
                    instructions[split] = .split(split + 1, instructions.count)
                }
            }
        }
    }

    // MARK: Matching

    /// Whether the pattern matches somewhere in the UTF-8 text.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = instructions.count
            return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 5 * count + 2) { buffer in
                var current = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
                var next = UnsafeMutableBufferPointer(rebasing: buffer[count..<2 * count])
                let marks = UnsafeMutableBufferPointer(rebasing: buffer[2 * count..<3 * count])
                let stack = UnsafeMutableBufferPointer(rebasing: buffer[3 * count..<5 * count + 2])
                marks.initialize(repeating: -1)
                var currentCount = 0
                var nextCount = 0
                var generation: Int32 = 0

                /// Adds `start`'s thread and everything reachable from it without consuming a
                /// scalar; `true` when that reaches `match`.
                func add(_ start: Int, into list: UnsafeMutableBufferPointer<Int32>, _ listCount: inout Int, at position: Int) -> Bool {
                    var top = 0
                    stack[top] = Int32(start)
                    top += 1
                    while top > 0 {
                        top -= 1
                        let pc = Int(stack[top])
                        if marks[pc] == generation { continue }
                        marks[pc] = generation
                        switch instructions[pc] {
                        case .scalars:
                            list[listCount] = Int32(pc)
                            listCount += 1
                        case .split(let first, let second):
                            stack[top] = Int32(second)
                            stack[top + 1] = Int32(first)
                            top += 2
                        case .jump(let target):
                            stack[top] = Int32(target)
                            top += 1
                        case .assertStart:
                            if position == 0 {
                                stack[top] = Int32(pc + 1)
                                top += 1
                            }
                        case .assertEnd:
                            if position == bytes.count {
                                stack[top] = Int32(pc + 1)
                                top += 1
                            }
                        case .match:
                            return true
                        }
                    }
                    return false
                }

                if add(0, into: current, &currentCount, at: 0) { return true }
                var position = 0
                while position < bytes.count {
                    if currentCount == 0 && anchored { return false }
                    // Decode one scalar (the bytes of a Swift string are valid UTF-8).
                    let lead = UInt32(bytes[position])
                    var scalar = lead
                    var length = 1
                    if lead >= 0xF0 {
                        scalar =
                            (lead & 0x07) << 18 | (UInt32(bytes[position + 1]) & 0x3F) << 12
                            | (UInt32(bytes[position + 2]) & 0x3F) << 6 | (UInt32(bytes[position + 3]) & 0x3F)
                        length = 4
                    } else if lead >= 0xE0 {
                        scalar =
                            (lead & 0x0F) << 12 | (UInt32(bytes[position + 1]) & 0x3F) << 6
                            | (UInt32(bytes[position + 2]) & 0x3F)
                        length = 3
                    } else if lead >= 0xC0 {
                        scalar = (lead & 0x1F) << 6 | (UInt32(bytes[position + 1]) & 0x3F)
                        length = 2
                    }
                    let after = position + length
                    generation += 1
                    nextCount = 0
                    for slot in 0..<currentCount {
                        let pc = Int(current[slot])
                        guard case .scalars(let set) = instructions[pc] else { continue }
                        let member =
                            scalar < 64
                            ? asciiLow[set] & (1 << UInt64(scalar)) != 0
                            : scalar < 128 ? asciiHigh[set] & (1 << UInt64(scalar - 64)) != 0 : sets[set].contains(scalar)
                        guard member else { continue }
                        if add(pc + 1, into: next, &nextCount, at: after) { return true }
                    }
                    if !anchored && add(0, into: next, &nextCount, at: after) { return true }
                    swap(&current, &next)
                    currentCount = nextCount
                    position = after
                }
                return false
            }
        }
    }
}

extension ScalarSet {
    /// The one scalar in the set, when it holds exactly one.
    var single: UInt32? {
        let asciiCount = low.nonzeroBitCount + high.nonzeroBitCount
        if asciiCount == 1 && ranges.isEmpty {
            return low != 0 ? UInt32(low.trailingZeroBitCount) : UInt32(64 + high.trailingZeroBitCount)
        }
        if asciiCount == 0, ranges.count == 1, ranges[0].lowerBound == ranges[0].upperBound { return ranges[0].lowerBound }
        return nil
    }
}
