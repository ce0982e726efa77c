import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersPostgres
import WalletOrdersStore
import WalletPasses

/// `wallet-orders store …`: keep signed archives and answer FinanceKit's questions about them.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Keep signed archives in an order store and answer FinanceKit's questions about them.",
        discussion: """
            The store is one SQLite file, or a PostgreSQL database shared by many servers. Its \
            location is the first of: --store PATH|URL, the WALLET_ORDERS_STORE environment \
            variable, $XDG_DATA_HOME/wallet-orders/orders.sqlite (default \
            ~/.local/share/wallet-orders/orders.sqlite, created when missing). A location is a \
            path or sqlite:PATH (SQLite), or postgres://USER@HOST:5432/DATABASE?sslmode=require \
            (PostgreSQL; keep the password in PGPASSWORD or in WALLET_ORDERS_STORE, never on the \
            command line).

            Only save (and copy, into its destination) creates a store: the other commands \
            refuse a --store or WALLET_ORDERS_STORE file that doesn't exist, and take the \
            default store that doesn't exist yet as an empty one. Every answer names the store \
            it read (a first line 'store: PATH'; "store" and "storeExists" keys in JSON).

            Orders are keyed by (orderTypeIdentifier, orderIdentifier), exactly; versions compare \
            by updatedAt as an instant. Only archives that verify and validate without errors are \
            stored. Answers are FinanceKit's: save gives added, newerExisting or cancelled; \
            contains gives exists, newerExists, olderExists or notFound.

            Exit codes: 0 success (contains: exists); 1 failure; 64 usage error; \
            contains: 10 notFound, 11 newerExists, 12 olderExists; get and delete: 10 notFound.

            Examples:
              wallet-orders store save out/*.order --trust-root certs/root-ca.pem
              wallet-orders store contains order.com.example.shop/ORDER-1
              wallet-orders store list --status open --sort -updatedAt --limit 20
              wallet-orders store get order.com.example.shop ORDER-1 --out ORDER-1.order
              wallet-orders store history --token-file last-token
            """,
        subcommands: [
            StoreSaveCommand.self, StoreContainsCommand.self, StoreGetCommand.self, StoreListCommand.self,
            StoreDeleteCommand.self, StoreHistoryCommand.self, StoreCompactHistoryCommand.self, StoreCopyCommand.self,
            StoreDevicesCommand.self,
        ]
    )
}

/// The exit codes of `store contains`, `store get` and `store delete` beyond 0, 1 and 64.
enum StoreExitCode {
    static let notFound = ExitCode(10)
    static let newerExists = ExitCode(11)
    static let olderExists = ExitCode(12)

    static func forContains(_ result: ContainsOrderResult) -> ExitCode {
        switch result {
        case .exists: .success
        case .notFound: notFound
        case .newerExists: newerExists
        case .olderExists: olderExists
        }
    }
}

/// `--store`, shared by every store command (`--trust-root` is `save`'s alone: nothing else
/// verifies an archive).
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The store: a SQLite file (a path or sqlite:PATH) or postgres://USER@HOST/DATABASE (default: $WALLET_ORDERS_STORE, else $XDG_DATA_HOME/wallet-orders/orders.sqlite).",
            valueName: "path-or-url"))
    var path: String?

    /// For read-only questions: the store, opened as ``open(_:trustRoots:updatedAtLimit:)``
    /// `.readOnly` does; see ``openExisting(_:)``.
    func openForQuestions() async throws -> ExistingStore {
        try await openExisting(.readOnly)
    }

    /// For commands that don't save (questions, delete, compact-history): they never create a
    /// store. A SQLite store named by --store or WALLET_ORDERS_STORE must exist (a typo is
    /// refused, not answered as an empty store); the XDG default that doesn't exist yet is an
    /// empty store, left uncreated (``ExistingStore/store`` is `nil`).
    func openExisting(_ access: SQLiteOrderStore.Access) async throws -> ExistingStore {
        let location = try OrderStoreLocation.resolve(explicitPath: path)
        if location.source == .xdgDefault && location.backend == .sqlite && !FileManager.default.fileExists(atPath: location.url.path) {
            return ExistingStore(store: nil, location: location)
        }
        try Self.refuseMissing(location)
        return ExistingStore(store: try await Self.open(location, access), location: location)
    }

    /// Throws ``WalletOrdersError/Code/storeNotFound`` when `location` names a SQLite file that
    /// doesn't exist.
    static func refuseMissing(_ location: OrderStoreLocation) throws {
        guard location.backend == .sqlite, !FileManager.default.fileExists(atPath: location.url.path) else { return }
        let named = location.source == .environment ? "named by \(OrderStoreLocation.environmentVariable)" : "given with --store"
        let check = location.source == .environment ? "Check \(OrderStoreLocation.environmentVariable)" : "Check the path"
        throw WalletOrdersError(
            .storeNotFound, "There is no store at '\(location.displayName)' (\(named)); nothing was created.",
            hint: "\(check); only `wallet-orders store save` creates a store.")
    }

    /// Opens the store (a SQLite file or a PostgreSQL database).
    ///
    /// Read-only questions pass `.readOnly`: they open a SQLite store read-only where its file or
    /// folder can't be written (a read-only mount, mode 444 as another user), which never
    /// creates, upgrades or writes it. Where it can be written they open it read-write as saves
    /// do, so a store left behind by an older wallet-orders, or by a process killed while it
    /// created the store, is upgraded or finished rather than refused.
    func open(_ access: SQLiteOrderStore.Access = .readWrite, updatedAtLimit: UpdatedAtLimit = .default) async throws
        -> any AnyOrderStore
    {
        try await Self.open(try OrderStoreLocation.resolve(explicitPath: path), access, updatedAtLimit: updatedAtLimit)
    }

    /// The validator for archives saved into a store: Apple's root and `--trust-root`.
    static func validator(trustRoots: [String]) throws -> OrderValidator {
        try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: try TrustRoots.read(trustRoots)))
    }

    /// The validator for passes saved into a store: Apple's root and `--trust-root`.
    static func passValidator(trustRoots: [String]) throws -> PassValidator {
        try PassValidator(verifier: PassArchiveVerifier(additionalTrustAnchors: try TrustRoots.read(trustRoots)))
    }

    /// Opens the store at `location` (see ``open(_:updatedAtLimit:)``).
    static func open(
        _ location: OrderStoreLocation, _ access: SQLiteOrderStore.Access = .readWrite, updatedAtLimit: UpdatedAtLimit = .default
    ) async throws -> any AnyOrderStore {
        guard location.backend == .sqlite else {
            try Self.refusePassword(in: location)
            return try await location.openStore(updatedAtLimit: updatedAtLimit)
        }
        // Only saving creates a store: a question about one that doesn't exist is refused.
        if access == .readOnly { try refuseMissing(location) }
        let files = FileManager.default
        let file = location.url.path
        let folder = location.url.deletingLastPathComponent().path
        let existed = files.fileExists(atPath: file)
        let writable = !existed || (files.isWritableFile(atPath: file) && files.isWritableFile(atPath: folder))
        let store = try location.open(access: writable ? .readWrite : access, updatedAtLimit: updatedAtLimit)
        if let warning = store.exposureWarning { Terminal.reportWarning(warning) }
        // A misspelt --store would otherwise fill a new file without a word.
        if !existed { Terminal.write("note: there was no store at \(file); a new one was created there.", to: .standardError) }
        return store
    }
}

