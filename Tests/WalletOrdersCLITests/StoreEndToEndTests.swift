import Foundation
import Testing
import WalletOrdersTestSupport

@Suite("wallet-orders store: FinanceKit's answers from the command line", .temporaryFolder)
struct StoreEndToEndTests {
    static let order = [Repository.shippedOrderTypeIdentifier, Repository.shippedOrderIdentifier]

    struct SaveRow: Sendable, CustomTestStringConvertible {
        var name: String
        var stored: String?
        var incoming: String
        var incomingVariant = 0
        var incomingStatus: String?
        var result: String
        var status: Int32
        /// What the text output says besides the result (the rebuild's note, the conflict's hint).
        var note: String?
        var testDescription: String { name }
    }

    static let saveRows: [SaveRow] = [
        SaveRow(name: "nothing stored → added", stored: nil, incoming: "2025-11-21T00:00:00Z", result: "added", status: 0),
        SaveRow(name: "stored older → added", stored: "2025-11-21T00:00:00Z", incoming: "2025-11-22T00:00:00Z", result: "added", status: 0),
        SaveRow(
            name: "stored newer → newerExisting (exit 0)", stored: "2025-11-22T00:00:00Z", incoming: "2025-11-21T00:00:00Z", result: "newerExisting",
            status: 0),
        SaveRow(name: "same archive again → added", stored: "2025-11-21T00:00:00Z", incoming: "2025-11-21T00:00:00Z", result: "added", status: 0),
        SaveRow(
            name: "same updatedAt, same files signed again → added, store unchanged", stored: "2025-11-21T00:00:00Z",
            incoming: "2025-11-21T00:00:00Z", incomingVariant: 1, result: "added", status: 0, note: "(store unchanged: the same files are stored)"),
        SaveRow(
            name: "same updatedAt, other files → updated-at-conflict (exit 1)", stored: "2025-11-21T00:00:00Z", incoming: "2025-11-21T00:00:00Z",
            incomingStatus: "completed", result: "updated-at-conflict", status: 1, note: "--signing-time or SOURCE_DATE_EPOCH"),
    ]

