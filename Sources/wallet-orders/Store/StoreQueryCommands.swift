import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersPostgres
import WalletOrdersStore
import WalletPasses

/// `wallet-orders store contains TYPE_ID ORDER_ID [--updated-date DATE]`
struct StoreContainsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contains",
        abstract: "Say whether an order or a pass is stored, and how an order's version compares with a date.",
        discussion: """
            Prints FinanceKit's answer, with the stored version's updatedAt, and exits with a code for it:
              0  exists       stored (at exactly --updated-date, when given)
              10 notFound     not stored
              11 newerExists  the stored version is newer than --updated-date
              12 olderExists  the stored version is older than --updated-date
            1 is a failure (the store can't be opened), 64 a usage error. A pass is exists or \
            notFound, with its stored version (a pass has no updatedAt).

            Examples:
              wallet-orders store contains order.com.example.shop/ORDER-1
              wallet-orders store contains pass.com.example.ticket/SEAT-12
              wallet-orders store contains order.com.example.shop ORDER-1 \\
                  --updated-date 2025-11-21T00:00:00Z
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var order: OrderIdentifierArguments
    @OptionGroup var kind: StoreKindOption

    @Option(
        name: .customLong("updated-date"),
        help: ArgumentHelp("The updatedAt to compare with (RFC 3339, e.g. 2025-11-21T00:00:00Z).", valueName: "date"))
    var updatedDate: TimestampArgument?

    @Flag(help: "Print the answer as JSON.")
    var json = false

    func run() async throws {
        let (existing, result, stored) = try await reportingFailuresAsync {
            () async throws -> (ExistingStore, ContainsOrderResult, Timestamp?) in
            let existing = try await store.openForQuestions()
            guard let opened = existing.store else { return (existing, .notFound, nil) }
            if try await kind.resolve(order.identifier, in: opened) == .pass {
                guard updatedDate == nil else {
                    throw WalletOrdersError(
                        .invalidConfiguration, "\(order.identifier) is a pass, which has no updatedAt to compare with --updated-date.",
                        hint: "Leave --updated-date out; `store get` shows the pass's stored version.")
                }
                guard let pass = try await opened.passSummary(for: order.identifier.pass) else { return (existing, .notFound, nil) }
                if json {
                    try JSONOutput.print(WithStore(["result": "exists", "kind": "pass", "storedVersion": "\(pass.current.version)"], existing))
                } else {
                    Terminal.write(existing.line)
                    Terminal.write("exists (a pass, stored version \(pass.current.version))")
                }
                throw ExitCode.success
            }
            let result = try await opened.contains(matching: order.identifier, updatedDate: updatedDate?.timestamp)
            return (existing, result, result == .notFound ? nil : try await opened.summary(for: order.identifier)?.updatedAt)
        }
        if json {
            var answer = ["result": result.rawValue]
            answer["storedUpdatedAt"] = stored?.text
            try JSONOutput.print(WithStore(answer, existing))
        } else {
            Terminal.write(existing.line)
            Terminal.write(result.rawValue + (stored.map { " (stored updatedAt \($0.text))" } ?? ""))
        }
        let code = StoreExitCode.forContains(result)
        if code != .success { throw code }
    }
}

/// `wallet-orders store get TYPE_ID ORDER_ID [--out FILE] [--order-json]`
struct StoreGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch a stored order or pass: its archive, its order.json or pass.json, or a summary.",
        discussion: """
            Without --out, --order-json or --pass-json, prints what the store knows about the \
            order or pass (for a pass, each stored version). --version N fetches an earlier \
            version of a pass. Exit code 10 when it isn't stored.

            \(OutputTarget.policy)

            Examples:
              wallet-orders store get order.com.example.shop ORDER-1
              wallet-orders store get order.com.example.shop ORDER-1 --out ORDER-1.order
              wallet-orders store get order.com.example.shop/ORDER-1 --order-json \\
                  | jq .status
              wallet-orders store get pass.com.example.ticket/S-12 --version 1 \\
                  --out v1.pkpass
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var order: OrderIdentifierArguments
    @OptionGroup var kind: StoreKindOption

    @Flag(name: .customLong("pass-json"), help: "Print the stored pass's pass.json.")
    var passJSON = false

    @Option(help: ArgumentHelp("The version of a pass to fetch (default: the newest).", valueName: "n"))
    var version: Int?

    @Option(help: ArgumentHelp("Write the stored archive to this file ('-' for standard output).", valueName: "file"))
    var out: String?

    @Flag(name: .customLong("order-json"), help: "Print the stored archive's order.json.")
    var orderJSON = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        if out == "-" && (orderJSON || passJSON) {
            throw ValidationError("--order-json or --pass-json and --out - all write to standard output; give --out a file name, or drop one.")
        }
        if orderJSON && passJSON { throw ValidationError("--order-json is for orders and --pass-json for passes; give one.") }
    }

    func run() async throws {
        let output = out.map(OutputTarget.init)
        try await reportingFailuresAsync { try output?.check() }
        let identifier = order.identifier
        let (existing, found) = try await reportingFailuresAsync {
            () async throws -> (ExistingStore, (summary: StoredOrderSummary, bytes: [UInt8])?) in
            let existing = try await store.openForQuestions()
            if let opened = existing.store, try await kind.resolve(identifier, in: opened) == .pass || passJSON || version != nil {
                try await getPass(identifier.pass, from: opened, existing, output: output)
            }
            guard let opened = existing.store, let summary = try await opened.summary(for: identifier),
                let bytes = try await opened.archive(for: identifier)
            else { return (existing, nil) }
            return (existing, (summary, bytes))
        }
        guard let found else {
            Terminal.reportError("\(identifier) is not in the store \(existing.name).", hint: "`wallet-orders store list` shows what is.")
            throw StoreExitCode.notFound
        }
        try await reportingFailuresAsync {
            // The store is named in the "Wrote" line, before order.json (on stderr), or before the summary.
            if let output {
                try output.write(found.bytes)
                Terminal.write(
                    "Wrote \(found.bytes.count) bytes to \(output) from the store \(existing.name).",
                    to: orderJSON ? .standardError : output.messages)
            } else if orderJSON {
                Terminal.write(existing.line, to: .standardError)
            } else if !json {
                Terminal.write(existing.line)
            }
            if orderJSON {
                let archive = try OrderArchive(bytes: found.bytes)
                guard let bytes = archive.contents(of: OrderArchive.orderPath) else {
                    throw WalletOrdersError(.archiveEntryMissing, "The stored archive has no order.json.")
                }
                FileHandle.standardOutput.write(Data(bytes))
            } else if out == nil {
                if json {
                    try JSONOutput.print(WithStore(found.summary, existing))
                } else {
                    StoreListCommand.printTable([found.summary])
                }
            }
        }
    }
}

