import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections a server accepted and hasn't started serving yet.
///
/// NIO hands accepted connections to the server's accept loop through a buffer. When the task
/// running the server is cancelled, that buffer is dropped, and NIO traps the process for each
/// connection in it whose writer was never finished (swift-nio issues 2637 and 2813). Holding
/// each connection here until it is served, and closing the ones still here when their client
/// hangs up or the listening socket closes, makes cancelling the service safe.
///
/// Whoever takes a connection out owns it: ``serve(_:)`` serves it; otherwise it is closed.
final class UnservedConnections: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    private struct State {
        var waiting: [ObjectIdentifier: Connection] = [:]
        var watchedListeners: Set<ObjectIdentifier> = []
    }

    private let state = Mutex(State())

    /// Holds `connection` until it is served; closes it if its client hangs up first or the
    /// listening socket closes.
    func hold(_ connection: Connection) {
        let channel = connection.channel
        let key = ObjectIdentifier(channel)
        let watchListener = state.withLock { state in
            state.waiting[key] = connection
            guard let listener = channel.parent else { return nil as (any Channel)? }
            return state.watchedListeners.insert(ObjectIdentifier(listener)).inserted ? listener : nil
        }
        channel.closeFuture.whenComplete { [self] _ in
            if let connection = state.withLock({ $0.waiting.removeValue(forKey: key) }) { Self.close(connection) }
        }
        watchListener?.closeFuture.whenComplete { [self] _ in
            let left = state.withLock { state in
                defer { state.waiting.removeAll() }
                return Array(state.waiting.values)
            }
            for connection in left { Self.close(connection) }
        }
    }

    /// Takes `connection` out to serve it; `false` when it was closed before its turn came.
    func serve(_ connection: Connection) -> Bool {
        state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) } != nil
    }

    /// Finishes the connection's writer and closes it, as serving it would have.
    private static func close(_ connection: Connection) {
        Task { try? await connection.executeThenClose { _, _ in } }
    }
}