    @Test("store save prints each row of the save table, and the store keeps the right version", arguments: saveRows)
    func saveTable(row: SaveRow) async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        var storedURL: URL?
        if let stored = row.stored {
            storedURL = try await StoreFixtures.archive(updatedAt: stored)
            let first = try await store.save([try #require(storedURL)])
            #expect(first.result.status == 0, "\(first.result)")
        }
        let incoming = try await StoreFixtures.archive(updatedAt: row.incoming, variant: row.incomingVariant, status: row.incomingStatus)
        if let note = row.note {
            // The text output, on a copy of the store (the JSON run below saves into the original).
            let copy = try StoreUnderTest()
            defer { copy.remove() }
            if let storedURL { #expect(try await copy.save([storedURL]).result.status == 0) }
            let text = try await copy.run("save", [incoming.path] + (try await StoreFixtures.trustArguments()))
            #expect(text.status == row.status, "\(text)")
            #expect((text.output + text.errorOutput).contains(note), "\(text)")
        }
        let (result, lines) = try await store.save([incoming])
        #expect(result.status == row.status, "\(result)")
        let line = try #require(lines.first)
        #expect(lines.count == 1)
        #expect(line["file"] as? String == incoming.path)
        if let error = line["error"] as? [String: Any] {
            #expect(error["code"] as? String == row.result)
        } else {
            #expect(line["result"] as? String == row.result)
            #expect(line["orderIdentifier"] as? String == Repository.shippedOrderIdentifier)
        }
        if row.result == "added" {
            #expect(line["storeChanged"] as? Bool == (row.stored == nil || row.stored != row.incoming))
        }
        let kept = row.result == "added" && line["storeChanged"] as? Bool == true ? incoming : try #require(storedURL)
        let out = store.folder.file("fetched.order")
        let get = try await store.run("get", Self.order + ["--out", out.path])
        #expect(get.status == 0, "\(get)")
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: kept)))
    }

    @Test("The rebuild trap: building an unchanged order twice and saving both answers added, the second leaving the store unchanged")
    func rebuildTrap() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let certs = try await SharedFixtures.certs.get()
        let formatter = ISO8601DateFormatter()
        var archives: [URL] = []
        for (index, time) in [SharedFixtures.signingTime, SharedFixtures.signingTime.addingTimeInterval(60)].enumerated() {
            let out = store.folder.file("build-\(index).order")
            let build = try await CLI.run(
                ["build", Repository.shippedEcommerce.path, "--out", out.path, "--signing-time", formatter.string(from: time)]
                    + certs.signingArguments)
            #expect(build.status == 0, "\(build)")
            archives.append(out)
        }
        #expect(try Data(contentsOf: archives[0]) != (try Data(contentsOf: archives[1])))
        let first = try await store.run("save", [archives[0].path] + (try StoreFixtures.trustArguments()))
        #expect(first.status == 0, "\(first)")
        #expect(!first.output.contains("store unchanged"))
        let second = try await store.run("save", [archives[1].path] + (try StoreFixtures.trustArguments()))
        #expect(second.status == 0, "\(second)")
        #expect(second.output.hasPrefix("added"), "\(second)")
        #expect(second.output.contains("(store unchanged: the same files are stored)"), "\(second)")
        let out = store.folder.file("fetched.order")
        #expect(try await store.run("get", Self.order + ["--out", out.path]).status == 0)
        #expect(try Data(contentsOf: out) == (try Data(contentsOf: archives[0])))
    }

    struct ContainsRow: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var answer: String
        var status: Int32
        var testDescription: String { name }
    }

    static let containsRows: [ContainsRow] = [
        ContainsRow(name: "no date → exists, 0", arguments: [], answer: "exists", status: 0),
        ContainsRow(
            name: "same instant, other offset → exists, 0", arguments: ["--updated-date", "2025-11-21T05:30:00+05:30"], answer: "exists", status: 0),
        ContainsRow(
            name: "earlier date → newerExists, 11", arguments: ["--updated-date", "2025-11-20T00:00:00Z"], answer: "newerExists", status: 11),
        ContainsRow(
            name: "later date → olderExists, 12", arguments: ["--updated-date", "2025-11-21T00:00:00.001Z"], answer: "olderExists", status: 12),
    ]

    @Test("store contains prints FinanceKit's answer and exits with its code", arguments: containsRows)
    func containsTable(row: ContainsRow) async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let result = try await store.run("contains", Self.order + row.arguments)
        #expect(result.status == row.status, "\(result)")
        #expect(result.output == "store: \(store.url.path)\n" + row.answer + " (stored updatedAt 2025-11-21T00:00:00Z)\n")
        // TYPE_ID/ORDER_ID, the form the tool prints, is the same question.
        let oneArgument = try await store.run("contains", [Self.order.joined(separator: "/")] + row.arguments)
        #expect(oneArgument.status == row.status && oneArgument.output == result.output, "\(oneArgument)")
        let json = try await store.run("contains", Self.order + row.arguments + ["--json"])
        #expect(json.status == row.status)
        let answer = try #require(try parseJSON(json.standardOutput) as? [String: Any])
        #expect(
            answer as NSDictionary
                == ["result": row.answer, "storedUpdatedAt": "2025-11-21T00:00:00Z", "store": store.url.path, "storeExists": true] as NSDictionary)
    }

    @Test("notFound is exit 10 for contains, get and delete; a bad date is a usage error")
    func notFound() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        #expect(try await store.save([try StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result.status == 0)
        let contains = try await store.run("contains", ["order.com.example", "missing", "--updated-date", "2025-01-01T00:00:00Z"])
        #expect(contains.status == 10, "\(contains)")
        #expect(contains.output == "store: \(store.url.path)\nnotFound\n")
        let get = try await store.run("get", ["order.com.example", "missing"])
        #expect(get.status == 10)
        #expect(get.errorOutput.contains("order.com.example/missing is not in the store \(store.url.path)."), "\(get)")
        let delete = try await store.run("delete", ["order.com.example", "missing"])
        #expect(delete.status == 10)
        let badDate = try await store.run("contains", ["order.com.example", "missing", "--updated-date", "yesterday"])
        #expect(badDate.status == 64)
        #expect(badDate.errorOutput.contains("--updated-date"))
    }

    @Test("A rejected archive prints its findings, exits 1, and the others in the same call are still saved")
    func rejected() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let good = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "R-1")
        var bytes = Array(try Data(contentsOf: try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "R-2")))
        bytes[bytes.count / 2] ^= 0x01
        let bad = try store.folder.write(bytes, to: "tampered.order")
        let missing = store.folder.file("missing.order")
        let text = try await store.run("save", [bad.path, good.path, missing.path] + (try await StoreFixtures.trustArguments()))
        #expect(text.status == 1, "\(text)")
        #expect(text.errorOutput.contains("error: \(bad.path): The archive does not verify, so it was not stored"))
        #expect(text.errorOutput.contains("error: \(missing.path): The archive '\(missing.path)' does not exist."), "\(text)")
        #expect(text.output.contains("added  \(Repository.shippedOrderTypeIdentifier)/R-1 (updatedAt 2025-11-21T00:00:00Z)  \(good.path)"))
        #expect(try await store.run("contains", [Repository.shippedOrderTypeIdentifier, "R-2"]).status == 10)
        #expect(try await store.run("contains", [Repository.shippedOrderTypeIdentifier, "R-1"]).status == 0)
    }

    @Test("get, list, delete and history work together from the command line")
    func fetchListDeleteHistory() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let archives = try await ["L-1", "L-2", "L-3"].enumerated().asyncMap { index, id in
            try await StoreFixtures.archive(updatedAt: "2025-11-2\(index + 1)T00:00:00Z", orderIdentifier: id)
        }
        await #expect(try store.save(archives).result.status == 0)

        let history = try await store.run("history")
        #expect(history.status == 0, "\(history)")
        let historyLines = history.output.split(separator: "\n").map(String.init)
        #expect(historyLines == ["L-1", "L-2", "L-3"].map { "+ \(Repository.shippedOrderTypeIdentifier)/\($0)" })
        // The token goes to stderr, so stdout is only changes.
        let token = try #require(history.errorOutput.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        #expect(history.errorOutput == "store: \(store.url.path)\ntoken \(token)\n")

        let orderJSON = try await store.run("get", [Repository.shippedOrderTypeIdentifier, "L-2", "--order-json"])
        #expect(orderJSON.status == 0)
        let order = try #require(try parseJSON(orderJSON.standardOutput) as? [String: Any])
        #expect(order["orderIdentifier"] as? String == "L-2")

        let page = try await store.run("list", ["--limit", "2", "--json"])
        #expect(page.status == 0, "\(page)")
        let first = try #require(try parseJSON(page.standardOutput) as? [String: Any])
        let orders = try #require(first["orders"] as? [[String: Any]])
        #expect(orders.compactMap { ($0["identifier"] as? [String: String])?["orderIdentifier"] } == ["L-3", "L-2"])
        let cursor = try #require(first["nextCursor"] as? String)
        let next = try await store.run("list", ["--limit", "2", "--after", cursor])
        #expect(next.status == 0)
        #expect(next.output.contains("/L-1"))
        #expect(!next.output.contains("/L-2") && !next.output.contains("More:"))
        let wrongSort = try await store.run("list", ["--sort", "identifier", "--after", cursor])
        #expect(wrongSort.status == 1)
        #expect(wrongSort.errorOutput.contains("sort order -updatedAt"))

        let delete = try await store.run("delete", ["\(Repository.shippedOrderTypeIdentifier)/L-1", "--json"])
        #expect(delete.status == 0)
        let deleted = try #require(try parseJSON(delete.standardOutput) as? [String: Any])
        #expect(deleted["deleted"] as? Bool == true)
        #expect(deleted["store"] as? String == store.url.path)
        #expect((deleted["order"] as? [String: String])?["orderIdentifier"] == "L-1")
        let since = try await store.run("history", ["--since", token, "--json"])
        #expect(since.status == 0, "\(since)")
        let changes = try #require(try parseJSON(since.standardOutput) as? [String: Any])
        #expect((changes["deleted"] as? [[String: String]])?.map { $0["orderIdentifier"] } == ["L-1"])
        #expect((changes["inserted"] as? [Any])?.isEmpty == true)
        #expect(changes["hasMore"] as? Bool == false)

        let compact = try await store.run("compact-history", ["--keep", "0", "--json"])
        #expect(compact.status == 0)
        let compacted = try #require(try parseJSON(compact.standardOutput) as? [String: Any])
        #expect(compacted["removed"] as? Int == 4 && compacted["store"] as? String == store.url.path, "\(compacted)")
        let stale = try await store.run("history", ["--since", token])
        #expect(stale.status == 1)
        #expect(stale.errorOutput.contains("compacted away"))
        #expect(stale.errorOutput.contains("hint: Resynchronize"))
        let garbage = try await store.run("history", ["--since", "nonsense!"])
        #expect(garbage.status == 1)
        #expect(garbage.errorOutput.contains("is not a history token made by wallet-orders"))
    }

    @Test("The store location: --store, then WALLET_ORDERS_STORE, then $XDG_DATA_HOME/wallet-orders/orders.sqlite")
    func location() async throws {
        let folder = try TemporaryFolder.ofTest
        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        let trust = try await StoreFixtures.trustArguments()
        let xdg = folder.file("xdg")
        let xdgStore = xdg.appendingPathComponent("wallet-orders/orders.sqlite")
        let viaXDG = try await CLI.run(
            ["store", "save", archive.path] + trust,
            environment: ["XDG_DATA_HOME": xdg.path, "WALLET_ORDERS_STORE": ""])
        #expect(viaXDG.status == 0, "\(viaXDG)")
        #expect(FileManager.default.fileExists(atPath: xdgStore.path))
        let mode = try FileManager.default.attributesOfItem(atPath: xdgStore.deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        let environmentStore = folder.file("env.sqlite")
        let viaEnvironment = try await CLI.run(
            ["store", "contains"] + Self.order,
            environment: ["XDG_DATA_HOME": xdg.path, "WALLET_ORDERS_STORE": environmentStore.path])
        #expect(viaEnvironment.status == 1, "the variable wins over XDG, and names no store: \(viaEnvironment)")
        #expect(viaEnvironment.errorOutput.contains("There is no store at '\(environmentStore.path)' (named by WALLET_ORDERS_STORE)"))
        #expect(!FileManager.default.fileExists(atPath: environmentStore.path))

        let viaOption = try await CLI.run(
            ["store", "contains"] + Self.order + ["--store", xdgStore.path],
            environment: ["WALLET_ORDERS_STORE": environmentStore.path])
        #expect(viaOption.status == 0, "--store wins over the variable: \(viaOption)")
        #expect(viaOption.output.hasPrefix("store: \(xdgStore.path)\n"), "\(viaOption)")

        let missingFolder = try await CLI.run(["store", "list", "--store", folder.file("nowhere/orders.sqlite").path])
        #expect(missingFolder.status == 1)
        #expect(missingFolder.errorOutput.contains("nowhere/orders.sqlite"))
    }

    @Test("A corrupt store file is refused with its own error and left byte for byte as it was")
    func corrupt() async throws {
        let store = try StoreUnderTest()
        defer { store.remove() }
        let garbage = Array(String(repeating: "not a database ", count: 400).utf8)
        try store.folder.write(garbage, to: "orders.sqlite")
        let result = try await store.save([try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")]).result
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("is not an order store"))
        #expect(Array(try Data(contentsOf: store.url)) == garbage)
    }

    /// Runs `arguments` as an unprivileged user when the tests run as root (root ignores file
    /// permissions), so a folder owned by root is read-only for it.
    static func runUnprivileged(_ arguments: [String]) async throws -> ProgramResult {
        let binary = try WalletOrdersBinary.url().path
        if geteuid() == 0 {
            return try await ExternalProgram.run(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments,
                environment: CLI.environment(["HOME": "/nonexistent"]))
        }
        return try await ExternalProgram.run(URL(fileURLWithPath: binary), arguments, environment: CLI.environment([:]))
    }

    @Test("A read-only folder or file gives store-read-only with a hint, and changes nothing")
    func readOnly() async throws {
        let store = try StoreUnderTest()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.folder.url.path)
            store.remove()
        }
        let archive = try await StoreFixtures.archive(updatedAt: "2025-11-21T00:00:00Z")
        // World-readable inputs for the unprivileged user.
        let archiveCopy = try store.folder.write(Array(try Data(contentsOf: archive)), to: "input.order")
        let root = try store.folder.write(Array(try Data(contentsOf: try await SharedFixtures.certs.get().rootCA)), to: "root-ca.pem")
        let readOnlyMode = geteuid() == 0 ? 0o755 : 0o555

        // A folder that can't be written: no store file appears.
        try FileManager.default.setAttributes([.posixPermissions: readOnlyMode], ofItemAtPath: store.folder.url.path)
        let noFolder = try await Self.runUnprivileged(
            ["store", "save", archiveCopy.path, "--trust-root", root.path, "--store", store.url.path])
        #expect(noFolder.status == 1, "\(noFolder)")
        #expect(noFolder.errorOutput.contains("can't be written: its folder"))
        #expect(noFolder.errorOutput.contains("hint: Make the folder writable"))
        #expect(!FileManager.default.fileExists(atPath: store.url.path))

        // An existing store whose file can't be written: refused before SQLite touches it.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.folder.url.path)
        #expect(try await store.save([archive]).result.status == 0)
        let before = try Data(contentsOf: store.url)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.url.path)
        let noFile = try await Self.runUnprivileged(
            ["store", "save", archiveCopy.path, "--trust-root", root.path, "--store", store.url.path])
        #expect(noFile.status == 1, "\(noFile)")
        #expect(noFile.errorOutput.contains("is read-only"))
        #expect(try Data(contentsOf: store.url) == before)

        // Read-only questions work on it (issue 10, finding 8): list, get and contains, as a
        // non-root user, with the file mode 444 and then the folder read-only too.
        for folderMode in [0o755, readOnlyMode] {
            try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: store.folder.url.path)
            let list = try await Self.runUnprivileged(["store", "list", "--store", store.url.path])
            #expect(list.status == 0, "\(list)")
            #expect(list.output.contains(Repository.shippedOrderIdentifier), "\(list)")
            let contains = try await Self.runUnprivileged(["store", "contains"] + Self.order + ["--store", store.url.path])
            #expect(contains.status == 0 && contains.output.hasPrefix("store: \(store.url.path)\nexists (stored updatedAt "), "\(contains)")
            let get = try await Self.runUnprivileged(["store", "get"] + Self.order + ["--store", store.url.path, "--out", "-"])
            let expected = try Data(contentsOf: archive)
            #expect(get.status == 0 && get.standardOutput == expected, "\(get.errorOutput)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.folder.url.path)
        #expect(try Data(contentsOf: store.url) == before)
        #expect(
            ((try? FileManager.default.attributesOfItem(atPath: store.url.path + "-wal"))?[.size] as? Int ?? 0) == 0,
            "the WAL holds nothing: the file alone is the store")
    }
}
