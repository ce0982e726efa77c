import Foundation
import Synchronization
import Testing
import WalletOrders
import WalletOrdersTestSupport

/// Versions of the shipped sample, signed in process with the shared dev certs and written once
/// per test process under the shared fixtures folder.
enum StoreFixtures {
    /// Each archive asked for, by its key: made by the first test that asks, awaited by the rest.
    private static let made = Mutex<[String: Task<URL, any Error>]>([:])
    /// The shared dev certs as a signing identity.
    private static let identity = SharedFixture<SigningIdentity> {
        let certs = try await SharedFixtures.certs.get()
        return try SigningIdentity.load(
            certificateFile: certs.certificate, privateKeyFile: certs.key, intermediateFile: certs.wwdr, validAt: SharedFixtures.signingTime)
    }

    /// The archive of the sample with `orderIdentifier` and `updatedAt` (RFC 3339 text, written as
    /// given), signed `variant` seconds after the shared signing time (the same files signed again),
    /// optionally with another `status` (other files).
    static func archive(
        updatedAt: String, orderIdentifier: String = Repository.shippedOrderIdentifier, variant: Int = 0,
        status: String? = nil
    ) async throws -> URL {
        let key = "\(orderIdentifier)|\(updatedAt)|\(variant)|\(status ?? "")"
        let making = made.withLock { made in
            if let known = made[key] { return known }
            let task = Task { try await make(updatedAt: updatedAt, orderIdentifier: orderIdentifier, variant: variant, status: status) }
            made[key] = task
            return task
        }
        return try await making.value
    }

    private static func make(updatedAt: String, orderIdentifier: String, variant: Int, status: String?) async throws -> URL {
        let signer = try await identity.get()
        var files = try OrderSource(directory: Repository.shippedEcommerce).files
        var json = String(decoding: try #require(files[OrderArchive.orderPath]), as: UTF8.self)
        for (old, new) in [
            (#""updatedAt": "2025-11-20T08:31:44Z""#, #""updatedAt": "\#(updatedAt)""#),
            (#""orderIdentifier": "\#(Repository.shippedOrderIdentifier)""#, #""orderIdentifier": "\#(orderIdentifier)""#),
        ] {
            let range = try #require(json.range(of: old), "the sample changed; update StoreFixtures")
            json.replaceSubrange(range, with: new)
        }
        if let status {
            let range = try #require(json.range(of: #""status": "open""#), "the sample changed; update StoreFixtures")
            json.replaceSubrange(range, with: #""status": "\#(status)""#)
        }
        files[OrderArchive.orderPath] = Array(json.utf8)
        let built = try OrderArchiveBuilder(identity: signer)
            .build(OrderSource(files: files), signingTime: SharedFixtures.signingTime.addingTimeInterval(Double(variant)))
        let name = "store-\(orderIdentifier)-\(updatedAt.filter { $0.isNumber })-\(variant)\(status.map { "-" + $0 } ?? "").order"
        return try SharedFixtures.folder.get().write(built.bytes, to: "store-archives/\(name)")
    }

    /// `--trust-root` for the dev certs, which every store command that saves needs.
    static func trustArguments() async throws -> [String] {
        ["--trust-root", try await SharedFixtures.certs.get().rootCA.path]
    }
}

/// A store file in a fresh temporary folder, with helpers to run `wallet-orders store …` on it.
struct StoreUnderTest {
    let folder: TemporaryFolder
    var url: URL { folder.file("orders.sqlite") }

    init(_ label: String = #function) throws {
        folder = try TemporaryFolder(label)
    }

    /// A store file in `folder`, which the caller removes.
    init(folder: TemporaryFolder) {
        self.folder = folder
    }

    /// Runs `wallet-orders store SUBCOMMAND arguments… --store URL`.
    func run(_ subcommand: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> ProgramResult {
        try await CLI.run(["store", subcommand] + arguments + ["--store", url.path], environment: environment)
    }

    /// `store save … --json`, one decoded line per archive.
    func save(_ archives: [URL], extra: [String] = []) async throws -> (result: ProgramResult, lines: [[String: Any]]) {
        let result = try await run("save", archives.map(\.path) + ["--json"] + (try await StoreFixtures.trustArguments()) + extra)
        let lines = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (result, lines)
    }

    func remove() { folder.remove() }
}
