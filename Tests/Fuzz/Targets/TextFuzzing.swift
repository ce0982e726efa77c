import Foundation
import WalletOrders
import WalletOrdersJSON

/// `JSONParser.parse` and the promises its result type makes.
enum JSONFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let result = JSONParser.parse(bytes)
        let fatal = result.problems.filter(\.isFatal)
        try require(fatal.count <= 1, .json, "\(fatal.count) fatal problems: \(fatal)")
        if let first = fatal.first {
            try require(result.problems.last?.kind == first.kind, .json, "the fatal problem is not the last: \(result.problems)")
        }
        try require(
            (result.root == nil) == !fatal.isEmpty, .json,
            "root is \(result.root == nil ? "nil" : "present") with problems \(result.problems)")
        for problem in result.problems {
            try require(
                (0...bytes.count).contains(problem.position.offset) && problem.position.line >= 1 && problem.position.column >= 1,
                .json, "problem at \(problem.position) (offset \(problem.position.offset)) for \(bytes.count) bytes")
        }
    }
}

/// The schema evaluator on `Schemas/order.schema.json` (the library's bundled copy, compiled
/// once): the input parsed as JSON, then judged, both ways the library asks.
enum SchemaFuzzing {
    static let schema: JSONSchema = {
        // The library compiles in Schemas/order.schema.json (EmbeddedResources; a test checks it is current).
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/order.schema.json")
        guard let data = FileManager.default.contents(atPath: url.path), let root = JSONParser.parse(Array(data)).root else {
            fatalError("fuzz schema: can't read \(url.path)")
        }
        do {
            return try JSONSchema(document: root)
        } catch {
            fatalError("fuzz schema: \(url.path) does not compile: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        guard let root = JSONParser.parse(bytes).root else { return }
        let violations = schema.validate(root)
        let valid = schema.isValid(root)
        try require(
            valid == violations.isEmpty, .schema,
            "isValid says \(valid) but validate found \(violations.count) violation(s): \(violations.prefix(3))")
    }
}

/// The `.strings` parser, and the image sniffer (the other reader of localization files).
enum StringsFuzzing {
    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        switch StringsFile.parse(bytes) {
        case .success(let file):
            var line = 1
            for entry in file.entries {
                try require(entry.line >= line, .strings, "entry lines go backwards: \(entry.line) after \(line)")
                line = entry.line
            }
            // The same text in UTF-16 (as Xcode may save it) reads the same.
            if file.encoding == .utf8 {
                let units = Array(String(decoding: bytes, as: UTF8.self).utf16)
                let utf16: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
                guard case .success(let again) = StringsFile.parse(utf16) else {
                    throw InvariantViolation(.strings, "the UTF-8 text parses, the same text in UTF-16LE doesn't")
                }
                try require(
                    again.entries == file.entries && again.encoding == .utf16LittleEndian, .strings,
                    "UTF-16LE reads \(again.entries.count) entries, UTF-8 \(file.entries.count)")
            }
        case .failure(let failure):
            try require((failure.line ?? 1) >= 1, .strings, "failure at line \(failure.line ?? 0)")
        }
        switch FileContent.sniff(bytes) {
        case .png(let width, let height, _), .jpeg(let width, let height):
            try require(width >= 0 && height >= 0, .strings, "negative image size \(width)x\(height)")
        case .pdf, .other:
            break
        }
    }
}
