public import Foundation
public import WalletOrders

/// Where the command-line tool (and any program that wants the same convention) keeps its store.
///
/// The first of these that is set wins:
/// 1. an explicit path (`--store PATH`);
/// 2. the `WALLET_ORDERS_STORE` environment variable;
/// 3. `$XDG_DATA_HOME/wallet-orders/orders.sqlite` (XDG Base Directory Specification), where an
///    unset, empty or relative `XDG_DATA_HOME` means `$HOME/.local/share`.
///
/// Only the default location's folder is created (mode 0700, as the XDG specification asks);
/// an explicit path or `WALLET_ORDERS_STORE` must name a file in a folder that exists, so a
/// typo doesn't silently start a new, empty store somewhere else.
public struct OrderStoreLocation: Sendable, Hashable {
    /// The store file.
    public var url: URL
    /// Where the location came from.
    public var source: Source

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
    ///   - explicitPath: A path given by the user, or `nil`.
    ///   - environment: The environment to read (default: this process's).
    /// - Throws: ``WalletOrdersError/Code/storeUnavailable`` when no location can be worked out
    ///   (no `HOME` either).
    public static func resolve(
        explicitPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> OrderStoreLocation {
        if let explicitPath, !explicitPath.isEmpty {
            return OrderStoreLocation(url: URL(fileURLWithPath: explicitPath), source: .explicit)
        }
        if let path = environment[environmentVariable], !path.isEmpty {
            return OrderStoreLocation(url: URL(fileURLWithPath: path), source: .environment)
        }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            dataHome = home + "/.local/share"
        } else {
            throw WalletOrdersError(
                .storeUnavailable, "No store location: neither --store, \(environmentVariable), XDG_DATA_HOME nor HOME is set.",
                hint: "Pass --store PATH or set \(environmentVariable).")
        }
        return OrderStoreLocation(
            url: URL(fileURLWithPath: dataHome).appendingPathComponent("wallet-orders/orders.sqlite"), source: .xdgDefault)
    }

    /// Creates the default location's folder when missing; explicit locations are left alone.
    ///
    /// - Throws: ``WalletOrdersError/Code/storeReadOnly`` when the folder can't be created.
    public func prepare() throws {
        guard source == .xdgDefault else { return }
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WalletOrdersError(
                .storeReadOnly, "Could not create the store folder \(folder.path): \(error.localizedDescription)",
                hint: "Make \(folder.deletingLastPathComponent().path) writable, or choose a store with --store PATH or \(Self.environmentVariable).",
                underlying: error)
        }
    }

    /// Opens the SQLite store at this location: for ``SQLiteOrderStore/Access/readWrite``
    /// creating its folder and file when needed; for ``SQLiteOrderStore/Access/readOnly`` only
    /// an existing store, creating nothing.
    public func open(validator: OrderValidator? = nil, access: SQLiteOrderStore.Access = .readWrite) throws -> SQLiteOrderStore {
        if access == .readWrite { try prepare() }
        return try SQLiteOrderStore(url: url, validator: validator, access: access)
    }
}
