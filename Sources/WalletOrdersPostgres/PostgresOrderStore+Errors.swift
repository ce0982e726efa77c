import Foundation
import NIOCore
import NIOSSL
import PostgresNIO
import WalletOrders
import WalletOrdersStore

/// postgres-nio's, NIO's and the server's errors as ``WalletOrdersError``: what happened, to
/// which server (never the password), and what to check.
struct ErrorContext: Sendable {
    var configuration: PostgresStoreConfiguration

    var store: String { "the order store \(configuration.redactedURL)" }

    /// The SQLSTATE of a server error, looking through transaction wrappers.
    static func sqlState(of error: any Error) -> String? {
        (unwrap(error) as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The error inside postgres-nio's transaction wrapper.
    static func unwrap(_ error: any Error) -> any Error {
        if let transaction = error as? PostgresTransactionError {
            return transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? error
        }
        return error
    }

    /// Whether `error` is NIOSSL's: a failed handshake or certificate check.
    static func isTLSFailure(_ error: any Error) -> Bool {
        if error is NIOSSLError || error is BoringSSLError { return true }
        // postgres-nio wraps handshake failures in NIO's uncleanShutdown or its own; look at the text too.
        return String(describing: error).contains("handshakeFailed")
    }

    func storeError(_ error: any Error, doing: String) -> WalletOrdersError {
        let error = Self.unwrap(error)
        if let error = error as? WalletOrdersError { return error }
        let endpoint = configuration.endpointDescription
        let unreachableHint =
            "Check that PostgreSQL runs at \(endpoint) and accepts connections (pg_hba.conf, listen_addresses), "
            + "and the host and port of the store URL."
        if let timeout = error as? PoolTimeout {
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) \(store): no database connection within \(timeout.timeout) (the server is unreachable, or all \(configuration.maximumConnections) pooled connections stayed busy).",
                hint: unreachableHint + " Under load, raise pool_max_conns or pool_timeout in the store URL.")
        }
        if error is ConnectionLost {
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) \(store): the connection to \(endpoint) closed during the call (the server restarted or ended the session); whether a write in flight was committed is unknown.",
                hint: "Retry: a save of the same archive answers from what is stored. " + unreachableHint)
        }
        if error is CancellationError {
            return WalletOrdersError(.storeUnavailable, "Could not \(doing) \(store): the operation was cancelled.")
        }
        // postgres-nio's pool passes its own errors through (the circuit breaker that trips when
        // no connection could be made for a while); their module is underscored, so match the name.
        if String(describing: type(of: error)) == "ConnectionPoolError" {
            let pool = error
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): no connection could be made to \(endpoint) (\(pool)).",
                hint: unreachableHint)
        }
        if Self.isTLSFailure(error) || (error as? PSQLError).flatMap(\.underlying).map(Self.isTLSFailure) == true {
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) \(store): the TLS handshake with \(endpoint) failed (\((error as? PSQLError)?.underlying ?? error)).",
                hint:
                    "Check sslmode and sslrootcert in the store URL: verify-full needs the CA that issued the server's certificate and a host name it names.",
                underlying: error)
        }
        guard let psql = error as? PSQLError else {
            if error is IOError || error is ChannelError {
                return WalletOrdersError(
                    .storeUnavailable, "Could not \(doing) \(store): cannot reach \(endpoint) (\(error)).", hint: unreachableHint,
                    underlying: error)
            }
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): \(error)", underlying: error)
        }
        switch psql.code {
        case .server:
            return serverError(psql, doing: doing)
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            let reason = psql.underlying.map { "\($0)" } ?? "\(psql.code)"
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): cannot reach \(endpoint) or the connection broke (\(reason)).",
                hint: unreachableHint, underlying: psql)
        case .sslUnsupported:
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) \(store): the server at \(endpoint) does not offer TLS, and sslmode=\(configuration.tlsMode.rawValue) requires it.",
                hint: "Turn on ssl in the server's postgresql.conf, or use sslmode=prefer or disable on a trusted network.",
                underlying: psql)
        case .failedToAddSSLHandler:
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): TLS could not be set up (\(psql.underlying.map { "\($0)" } ?? "")).",
                hint: "Check sslmode and sslrootcert in the store URL.", underlying: psql)
        case .authMechanismRequiresPassword:
            return WalletOrdersError(
                .storeAccessDenied, "Could not \(doing) \(store): the server asks for a password for '\(configuration.username)' and none was given.",
                hint:
                    "Put the password in PGPASSWORD, or in the URL given through WALLET_ORDERS_STORE (not on the command line, where every user sees it).",
                underlying: psql)
        case .unsupportedAuthMechanism, .saslError:
            return WalletOrdersError(
                .storeAccessDenied, "Could not \(doing) \(store): logging in as '\(configuration.username)' failed (\(psql.code)).",
                hint: "Check the user and password; the server's pg_hba.conf says which methods it accepts (scram-sha-256, md5, trust).",
                underlying: psql)
        case .poolClosed, .clientClosedConnection:
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): the store was closed.", hint: "Open the store again.", underlying: psql)
        case .queryCancelled:
            return WalletOrdersError(.storeUnavailable, "Could not \(doing) \(store): the query was cancelled.", underlying: psql)
        default:
            return WalletOrdersError(.storeUnavailable, "Could not \(doing) \(store): \(psql.code)", underlying: psql)
        }
    }

    private func serverError(_ psql: PSQLError, doing: String) -> WalletOrdersError {
        let state = psql.serverInfo?[.sqlState] ?? ""
        let message = psql.serverInfo?[.message] ?? "\(psql.code)"
        switch state {
        case "28P01", "28000":
            return WalletOrdersError(
                .storeAccessDenied, "Could not \(doing) \(store): the server refused the credentials of '\(configuration.username)' (\(message)).",
                hint: "Check the user and password (PGPASSWORD, or the URL in WALLET_ORDERS_STORE) and the server's pg_hba.conf.",
                underlying: psql)
        case "42501":
            return WalletOrdersError(
                .storeAccessDenied, "Could not \(doing) \(store): '\(configuration.username)' may not do that (\(message)).",
                hint: "Grant the role the privileges on the database (it creates its tables on first use), or use the role that owns them.",
                underlying: psql)
        case "3D000":
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): the database '\(configuration.database)' does not exist.",
                hint: "Create it (createdb \(configuration.database)), or fix the database name in the store URL.", underlying: psql)
        case "57014":
            return WalletOrdersError(
                .storeUnavailable,
                "Could not \(doing) \(store): a statement ran longer than statement_timeout (\(configuration.statementTimeout)) and was cancelled; nothing of it was written.",
                hint: "Try again; if the database is busy, raise statement_timeout in the store URL.", underlying: psql)
        case "53300", "53400":
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): the server has no connection slot free (\(message)).",
                hint: "Lower pool_max_conns on each server, or raise max_connections on the database.", underlying: psql)
        case "53100":
            return WalletOrdersError(
                .storeFull, "Could not \(doing) \(store): the database server's disk is full (\(message)); the transaction was rolled back.",
                hint: "Free space on the database server, then try again.", underlying: psql)
        case "25006":
            return WalletOrdersError(
                .storeReadOnly, "Could not \(doing) \(store): the server is read-only (a standby?): \(message).",
                hint: "Point the store URL at the primary.", underlying: psql)
        case "57P01", "57P02", "57P03", "08006", "08003", "08001", "08004":
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): the server is restarting or shutting down (\(message)).",
                hint: "Try again in a moment.", underlying: psql)
        case "22021", "22P05":
            return WalletOrdersError(
                .archiveRejected, "Could not \(doing) \(store): the order holds text PostgreSQL can't store (\(message)).",
                hint: "Identifiers and statuses may not contain NUL characters.", underlying: psql)
        default:
            return WalletOrdersError(
                .storeUnavailable, "Could not \(doing) \(store): the server answered \(state) \(message).", underlying: psql)
        }
    }
}
