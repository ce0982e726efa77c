import Foundation
import Testing
import WalletOrdersTestSupport

extension BackgroundProgram {
    /// `wallet-orders arguments…` (or `executable`) in the background, with ``CLI/environment(_:)``
    /// plus `environment`, stdout in `folder`'s `NAME.out`: it can be killed at any moment and what
    /// it had printed read afterwards.
    static func tool(
        _ arguments: [String], executable: URL? = nil, environment: [String: String] = [:], outputIn folder: TemporaryFolder,
        name: String
    ) async throws -> BackgroundProgram {
        try await BackgroundProgram(
            try executable ?? WalletOrdersBinary.url(), arguments, environment: CLI.environment(environment),
            standardOutput: folder.file("\(name).out"))
    }

    /// `/bin/sh -c script`, for a loop of tool runs as a merchant's script would make them.
    static func tool(shell script: String, outputIn folder: TemporaryFolder, name: String) async throws -> BackgroundProgram {
        try await tool(["-c", script], executable: URL(fileURLWithPath: "/bin/sh"), outputIn: folder, name: name)
    }

    /// The complete JSON lines of `store save --json` (a line cut by a kill is ignored).
    var savedLines: [[String: Any]] {
        let text = output
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        return complete.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// Versions of several orders, and checks of a store against them.
struct VersionMatrix {
    let orderIdentifiers: [String]
    let updatedAts: [String]
    /// archives[order][version]
    let archives: [[URL]]

    init(orders: Int, versions: Int, prefix: String) async throws {
        let identifiers = (0..<orders).map { "\(prefix)-\($0)" }
        let dates = (0..<versions).map { String(format: "2025-11-21T00:00:%02dZ", $0) }
        orderIdentifiers = identifiers
        updatedAts = dates
        archives = try await identifiers.asyncMap { id in
            try await dates.asyncMap { try await StoreFixtures.archive(updatedAt: $0, orderIdentifier: id) }
        }
    }

    var all: [URL] { archives.flatMap { $0 } }

    /// (order index, version index) of an archive path.
    func position(of path: String) -> (order: Int, version: Int)? {
        for (order, versions) in archives.enumerated() {
            if let version = versions.firstIndex(where: { $0.path == path }) { return (order, version) }
        }
        return nil
    }

    /// What the store holds, read by Python's sqlite3 (an independent reader): integrity_check,
    /// and per order the updatedAt text and whether the archive's SHA-256 matches its column.
    static func inspect(_ store: URL) async throws -> (integrity: String, rows: [String: (updatedAt: String, hashOK: Bool, bytes: Data)]) {
        let script = """
            import sqlite3, sys, hashlib, json, base64
            db = sqlite3.connect(sys.argv[1])
            out = {'integrity': db.execute('PRAGMA integrity_check').fetchone()[0], 'rows': {}}
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if 'orders' in tables:  # a kill during the first migration leaves no tables, which is fine
                for oid, text, sha, blob in db.execute('SELECT orderIdentifier, updatedAtText, sha256, archive FROM orders'):
                    out['rows'][oid] = [text, hashlib.sha256(blob).hexdigest() == sha, base64.b64encode(blob).decode()]
            print(json.dumps(out))
            """
        let result = try await ExternalProgram.python(script, [store.path])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any],
            let integrity = object["integrity"] as? String, let rows = object["rows"] as? [String: [Any]]
        else { throw FixtureError(description: "inspecting the store failed: \(result)") }
        var decoded: [String: (String, Bool, Data)] = [:]
        for (id, row) in rows {
            decoded[id] = (row[0] as? String ?? "", row[1] as? Bool ?? false, Data(base64Encoded: row[2] as? String ?? "") ?? Data())
        }
        return (integrity, decoded.mapValues { (updatedAt: $0.0, hashOK: $0.1, bytes: $0.2) })
    }
}

@Suite("wallet-orders store across processes: concurrency and crashes", .serialized, .temporaryFolder)
struct StoreProcessTests {
    @Test("3 processes saving interleaved versions of the same orders: newest wins, every answer fits a serial order, nothing locked")
    func concurrentProcesses() async throws {
        let matrix = try await VersionMatrix(orders: 4, versions: 6, prefix: "MP")
        let folder = try TemporaryFolder.ofTest
        let store = folder.file("orders.sqlite")
        let trust = try await StoreFixtures.trustArguments()
        // Each process saves every version, in its own interleaving, one transaction per archive.
        let orders = [
            matrix.all,
            matrix.all.reversed(),
            matrix.all.enumerated().sorted { ($0.offset * 7) % 24 < ($1.offset * 7) % 24 }.map(\.element),
        ]
        let children = try await orders.enumerated().asyncMap { index, paths in
            try await BackgroundProgram.tool(
                ["store", "save"] + paths.map(\.path) + trust + ["--store", store.path, "--json", "--batch-size", "1"],
                outputIn: folder, name: "p\(index)")
        }
        var answers: [(order: Int, version: Int, result: String)] = []
        for child in children {
            let status = try await child.wait()
            #expect(status == 0, "\(child.errorOutput)")
            #expect(!child.errorOutput.contains("locked"))
            let lines = child.savedLines
            #expect(lines.count == matrix.all.count)
            for line in lines {
                let position = try #require(matrix.position(of: line["file"] as? String ?? ""))
                answers.append((position.order, position.version, line["result"] as? String ?? "error"))
            }
        }
        #expect(answers.count == 3 * matrix.all.count)
        #expect(answers.allSatisfy { $0.result == "added" || $0.result == "newerExisting" })
        // Serializable: put the `added` saves in version order and each `newerExisting` right
        // after an added save of a newer version. That works exactly when every newerExisting
        // has a newer added version of the same order, and the newest version is always added.
        for order in matrix.orderIdentifiers.indices {
            let mine = answers.filter { $0.order == order }
            let added = Set(mine.filter { $0.result == "added" }.map(\.version))
            #expect(mine.filter { $0.version == matrix.updatedAts.count - 1 }.allSatisfy { $0.result == "added" })
            for answer in mine where answer.result == "newerExisting" {
                #expect(added.contains { $0 > answer.version }, "order \(order) v\(answer.version) newerExisting without a newer save")
            }
        }
        let inspected = try await VersionMatrix.inspect(store)
        #expect(inspected.integrity == "ok")
        #expect(inspected.rows.count == matrix.orderIdentifiers.count)
        for (order, id) in matrix.orderIdentifiers.enumerated() {
            let row = try #require(inspected.rows[id])
            #expect(row.updatedAt == matrix.updatedAts.last)
            #expect(row.hashOK)
            #expect(row.bytes == (try Data(contentsOf: matrix.archives[order].last!)))
        }
    }

