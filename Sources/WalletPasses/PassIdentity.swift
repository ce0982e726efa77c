package import WalletOrdersJSON

/// What `pass.json` says about who the pass is and what signs it: the keys Wallet requires, the
/// style, and whether it has an `nfc` dictionary.
///
/// Read the way the device reads it: a trailing comma is taken (four Apple-signed passes, Apple's
/// own boarding-pass sample among them, have one), and every problem the strict reader finds is
/// kept for the report.
public struct PassIdentity: Sendable, Hashable {
    /// The keys Wallet requires at the top level, in the order the device checks them
    /// (`Pass dictionary must contain key '%@'.`).
    public static let requiredKeys = [
        "formatVersion", "passTypeIdentifier", "serialNumber", "description", "organizationName", "teamIdentifier",
    ]
    /// The style keys of a pass (`posterGeneric` since iOS 27, with `generic` as its fallback).
    public static let styleKeys = ["boardingPass", "coupon", "eventTicket", "generic", "storeCard", "posterGeneric"]

    /// `passTypeIdentifier`, when it is a string.
    public var passTypeIdentifier: String?
    /// `teamIdentifier`, when it is a string.
    public var teamIdentifier: String?
    /// `serialNumber`, when it is a string.
    public var serialNumber: String?
    /// `organizationName`, when it is a string.
    public var organizationName: String?
    /// `description`, when it is a string.
    public var description: String?
    /// The style keys present, in the file's order.
    public var styles: [String]
    /// Whether the pass has an `nfc` dictionary (which needs the NFC-enabled certificate).
    public var hasNFC: Bool
    /// The required keys that are missing, in the device's order.
    public var missingKeys: [String]
    /// The top-level members, for where a key starts (``keyPosition(of:)``).
    package var members: [JSONMember]
    /// What the JSON reader reported (a trailing comma, a duplicate key, a byte-order mark).
    package var problems: [JSONProblem]

    /// `pass.json` read, or the problem that makes it no JSON object.
    package enum Reading {
        case identity(PassIdentity)
        case unreadable(JSONProblem)
    }

    /// Reads `pass.json` bytes.
    package static func read(_ bytes: [UInt8]) -> Reading {
        let parsed = JSONParser.parse(bytes, maxDepth: 64, allowingTrailingCommas: true)
        if let fatal = parsed.problems.first(where: \.isFatal) { return .unreadable(fatal) }
        guard let root = parsed.root, let members = root.members else {
            return .unreadable(
                JSONProblem(
                    kind: .syntax, message: "pass.json is \(parsed.root?.typeName ?? "empty"), not a JSON object",
                    position: parsed.root?.position ?? SourcePosition(line: 1, column: 1, offset: 0)))
        }
        return .identity(PassIdentity(root: root, members: members, problems: parsed.problems))
    }

    /// The identity of a `pass.json` already parsed (`root` an object of `members`).
    package init(root: JSONNode, members: [JSONMember], problems: [JSONProblem]) {
        passTypeIdentifier = root["passTypeIdentifier"]?.stringValue
        teamIdentifier = root["teamIdentifier"]?.stringValue
        serialNumber = root["serialNumber"]?.stringValue
        organizationName = root["organizationName"]?.stringValue
        description = root["description"]?.stringValue
        styles = members.map(\.key).filter(Self.styleKeys.contains)
        hasNFC = root["nfc"]?.members != nil
        missingKeys = Self.requiredKeys.filter { root[$0] == nil }
        self.members = members
        self.problems = problems
    }

    /// Where the first top-level `key` starts, for findings.
    package func keyPosition(of key: String) -> SourcePosition? {
        members.first { $0.key == key }?.keyPosition
    }
}