extension StoreGetCommand {
    /// The pass part of `store get`: it ends the command (exit code 0, or 10 when the pass or
    /// its version isn't stored).
    func getPass(_ identifier: PassIdentifier, from store: any AnyOrderStore, _ existing: ExistingStore, output: OutputTarget?)
        async throws -> Never
    {
        guard let summary = try await store.passSummary(for: identifier),
            let bytes = try await store.passArchive(for: identifier, version: version)
        else {
            let what = version.map { "Version \($0) of \(identifier)" } ?? "\(identifier)"
            Terminal.reportError("\(what) is not in the store \(existing.name).", hint: "`wallet-orders store list --kind pass` shows what is.")
            throw StoreExitCode.notFound
        }
        if let output {
            try output.write(bytes)
            Terminal.write(
                "Wrote \(bytes.count) bytes to \(output) from the store \(existing.name).", to: passJSON ? .standardError : output.messages)
        }
        if passJSON {
            guard let passJSON = try PassArchive(bytes: bytes).contents(of: PassArchive.passPath) else {
                throw WalletOrdersError(.archiveEntryMissing, "The stored pass has no pass.json.")
            }
            FileHandle.standardOutput.write(Data(passJSON))
        } else if output == nil {
            let versions = try await store.passVersions(for: identifier)
            if json {
                struct Output: Encodable {
                    var pass: StoredPassSummary
                    var versions: [StoredPassVersion]
                }
                try JSONOutput.print(WithStore(Output(pass: summary, versions: versions), existing))
            } else {
                Terminal.write(existing.line)
                StoredPassSummary.printTable([summary])
                Terminal.write("")
                TextTable.print(
                    ["version", "modified", "voided", "size", "sha256"],
                    versions.map {
                        [
                            "\($0.version)", Timestamp(secondsSince1970: $0.modifiedAt).text, $0.voided ? "yes" : "no", "\($0.archiveSize) B",
                            $0.sha256,
                        ]
                    })
            }
        }
        throw ExitCode.success
    }
}

