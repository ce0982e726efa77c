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
        let parsed = JSONParser.parse(fields, maxDepth: 64)
        guard let patch = parsed.root, patch.members != nil, parsed.problems.isEmpty else {
            let problem = parsed.problems.first.map { ": \($0.message) at \($0.position)" } ?? ""
            throw WalletOrdersError(
                .invalidOrder, "The pass's fields are not one JSON object\(problem).",
                hint: "Each line holds a JSON object of the fields that differ from the template (serialNumber, barcodes, …).")
        }
        var files = source.files
        var out: [UInt8] = []
        out.reserveCapacity(4_096)
        JSONWriting.write(Self.merge(root, patch), indent: 0, into: &out)
        out.append(0x0A)
        files[PassArchive.passPath] = out
        return PassSource(files: files)
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
/// exact source text, strings escaped as the manifest's are.
enum JSONWriting {
    static func write(_ node: JSONNode, indent: Int, into out: inout [UInt8]) {
        switch node.value {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let text): JSONText.appendString(text, to: &out)
        case .array(let elements):
            guard !elements.isEmpty else {
                out += Array("[]".utf8)
                return
            }
            out += Array("[\n".utf8)
            for (index, element) in elements.enumerated() {
                out += [UInt8](repeating: 0x20, count: indent + 2)
                write(element, indent: indent + 2, into: &out)
                out += Array((index < elements.count - 1 ? ",\n" : "\n").utf8)
            }
            out += [UInt8](repeating: 0x20, count: indent) + [UInt8(ascii: "]")]
        case .object(let members):
            guard !members.isEmpty else {
                out += Array("{}".utf8)
                return
            }
            out += Array("{\n".utf8)
            for (index, member) in members.enumerated() {
                out += [UInt8](repeating: 0x20, count: indent + 2)
                JSONText.appendString(member.key, to: &out)
                out += Array(": ".utf8)
                write(member.value, indent: indent + 2, into: &out)
                out += Array((index < members.count - 1 ? ",\n" : "\n").utf8)
            }
            out += [UInt8](repeating: 0x20, count: indent) + [UInt8(ascii: "}")]
        }
    }
}
