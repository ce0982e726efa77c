public import Foundation

/// The real passes of `../shared/reference/real-passes/` (62 passes and bundles from public
/// projects, with the verdict Wallet is expected to give each and why), read at test time from
/// beside the repository: they are not copied into it.
public enum RealPasses {
    /// One entry of `index.json`.
    public struct Entry: Sendable {
        public var file: String
        public var verdict: String
        public var reasons: [String]
    }

    /// The folder, or `nil` when it is not beside the repository.
    public static let folder: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["WALLET_ORDERS_REAL_PASSES"].map { URL(fileURLWithPath: $0) },
            Repository.root.deletingLastPathComponent().appendingPathComponent("shared/reference/real-passes"),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.json").path) }
    }()

    /// The reference date of the verdicts ("now" for expiry), from `index.json`.
    public static let now = ISO8601DateFormatter().date(from: "2026-12-01T00:00:00Z")!

    /// Every pass and bundle of the index with its verdict.
    public static let entries: [Entry] = {
        guard let folder, let data = try? Data(contentsOf: folder.appendingPathComponent("index.json")),
            let index = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let passes = index["passes"] as? [[String: Any]]
        else { return [] }
        return passes.compactMap { pass in
            guard let file = pass["file"] as? String, let verdict = pass["expected_wallet_verdict"] as? [String: Any],
                let name = verdict["verdict"] as? String
            else { return nil }
            return Entry(file: file, verdict: name, reasons: verdict["reasons"] as? [String] ?? [])
        }
    }()

    /// The bytes of `file` (a path inside the folder).
    public static func bytes(_ file: String) throws -> [UInt8] {
        guard let folder else { throw CocoaError(.fileNoSuchFile) }
        return Array(try Data(contentsOf: folder.appendingPathComponent(file)))
    }
}
