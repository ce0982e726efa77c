public import Foundation
public import WalletOrders

/// Where the command-line tool (and any program that wants the same convention) keeps its store.
///
/// A location is a store URL or a path:
/// - a path, or `sqlite:PATH` (`sqlite:///absolute/path`): an embedded SQLite file (``SQLiteOrderStore``);
/// - `postgres://…` or `postgresql://…`: a PostgreSQL database (`PostgresOrderStore` in
///   `WalletOrdersPostgres`, whose `OrderStoreLocation.openStore` opens either kind).
///
/// The first of these that is set wins:
/// 1. an explicit path or URL (`--store`);
/// 2. the `WALLET_ORDERS_STORE` environment variable;
/// 3. `$XDG_DATA_HOME/wallet-orders/orders.sqlite` (XDG Base Directory Specification), where an
///    unset, empty or relative `XDG_DATA_HOME` means `$HOME/.local/share`.
///
/// Only the default location's folder is created (mode 0700, as the XDG specification asks);
/// an explicit path or `WALLET_ORDERS_STORE` must name a file in a folder that exists, so a
/// typo doesn't silently start a new, empty store somewhere else.
public struct OrderStoreLocation: Sendable, Hashable {
    /// The store file (a `file:` URL) for ``Backend/sqlite``; the `postgres://` URL for ``Backend/postgreSQL``.
    public var url: URL
    /// Where the location came from.
    public var source: Source
    /// Which kind of store the location names.
    public var backend: Backend = .sqlite

    /// The kinds of store a location can name.
    public enum Backend: String, Sendable, Hashable {
        /// An embedded SQLite file.
        case sqlite
        /// A PostgreSQL database.
        case postgreSQL = "postgresql"
    }

    /// The location for messages: the file's path, or the URL without its password.
    public var displayName: String {
        switch backend {
        case .sqlite: url.path
        case .postgreSQL: Self.redactingPassword(url.absoluteString)
        }
    }

    /// `text` without the password of a URL's user information (`postgres://user@host/db`).
    public static func redactingPassword(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = nil
        return components.string ?? text
    }

    /// Reads a store URL or path: `postgres://…`/`postgresql://…`, `sqlite:PATH`, or a path.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` for another scheme (`mysql://…`)
    ///   or a URL that doesn't parse, with a hint showing the accepted forms.
    public static func parse(_ text: String, source: Source = .explicit) throws -> OrderStoreLocation {
        let hint = "A store is a path (orders.sqlite), sqlite:PATH, or postgres://USER@HOST:5432/DATABASE."
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: text), components.scheme != nil, let url = components.url else {
                throw WalletOrdersError(
                    .invalidConfiguration, "'\(redactingPassword(text))' is not a valid PostgreSQL URL.",
                    hint: "Percent-encode special characters in the user name and password (@ as %40, / as %2F). " + hint)
            }
            return OrderStoreLocation(url: url, source: source, backend: .postgreSQL)
        }
        if lowered.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") {
                path.removeFirst(2)
                guard path.hasPrefix("/") else {
                    throw WalletOrdersError(
                        .invalidConfiguration, "'\(text)' names a host; a SQLite store is a file on this machine.",
                        hint: "Write sqlite:relative/path.sqlite or sqlite:///absolute/path.sqlite.")
                }
            }
            guard !path.isEmpty else {
                throw WalletOrdersError(.invalidConfiguration, "'\(text)' names no file.", hint: hint)
            }
            return OrderStoreLocation(url: URL(fileURLWithPath: path.removingPercentEncoding ?? path), source: source)
        }
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
            text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        {
            throw WalletOrdersError(
                .invalidConfiguration, "'\(redactingPassword(text))' is a \(text[..<colon]) URL; stores are SQLite files or PostgreSQL databases.",
                hint: hint)
        }
        return OrderStoreLocation(url: URL(fileURLWithPath: text), source: source)
    }

    /// Where a location came from.
    public enum Source: String, Sendable, Hashable {
        /// An explicit path (the `--store` option).
        case explicit
        /// The `WALLET_ORDERS_STORE` environment variable.
        case environment
        /// The XDG default.
        case xdgDefault
    }

    /// The environment variable that names the store.
    public static let environmentVariable = "WALLET_ORDERS_STORE"

    /// Resolves the location.
    ///
    /// - Parameters:
    ///   - explicitPath: A path or store URL given by the user, or `nil`.
    ///   - environment: The environment to read (default: this process's).
    /// - Throws: ``WalletOrdersError/Code/storeUnavailable`` when no location can be worked out
    ///   (no `HOME` either); ``WalletOrdersError/Code/invalidConfiguration`` for a URL that names
    ///   no kind of store this package has.
    public static func resolve(
        explicitPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> OrderStoreLocation {
        if let explicitPath, !explicitPath.isEmpty {
            return try parse(explicitPath, source: .explicit)
        }
        if let path = environment[environmentVariable], !path.isEmpty {
            return try parse(path, source: .environment)
        }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            dataHome = home + "/.local/share"
        } else {
            throw WalletOrdersError(
                .storeUnavailable, "No store location: none was given, and neither \(environmentVariable), XDG_DATA_HOME nor HOME is set.",
                hint: "Give a store location, or set \(environmentVariable).")
        }
        return OrderStoreLocation(
            url: URL(fileURLWithPath: dataHome).appendingPathComponent("wallet-orders/orders.sqlite"), source: .xdgDefault)
    }

    /// Creates the default location's folder when missing; explicit locations are left alone.
    ///
    /// - Throws: ``WalletOrdersError/Code/storeReadOnly`` when the folder can't be created.
    public func prepare() throws {
        guard source == .xdgDefault, backend == .sqlite else { return }
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WalletOrdersError(
                .storeReadOnly, "Could not create the store folder \(folder.path): \(error.localizedDescription)",
                hint: "Make \(folder.deletingLastPathComponent().path) writable, or choose another store location (or \(Self.environmentVariable)).",
                underlying: error)
        }
    }

    /// Opens the SQLite store at this location: for ``SQLiteOrderStore/Access/readWrite``
    /// creating its folder and file when needed; for ``SQLiteOrderStore/Access/readOnly`` only
    /// an existing store, creating nothing.
    ///
    /// `updatedAtLimit` is how far ahead of the clock an archive's `updatedAt` may be.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` for a PostgreSQL location (open
    ///   those with `WalletOrdersPostgres`), or the errors of
    ///   ``SQLiteOrderStore/init(url:busyTimeout:access:updatedAtLimit:)``.
    public func open(
        access: SQLiteOrderStore.Access = .readWrite, updatedAtLimit: UpdatedAtLimit = .default
    ) throws -> SQLiteOrderStore {
        guard backend == .sqlite else {
            throw WalletOrdersError(
                .invalidConfiguration, "\(displayName) is a PostgreSQL store, which this call can't open.",
                hint: "Open it with WalletOrdersPostgres: PostgresOrderStore(url:) or OrderStoreLocation.openStore().")
        }
        if access == .readWrite { try prepare() }
        return try SQLiteOrderStore(url: url, access: access, updatedAtLimit: updatedAtLimit)
    }
}
