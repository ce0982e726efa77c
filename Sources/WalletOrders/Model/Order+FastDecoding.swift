import Foundation
package import WalletOrdersJSON

extension Order {
    /// The nesting ``decodeWithoutFoundation(_:parsed:)`` accepts.
    static let fastDecodingMaxDepth = 256

    /// Decodes `order.json` the way ``decode(from:)`` does, with the same result and the same
    /// error, faster: through ``JSONParser`` and ``JSONNodeDecoder`` when the text is clean JSON
    /// that decodes that way, through `JSONDecoder` otherwise.
    package static func decodeFast(_ bytes: [UInt8]) throws -> Order {
        if let order = decodeWithoutFoundation(bytes) { return order }
        return try JSONDecoder().decode(Order.self, from: Data(bytes))
    }

    /// The order when the parsed text has no problem at all and ``JSONNodeDecoder`` decodes it;
    /// `nil` otherwise. `parsed` must come from `JSONParser.parse(bytes, maxDepth: 256)` or
    /// less: documents nested deeper go to `JSONDecoder`, whose own limit (512) then decides.
    package static func decodeWithoutFoundation(_ bytes: [UInt8], parsed: JSONParseResult? = nil) -> Order? {
        let result = parsed ?? JSONParser.parse(bytes, maxDepth: Order.fastDecodingMaxDepth, allowingTrailingCommas: true)
        // A trailing comma is read as Apple's readers read it (validation warns about it).
        guard result.problems.allSatisfy({ $0.kind == .trailingComma }), let root = result.root else { return nil }
        return try? Order(from: JSONNodeDecoder(root))
    }
}