    /// How many kills the crash test makes (more with WALLET_ORDERS_CRASH_ROUNDS, for a long run).
    static let crashRounds = Int(ProcessInfo.processInfo.environment["WALLET_ORDERS_CRASH_ROUNDS"] ?? "") ?? 20

    @Test("SIGKILL at random points during saves: the store opens, passes integrity_check, holds whole versions, loses no acknowledged save")
    func killedMidSave() async throws {
        let matrix = try await VersionMatrix(orders: 6, versions: 8, prefix: "KS")
        let folder = try TemporaryFolder.ofTest
        let trust = try await StoreFixtures.trustArguments()
        var generator = SystemRandomNumberGenerator()
        var store = folder.file("orders.sqlite")
        // Per order, the newest version a process acknowledged (printed after its commit).
        var acknowledged = [Int](repeating: -1, count: matrix.orderIdentifiers.count)
        var killedWithOutput = 0
        for round in 0..<Self.crashRounds {
            // Four rounds per store file, so that later rounds still have newer versions to write.
            if round % 4 == 0 {
                store = folder.file("orders-\(round / 4).sqlite")
                acknowledged = [Int](repeating: -1, count: matrix.orderIdentifiers.count)
            }
            // Every version in a random order with a random batch size; the kill lands anywhere
            // from start-up to the last commit.
            let paths = matrix.all.shuffled(using: &generator)
            let batch = [1, 1, 3, 8].randomElement(using: &generator)!
            let child = try await BackgroundProgram.tool(
                ["store", "save"] + paths.map(\.path) + trust
                    + ["--store", store.path, "--json", "--batch-size", String(batch)],
                outputIn: folder, name: "round\(round)")
            if round % 2 == 0 {
                try await Task.sleep(for: .microseconds(Double(UInt32.random(in: 20_000...400_000, using: &generator)) * TestTiming.scale))
            } else {
                // Every other kill lands after the first acknowledged save, however slowly the
                // child starts on a loaded machine (a start-up slower than 400 ms left a run of
                // twenty with no kill after a commit).
                _ = try? await child.waitUntil("an acknowledged save", timeout: 60 * TestTiming.scale) { printed in
                    printed.output.contains("\n") ? "" : nil
                }
                try await Task.sleep(for: .microseconds(UInt32.random(in: 0...100_000, using: &generator)))
            }
            child.kill()
            let lines = child.savedLines
            if !lines.isEmpty { killedWithOutput += 1 }
            for line in lines where line["result"] as? String == "added" {
                let position = try #require(matrix.position(of: line["file"] as? String ?? ""))
                acknowledged[position.order] = max(acknowledged[position.order], position.version)
            }

            if !FileManager.default.fileExists(atPath: store.path) { continue }  // killed before SQLite started
            let inspected = try await VersionMatrix.inspect(store)
            #expect(inspected.integrity == "ok", "round \(round)")
            for (order, id) in matrix.orderIdentifiers.enumerated() {
                guard let row = inspected.rows[id] else {
                    #expect(acknowledged[order] < 0, "round \(round): \(id) acknowledged but missing")
                    continue
                }
                #expect(row.hashOK, "round \(round): \(id) archive doesn't match its hash")
                let version = try #require(matrix.updatedAts.firstIndex(of: row.updatedAt), "round \(round): unknown version")
                #expect(row.bytes == (try Data(contentsOf: matrix.archives[order][version])), "round \(round): \(id) not a whole version")
                #expect(version >= acknowledged[order], "round \(round): \(id) lost acknowledged v\(acknowledged[order])")
            }
            // The store still works for the tool itself.
            let list = try await CLI.run(["store", "list", "--store", store.path, "--json"])
            #expect(list.status == 0, "round \(round): \(list)")
        }
        #expect(killedWithOutput > 0, "no kill landed after a commit; the timing window is wrong")
        Swift.print("crash test: \(Self.crashRounds) kills, \(killedWithOutput) after at least one acknowledged save")
    }
}
