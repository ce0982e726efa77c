public import Foundation
package import WalletOrdersJSON

/// What every pass of a batch shares: a pass source whose `pass.json` is the template, and its
/// images and localizations. Each pass of the batch is the template's `pass.json` with a JSON
/// document of its own fields merged in as a JSON Merge Patch (RFC 7396): objects merge key by
/// key, any other value (an array, a string, a number) replaces the template's, and `null` removes
/// the key. So a line `{"serialNumber": "T-0042", "barcodes": [{"message": "T-0042", …}],
/// "eventTicket": {"secondaryFields": [{"key": "seat", "label": "Seat", "value": "12A"}]}}`
/// gives a ticket of its own serial, barcode and seat, keeping everything else of the template.
public struct PassTemplate: Sendable {
    /// The template's files, `pass.json` included.
    public let source: PassSource
    /// The template's `pass.json`, parsed once.
    package let root: JSONNode
    /// Whether the template's `pass.json` parsed without a problem (no duplicate key, no
    /// trailing comma, …): then a merged pass's text parses back to exactly the tree
    /// ``JSONWriting`` builds while writing it, and the batch needn't parse it again.
    let parsedCleanly: Bool

    /// A template from a pass source.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidSource`` when it has no `pass.json`, or one that
    ///   is not a JSON object.
    public init(source: PassSource) throws {
        guard let bytes = source.passJSON else {
            throw WalletOrdersError(.invalidSource, "The template has no pass.json.", hint: "A pass template is a pass source folder.")
        }
        let parsed = JSONParser.parse(bytes, maxDepth: 64, allowingTrailingCommas: true)
        guard let root = parsed.root, root.members != nil else {
            throw WalletOrdersError(
                .invalidSource, "The template's pass.json is not a JSON object\(parsed.problems.first.map { ": \($0.message)" } ?? "").",
                hint: "Fix the template's pass.json; `wallet-orders validate` on the folder shows where.")
        }
        self.source = source
        self.root = root
        self.parsedCleanly = parsed.problems.isEmpty
    }

    /// A template from a pass source folder (or a `.pkpasstemplate`).
    public init(directory: URL) throws {
        try self.init(source: PassSource(directory: directory))
    }

    /// The files of one pass: the template's, with `pass.json` the template's merged with
    /// `fields` (one JSON object, RFC 7396).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidOrder`` when `fields` is not a JSON object.
    public func source(merging fields: [UInt8]) throws -> PassSource {
        try merged(with: fields).source
    }

    /// ``source(merging:)``, with the parsed `pass.json` when it is known without parsing the
    /// text again (see ``parsedCleanly``).
    package func merged(with fields: [UInt8]) throws -> (source: PassSource, parsed: JSONParseResult?) {
        let parsed = JSONParser.parse(fields, maxDepth: 64)
        guard let patch = parsed.root, patch.members != nil, parsed.problems.isEmpty else {
            let problem = parsed.problems.first.map { ": \($0.message) at \($0.position)" } ?? ""
            throw WalletOrdersError(
                .invalidOrder, "The pass's fields are not one JSON object\(problem).",
                hint: "Each line holds a JSON object of the fields that differ from the template (serialNumber, barcodes, …).")
        }
        var files = source.files
        var writer = JSONWriting()
        let written = writer.write(Self.merge(root, patch), indent: 0)
        writer.out.append(0x0A)
        files[PassArchive.passPath] = writer.out
        return (PassSource(files: files), parsedCleanly ? JSONParseResult(root: written, problems: []) : nil)
    }

    /// RFC 7396: `patch` merged into `target`.
    static func merge(_ target: JSONNode, _ patch: JSONNode) -> JSONNode {
        guard let patchMembers = patch.members else { return patch }
        var members = target.members ?? []
        for member in patchMembers {
            let index = members.firstIndex { $0.key == member.key }
            if case .null = member.value.value {
                if let index { members.remove(at: index) }
            } else if let index {
                members[index].value = merge(members[index].value, member.value)
            } else {
                let added = merge(JSONNode(.null, at: member.value.position), member.value)
                members.append(JSONMember(key: member.key, keyPosition: member.keyPosition, value: added))
            }
        }
        return JSONNode(.object(members), at: target.position)
    }
}

/// JSON text from a parsed document: two-space indentation, members in order, numbers as their
/// exact source text, strings escaped as the manifest's are. It returns the document again with
/// the positions of what it wrote (line, UTF-16 column, byte offset): what parsing its text gives.
struct JSONWriting {
    /// The text written so far.
    var out: [UInt8] = []
    /// The line being written (1-based) and the offset where it starts.
    private var line = 1
    private var lineStart = 0

    init() {
        out.reserveCapacity(4_096)
    }

    /// The position of the next byte written.
    private var position: SourcePosition {
        var column = 1
        var index = lineStart
        while index < out.count {
            let byte = out[index]
            // One UTF-16 unit a character, two for a 4-byte sequence; continuation bytes none.
            if byte & 0xC0 != 0x80 { column += byte >= 0xF0 ? 2 : 1 }
            index += 1
        }
        return SourcePosition(line: line, column: column, offset: out.count)
    }

    private mutating func newLine(indent: Int) {
        out.append(0x0A)
        line += 1
        lineStart = out.count
        out.append(contentsOf: repeatElement(0x20, count: indent))
    }

    @discardableResult
    mutating func write(_ node: JSONNode, indent: Int) -> JSONNode {
        let start = position
        switch node.value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): JSONText.appendString(text, to: &out)
        case .array(let elements):
            guard !elements.isEmpty else {
                out.append(contentsOf: "[]".utf8)
                return JSONNode(.array([]), at: start)
            }
            out.append(UInt8(ascii: "["))
            var written: [JSONNode] = []
            written.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newLine(indent: indent + 2)
                written.append(write(element, indent: indent + 2))
            }
            newLine(indent: indent)
            out.append(UInt8(ascii: "]"))
            return JSONNode(.array(written), at: start)
        case .object(let members):
            guard !members.isEmpty else {
                out.append(contentsOf: "{}".utf8)
                return JSONNode(.object([]), at: start)
            }
            out.append(UInt8(ascii: "{"))
            var written: [JSONMember] = []
            written.reserveCapacity(members.count)
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newLine(indent: indent + 2)
                let keyPosition = position
                JSONText.appendString(member.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                written.append(JSONMember(key: member.key, keyPosition: keyPosition, value: write(member.value, indent: indent + 2)))
            }
            newLine(indent: indent)
            out.append(UInt8(ascii: "}"))
            return JSONNode(.object(written), at: start)
        }
        return JSONNode(node.value, at: start)
    }
}