/// A store a command found (or the XDG default, not created yet), and its name for the answer.
struct ExistingStore {
    /// `nil` for the XDG default store that doesn't exist yet: an empty store.
    var store: (any AnyOrderStore)?
    var location: OrderStoreLocation

    /// The store as every answer names it: its path (a URL without its password), and
    /// `(not created yet, so empty)` for the XDG default that doesn't exist.
    var name: String { location.displayName + (store == nil ? " (not created yet, so empty)" : "") }

    /// `store: NAME`, the line a text answer starts with.
    var line: String { "store: " + name }
}

extension StoreOptions {
    /// A password in `--store` is visible to every user (`ps`): refused, as passphrases are.
    static func refusePassword(in location: OrderStoreLocation) throws {
        guard location.source == .explicit, location.backend == .postgreSQL,
            URLComponents(url: location.url, resolvingAgainstBaseURL: false)?.password != nil
        else { return }
        throw WalletOrdersError(
            .invalidConfiguration,
            "The --store URL holds a password, which every user of this machine can read in the process list.",
            hint: "Put the URL in WALLET_ORDERS_STORE (or the config file) instead, or leave the password out and set PGPASSWORD.")
    }
}

/// TYPE_ID ORDER_ID, the two halves of a fully qualified order identifier, or TYPE_ID/ORDER_ID as
/// the tool prints it (`order.com.example.shop/ORDER-1`; a `/` or `%` inside ORDER_ID written
/// `%2F`, `%25`).
struct OrderIdentifierArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The order's orderTypeIdentifier, or TYPE_ID/ORDER_ID as the tool prints it.", valueName: "type-id"))
    var orderTypeIdentifier: String

    @Argument(help: ArgumentHelp("The order's orderIdentifier (not with TYPE_ID/ORDER_ID).", valueName: "order-id"))
    var orderIdentifier: String?

    func validate() throws {
        if orderIdentifier == nil && FullyQualifiedOrderIdentifier(stringForm: orderTypeIdentifier) == nil {
            throw ValidationError(
                "Give the order as TYPE_ID ORDER_ID or TYPE_ID/ORDER_ID (e.g. order.com.example.shop/ORDER-1); got '\(orderTypeIdentifier)'.")
        }
    }

    var identifier: FullyQualifiedOrderIdentifier {
        if let orderIdentifier {
            return FullyQualifiedOrderIdentifier(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        }
        return FullyQualifiedOrderIdentifier(stringForm: orderTypeIdentifier)
            ?? FullyQualifiedOrderIdentifier(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: "")
    }
}

/// An RFC 3339 date-time given on the command line.
struct TimestampArgument: ExpressibleByArgument {
    var timestamp: Timestamp

    init?(argument: String) {
        guard let timestamp = try? Timestamp(rfc3339: argument) else { return nil }
        self.timestamp = timestamp
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// Runs an async command body, turning library errors into `error: …` / `hint: …` on stderr and exit code 1.
func reportingFailuresAsync<T>(verbose: Bool = false, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as WalletOrdersError {
        Terminal.reportError(error.message, hint: CLIHints.hint(for: error))
        if verbose, let underlying = error.underlying {
            Terminal.write("caused by: \(underlying)", to: .standardError)
        }
        throw ExitCode.failure
    }
}

/// `--sort`: the library's ``OrderSort`` as a command-line value.
enum SortArgument: String, ExpressibleByArgument, CaseIterable {
    case updatedAtDescending = "-updatedAt"
    case updatedAtAscending = "updatedAt"
    case identifier

    var sort: OrderSort {
        switch self {
        case .updatedAtDescending: .updatedAtDescending
        case .updatedAtAscending: .updatedAtAscending
        case .identifier: .identifier
        }
    }
}