/// `wallet-orders store list [filters]`
struct StoreListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List stored orders or passes, filtered, sorted and paged.",
        discussion: """
            Pages are keyset pages: pass the printed cursor to --after for the next one, or use --all. \
            Sort orders: -updatedAt (newest first, the default), updatedAt, identifier. With \
            --kind pass the passes are listed instead, by identifier (--type filters them too).

            Examples:
              wallet-orders store list
              wallet-orders store list --type order.com.example.shop --status open \\
                  --updated-since 2025-11-01T00:00:00Z
              wallet-orders store list --sort identifier --limit 50 --after CURSOR --json
              wallet-orders store list --kind pass --type pass.com.example.ticket
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var kind: StoreKindOption

    @Option(name: .customLong("type"), help: ArgumentHelp("Only orders of this orderTypeIdentifier.", valueName: "type-id"))
    var orderTypeIdentifier: String?

    @Option(help: ArgumentHelp("Only orders with this status: open, completed or cancelled.", valueName: "status"))
    var status: String?

    @Option(
        name: .customLong("updated-since"), help: ArgumentHelp("Only orders whose updatedAt is at or after this date (RFC 3339).", valueName: "date"))
    var updatedSince: TimestampArgument?

    @Option(help: ArgumentHelp("Sort order: -updatedAt, updatedAt or identifier.", valueName: "order"))
    var sort: SortArgument = .updatedAtDescending

    @Option(help: ArgumentHelp("Orders per page.", valueName: "n"))
    var limit = OrderQuery.defaultLimit

    @Option(help: ArgumentHelp("Continue after this cursor (printed at the end of the previous page).", valueName: "cursor"))
    var after: String?

    @Flag(help: "Every page, not just one.")
    var all = false

    @Flag(help: "Print JSON: {\"orders\": [...], \"nextCursor\": ...}.")
    var json = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
        let statuses = Order.Status.knownValues.map(\.rawValue)
        if let status, !statuses.contains(status) {
            let suggestion = NearestName.suggestion(for: status, among: statuses).map { " Did you mean '\($0)'?" } ?? ""
            throw ValidationError(
                "--status '\(status)' is not an order status; the statuses are \(statuses.joined(separator: ", ")).\(suggestion)")
        }
    }

    struct Output: Encodable {
        var orders: [StoredOrderSummary]
        var nextCursor: OrderListCursor?
    }

    func run() async throws {
        if kind.kind == .pass { return try await listPasses() }
        let (existing, page) = try await reportingFailuresAsync { () async throws -> (ExistingStore, OrderListPage) in
            let existing = try await store.openForQuestions()
            guard let opened = existing.store else { return (existing, OrderListPage(orders: [], nextCursor: nil)) }
            var query = OrderQuery(
                orderTypeIdentifier: orderTypeIdentifier, status: status, updatedSince: updatedSince?.timestamp,
                sort: sort.sort, limit: limit, after: try after.map { try OrderListCursor(encoded: $0) })
            var page = try await opened.list(query)
            while all, let next = page.nextCursor {
                query.after = next
                let more = try await opened.list(query)
                page = OrderListPage(orders: page.orders + more.orders, nextCursor: more.nextCursor)
            }
            return (existing, page)
        }
        if json {
            try JSONOutput.print(WithStore(Output(orders: page.orders, nextCursor: page.nextCursor), existing))
            return
        }
        Terminal.write(existing.line)
        if page.orders.isEmpty {
            Terminal.write("No stored orders match.")
        } else {
            Self.printTable(page.orders)
        }
        if let next = page.nextCursor {
            Terminal.write("\nMore: --after \(next.encoded)")
        }
    }

    /// `--kind pass`: the passes, by identifier.
    func listPasses() async throws {
        if status != nil || updatedSince != nil || sort != .updatedAtDescending {
            throw ValidationError("--status, --updated-since and --sort are for orders; passes are listed by identifier.")
        }
        let (existing, page) = try await reportingFailuresAsync { () async throws -> (ExistingStore, PassListPage) in
            let existing = try await store.openForQuestions()
            guard let opened = existing.store else { return (existing, PassListPage(passes: [], nextCursor: nil)) }
            var query = PassQuery(passTypeIdentifier: orderTypeIdentifier, limit: limit)
            if let after {
                guard let cursor = PassIdentifier(stringForm: after) else {
                    throw WalletOrdersError(.malformedToken, "--after '\(after)' is no pass cursor (TYPE_ID/SERIAL, as the last page printed).")
                }
                query.after = cursor
            }
            var page = try await opened.listPasses(query)
            while all, let next = page.nextCursor {
                query.after = next
                let more = try await opened.listPasses(query)
                page = PassListPage(passes: page.passes + more.passes, nextCursor: more.nextCursor)
            }
            return (existing, page)
        }
        if json {
            try JSONOutput.print(WithStore(page, existing))
            return
        }
        Terminal.write(existing.line)
        if page.passes.isEmpty { Terminal.write("No stored passes match.") } else { StoredPassSummary.printTable(page.passes) }
        if let next = page.nextCursor { Terminal.write("\nMore: --after \(next.stringForm)") }
    }

    static func printTable(_ orders: [StoredOrderSummary]) {
        let header = ["updatedAt", "status", "size", "order"]
        TextTable.print(header, orders.map { [$0.updatedAt.text, $0.status, "\($0.archiveSize) B", $0.identifier.stringForm] })
    }
}

/// `wallet-orders store delete TYPE_ID ORDER_ID`
struct StoreDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove an order, or a pass with all its versions, from the store.",
        discussion:
            "Exit code 0 when it was removed, 10 when it wasn't stored.\n\nExample:\n  wallet-orders store delete order.com.example.shop/ORDER-1"
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var order: OrderIdentifierArguments
    @OptionGroup var kind: StoreKindOption

    @Flag(help: "Print the result as JSON: {\"deleted\": true|false, \"order\": {…}} (\"pass\" for a pass).")
    var json = false

    struct Output: Encodable {
        var deleted: Bool
        var order: FullyQualifiedOrderIdentifier?
        var pass: PassIdentifier?
    }

    func run() async throws {
        let identifier = order.identifier
        let (existing, deleted, isPass) = try await reportingFailuresAsync { () async throws -> (ExistingStore, Bool, Bool) in
            // A default store that doesn't exist yet holds nothing to delete: it isn't created.
            let existing = try await store.openExisting(.readWrite)
            guard let opened = existing.store else { return (existing, false, kind.kind == .pass) }
            if try await kind.resolve(identifier, in: opened) == .pass {
                return (existing, try await opened.deletePass(identifier.pass), true)
            }
            return (existing, try await opened.delete(identifier), false)
        }
        if json {
            let output = isPass ? Output(deleted: deleted, pass: identifier.pass) : Output(deleted: deleted, order: identifier)
            try JSONOutput.print(WithStore(output, existing))
        } else if deleted {
            Terminal.write(existing.line)
            Terminal.write("deleted  \(identifier)")
        } else {
            Terminal.reportError("\(identifier) is not in the store \(existing.name); nothing was deleted.")
        }
        if !deleted { throw StoreExitCode.notFound }
    }
}

/// `wallet-orders store history [--since TOKEN]`
struct StoreHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List what changed since a history token, and print the next token.",
        discussion: """
            Lines are '+ order' (inserted), '~ order' (updated) and '- order' (deleted), net per \
            order since the token, on stdout. The token for next time goes to stderr as \
            'token TOKEN', or, with --token-file FILE, into FILE, which is also read as --since \
            when it exists. Without a token every stored order is listed as inserted (--limit \
            needs a token: use store list to page through the orders). A token older than a \
            compaction (or from another store) is refused: run again without it to resynchronize. \
            With --kind pass the passes' changes are listed (one change sequence numbers both \
            kinds; keep a token for each).

            Examples:
              wallet-orders store history --token-file last-token > changes.txt
              wallet-orders store history --since TOKEN --limit 1000 --json
              wallet-orders store history --kind pass --token-file last-pass-token
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var kind: StoreKindOption

    @Option(help: ArgumentHelp("The token printed by the previous call.", valueName: "token"))
    var since: String?

    @Option(help: ArgumentHelp("Read at most this many log entries (needs a token); run again with the new token for more.", valueName: "n"))
    var limit: Int?

    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp("Read the token from FILE (when it exists and --since isn't given) and write the new one there.", valueName: "file"))
    var tokenFile: String?

    @Flag(help: "Print JSON: {\"inserted\": [...], \"updated\": [...], \"deleted\": [...], \"newToken\": ..., \"hasMore\": ...}.")
    var json = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
    }

    /// The token to read from: --since, else the contents of --token-file when it exists.
    func startToken() throws -> String? {
        if let since { return since }
        guard let tokenFile, FileManager.default.fileExists(atPath: tokenFile) else { return nil }
        let kind = FileKind(name: "token file", maximumBytes: 64 * 1024, reason: "A history token is one short line.")
        let text = String(decoding: try BoundedFile.read(tokenFile, as: kind), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run() async throws {
        let start = try reportingFailures { try startToken() }
        if limit != nil && start == nil {
            throw ValidationError(
                "--limit needs a token (--since, or an existing --token-file): without one every stored order is listed. "
                    + "Page through the orders with `wallet-orders store list --limit N`.")
        }
        let (existing, changes) = try await reportingFailuresAsync { () async throws -> (ExistingStore, HistoryAnswer?) in
            let token = try start.map { try OrderHistoryToken(encoded: $0) }
            let existing = try await store.openForQuestions()
            guard let opened = existing.store else { return (existing, nil) }
            if kind.kind == .pass { return (existing, HistoryAnswer(try await opened.passHistory(since: token, limit: limit))) }
            return (existing, HistoryAnswer(try await opened.history(since: token, limit: limit)))
        }
        guard let changes else {
            // No default store yet: nothing has happened, and no token to give (none is needed:
            // the next call without one lists every order saved by then).
            if json {
                try JSONOutput.print(WithStore(EmptyHistory(), existing))
            } else {
                Terminal.write(existing.line + ": no changes and no token", to: .standardError)
            }
            return
        }
        if let tokenFile {
            try reportingFailures { try OutputTarget.path(tokenFile).write(Array((changes.newToken.encoded + "\n").utf8)) }
        }
        if json {
            try JSONOutput.print(WithStore(changes, existing))
            return
        }
        // stdout holds only the changes; the store is named on stderr, with the token.
        Terminal.write(existing.line, to: .standardError)
        for identifier in changes.inserted { Terminal.write("+ \(identifier)") }
        for identifier in changes.updated { Terminal.write("~ \(identifier)") }
        for identifier in changes.deleted { Terminal.write("- \(identifier)") }
        if changes.hasMore { Terminal.write("# more changes follow: run again with the new token", to: .standardError) }
        if tokenFile == nil { Terminal.write("token \(changes.newToken.encoded)", to: .standardError) }
    }
}

/// The changes `store history` prints, of either kind: in JSON as the library encodes them (each
/// identifier an object of its two halves), on the terminal as their string forms.
struct HistoryAnswer: Encodable {
    var inserted: [String]
    var updated: [String]
    var deleted: [String]
    var newToken: OrderHistoryToken
    var hasMore: Bool
    private let encodeChanges: (any Encoder) throws -> Void

    init<Identifier: CustomStringConvertible>(_ changes: StoreChanges<Identifier>) {
        inserted = changes.inserted.map(\.description)
        updated = changes.updated.map(\.description)
        deleted = changes.deleted.map(\.description)
        newToken = changes.newToken
        hasMore = changes.hasMore
        encodeChanges = { try changes.encode(to: $0) }
    }

    func encode(to encoder: any Encoder) throws { try encodeChanges(encoder) }
}

/// `wallet-orders store compact-history --keep N`
struct StoreCompactHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact-history",
        abstract: "Drop old entries of the store's change log.",
        discussion: """
            Keeps the newest --keep entries. History tokens older than what is kept are refused \
            afterwards (their holders resynchronize with `store history` without --since).

            Example:
              wallet-orders store compact-history --keep 100000
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("How many of the newest log entries to keep.", valueName: "n"))
    var keep: Int

    func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep must be 0 or more.") }
    }

    @Flag(help: "Print the result as JSON: {\"removed\": N}.")
    var json = false

    func run() async throws {
        let (existing, removed) = try await reportingFailuresAsync { () async throws -> (ExistingStore, Int) in
            let existing = try await store.openExisting(.readWrite)
            return (existing, try await existing.store?.compactHistory(keepingLast: keep) ?? 0)
        }
        if json {
            try JSONOutput.print(WithStore(["removed": removed], existing))
        } else {
            Terminal.write(existing.line)
            Terminal.write("Removed \(removed) log entr\(removed == 1 ? "y" : "ies").")
        }
    }
}

/// The history of a store that doesn't exist yet, in `store history --json`'s shape.
private struct EmptyHistory: Encodable {
    var inserted: [String] = []
    var updated: [String] = []
    var deleted: [String] = []
    var newToken: String? = nil
    var hasMore = false

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(inserted, forKey: .inserted)
        try container.encode(updated, forKey: .updated)
        try container.encode(deleted, forKey: .deleted)
        try container.encodeNil(forKey: .newToken)
        try container.encode(hasMore, forKey: .hasMore)
    }

    enum CodingKeys: String, CodingKey { case inserted, updated, deleted, newToken, hasMore }
}

/// A store command's JSON answer: `value`'s object with `"store"`, the store read (a path, or a
/// URL without its password), and `"storeExists"`, `false` for the default store not created yet.
struct WithStore<Value: Encodable>: Encodable {
    var value: Value
    var store: String
    var storeExists: Bool

    init(_ value: Value, _ existing: ExistingStore) {
        self.value = value
        store = existing.location.displayName
        storeExists = existing.store != nil
    }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(store, forKey: .store)
        try container.encode(storeExists, forKey: .storeExists)
    }

    private enum Key: String, CodingKey { case store, storeExists }
}

/// `wallet-orders store devices TYPE/ID`
struct StoreDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Each device registered for an order, what it saw, and why it isn't up to date.",
        discussion: """
            For each device (named by a short hash of its identifier): its registration, the \
            pushes to its token with APNs's answers, its requests for changed orders, the \
            fetches of the order, and a verdict: up-to-date, pushed-never-asked, \
            asked-tag-did-not-move, asked-never-fetched, fetched-old-version, push-refused (with \
            APNs's reason, and for credentials what would fix it), never-pushed. The trail is \
            written by `wallet-orders serve` (a few seconds late at most). Exit code 10 when the \
            store knows neither the order nor a device of it.

            Examples:
              wallet-orders store devices order.com.example.shop/ORDER-1
              wallet-orders store devices order.com.example.shop ORDER-1 --json \\
                  | jq '.devices[].verdict'
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var order: OrderIdentifierArguments

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let identifier = order.identifier
        let (existing, report, unregistrable) = try await reportingFailuresAsync {
            () async throws -> (ExistingStore, DeliveryReport?, String?) in
            let existing = try await store.openForQuestions()
            guard let opened = existing.store else { return (existing, nil, nil) }
            let report = try await opened.deliveryReport(for: identifier)
            guard report.current != nil || !report.devices.isEmpty else { return (existing, nil, nil) }
            // With no device, the stored order.json may say why none can register.
            let order = report.devices.isEmpty ? try? await opened.order(for: identifier) : nil
            return (existing, report, order.flatMap(Self.whyNoDeviceCanRegister))
        }
        guard let report else {
            Terminal.reportError("\(identifier) is not in the store \(existing.name).", hint: "`wallet-orders store list` shows what is.")
            throw StoreExitCode.notFound
        }
        if json {
            try JSONOutput.print(report)
            return
        }
        Terminal.write(existing.line)
        Terminal.write(Self.text(report, identifier, unregistrable: unregistrable))
    }

    /// Why no device can register for `order`, when order.json itself rules it out: Wallet
    /// registers only with the order's `webServiceURL`, sending its `authenticationToken`.
    static func whyNoDeviceCanRegister(_ order: Order) -> String? {
        guard order.webServiceURL == nil else { return nil }
        return
            "No device can: the stored order.json has no webServiceURL, so Wallet never asks a service about this order. Add webServiceURL (this service's https:// base URL) and an authenticationToken, and save a newer version; the customer then gets it only by adding the new archive."
    }

    static func text(_ report: DeliveryReport, _ identifier: FullyQualifiedOrderIdentifier, unregistrable: String? = nil) -> String {
        var lines = [
            "\(identifier): "
                + (report.current.map { "stored version \($0.updatedAt) (sha256 \($0.sha256.prefix(12))…)" } ?? "not stored any more")
        ]
        if report.devices.isEmpty {
            lines.append("No device has registered for it.")
            if let unregistrable { lines.append(unregistrable) }
        }
        for device in report.devices {
            let token = device.pushTokenPrefix.map { "token \($0)…, " } ?? ""
            lines.append("")
            lines.append("device \(device.device) (\(token)\(device.registered ? "registered" : "no longer registered")): \(device.verdict.summary)")
            lines.append("  " + device.explanation)
            for event in device.trail { lines.append("  " + Self.line(event)) }
        }
        return lines.joined(separator: "\n")
    }

    /// One event of a trail, for people.
    static func line(_ event: DeliveryEvent) -> String {
        let at = Timestamp(event.at).text
        let detail = event.detail
        switch event.kind {
        case .registered:
            return "\(at) registered" + (detail.tokenPrefix.map { " (token \($0)…)" } ?? "")
        case .unregistered:
            return "\(at) unregistered" + (detail.reason.map { " (\($0))" } ?? "")
        case .pushed:
            let answer = detail.status.map { "APNs \($0)" } ?? "no answer from APNs"
            return "\(at) pushed: \(answer)" + (detail.reason.map { " \($0)" } ?? "") + (detail.apnsID.map { ", apns-id \($0)" } ?? "")
        case .listed:
            let listed = detail.orderIdentifiers.map { $0.isEmpty ? "nothing" : $0.joined(separator: ", ") } ?? "nothing"
            return "\(at) asked for changes since \(detail.tagSent ?? "(no tag)"): \(detail.status ?? 0), \(listed)"
                + (detail.tagAnswered.map { ", new tag \($0)" } ?? "")
        case .fetched:
            var conditions: [String] = []
            if detail.ifNoneMatch == true { conditions.append("If-None-Match") }
            if detail.ifModifiedSince == true { conditions.append("If-Modified-Since") }
            return "\(at) fetched the order: \(detail.status ?? 0)" + (detail.updatedAt.map { ", version \($0)" } ?? "")
                + (conditions.isEmpty ? "" : " (\(conditions.joined(separator: ", ")))")
        }
    }
}
