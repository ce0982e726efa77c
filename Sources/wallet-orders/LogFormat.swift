import Configuration
import Foundation
import Logging
import WalletOrders

/// How `serve` writes its log on standard error: swift-log's text lines, or one JSON object a
/// line for a log collector (swift-log has no JSON handler of its own).
enum LogFormat: String, CaseIterable {
    case text, json

    /// `log.format` from the settings (flag, environment or file); text when none is given.
    static func read(_ config: ConfigReader) throws -> LogFormat {
        guard let value = config.string(forKey: "log.format") else { return .text }
        guard let format = LogFormat(rawValue: value) else {
            throw WalletOrdersError(.invalidConfiguration, "log.format is '\(value)'.", hint: "Give text or json.")
        }
        return format
    }

    /// The handler for a logger labelled `label`.
    func handler(label: String) -> any LogHandler {
        switch self {
        case .text: DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
        case .json: JSONLogHandler(label: label)
        }
    }
}

/// swift-log's text handler with its metadata kept as given and formatted when a line is written.
/// `StreamLogHandler` formats all of its metadata each time a key is set, and Hummingbird sets the
/// request's id on every request's logger, whether the request logs anything or not.
struct DeferredMetadataLogHandler: LogHandler {
    private var base: StreamLogHandler
    var metadata: Logger.Metadata

    init(_ base: StreamLogHandler) {
        self.base = base
        metadata = base.metadata
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = base
        line.metadata = metadata
        line.log(event: event)
    }
}

/// One JSON object a line on standard error: `time` (RFC 3339, milliseconds, UTC), `level`,
/// `label`, `message`, `source`, and the metadata's keys under `metadata` (nested values as
/// JSON arrays and objects). Each line is written with one call, so lines from several tasks
/// don't interleave.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A log record as its JSON line holds it.
    struct Record: Encodable {
        var time: String
        var level: String
        var label: String
        var message: String
        var source: String
        var metadata: [String: Value]?
    }

    /// A metadata value in JSON.
    enum Value: Encodable {
        case string(String)
        case array([Value])
        case object([String: Value])

        init(_ value: Logger.MetadataValue) {
            switch value {
            case .string(let text): self = .string(text)
            case .stringConvertible(let convertible): self = .string(convertible.description)
            case .array(let values): self = .array(values.map(Value.init))
            case .dictionary(let values): self = .object(values.mapValues(Value.init))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .array(let values): try container.encode(values)
            case .object(let values): try container.encode(values)
            }
        }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let record = Record(
            time: Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            level: event.level.rawValue, label: label, message: "\(event.message)", source: event.source,
            metadata: merged.isEmpty ? nil : merged.mapValues(Value.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(record) else { return }
        line.append(0x0A)
        FileHandle.standardError.write(line)
    }
}
