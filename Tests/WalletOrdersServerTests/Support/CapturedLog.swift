import Logging
import Synchronization

/// Every record the service logs, as a log handler receives it.
final class CapturedLog: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        /// The line as swift-log's stream handler writes it: `message key=value …`.
        var line: String { ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
        /// What a line-per-record handler writes for it: the message, then each key and value
        /// with a separator and a space.
        var bytes: Int { message.utf8.count + metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 } }
    }

    let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    /// The records of `POST /v1/log` so far.
    var deviceLogs: [Record] { all.filter { $0.message == "device log" } }

    func logger() -> Logger {
        var logger = Logger(label: "captured") { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let sink: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let record = Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            sink.records.withLock { $0.append(record) }
        }
    }
}
