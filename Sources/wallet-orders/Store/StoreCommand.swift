import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersStore
import WalletOrdersPostgres

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
    @Option(name: .customLong("store"), help: ArgumentHelp("The store: a SQLite file (a path or sqlite:PATH) or postgres://USER@HOST/DATABASE (default: $WALLET_ORDERS_STORE, else $XDG_DATA_HOME/wallet-orders/orders.sqlite).", valueName: "path-or-url"))
    var path: String?

    /// For read-only questions: `nil` when the store is the XDG default and doesn't exist yet, so
    /// asking creates nothing (the answer is an empty store's); else ``open(_:trustRoots:)``.
    func openForQuestions() async throws -> (any AnyOrderStore)? {
        try defaultStoreIsMissing() ? nil : try await open(.readOnly)
    }

    /// Whether the store is the XDG default and its file doesn't exist yet.
    func defaultStoreIsMissing() throws -> Bool {
        let location = try OrderStoreLocation.resolve(explicitPath: path)
        return location.source == .xdgDefault && !FileManager.default.fileExists(atPath: location.url.path)
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

    /// Opens the store at `location` (see ``open(_:updatedAtLimit:)``).
    static func open(
        _ location: OrderStoreLocation, _ access: SQLiteOrderStore.Access = .readWrite, updatedAtLimit: UpdatedAtLimit = .default
    ) async throws -> any AnyOrderStore {
        guard location.backend == .sqlite else {
            try Self.refusePassword(in: location)
            return try await location.openStore(updatedAtLimit: updatedAtLimit)
        }
        let files = FileManager.default
        let file = location.url.path
        let folder = location.url.deletingLastPathComponent().path
        // A store that doesn't exist yet is created empty, so a question about it answers notFound.
        let writable = !files.fileExists(atPath: file) || (files.isWritableFile(atPath: file) && files.isWritableFile(atPath: folder))
        let store = try location.open(access: writable ? .readWrite : access, updatedAtLimit: updatedAtLimit)
        if let warning = store.exposureWarning { Terminal.reportWarning(warning) }
        return store
    }
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
