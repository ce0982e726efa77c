import Foundation
import Logging
import Testing
import WalletOrdersPreview
import WalletOrdersServer
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// A task that runs the service may be cancelled at any time: by its embedder, by a test's
/// task group, by a service group that gave up waiting. Connections the server accepted but
/// hadn't started serving must then be closed, not trap the process (NIO refuses to drop a
/// connection whose writer was never finished).
@Suite("Cancelling the service while connections wait to be served closes them; the process lives on (live HTTP, raw sockets)")
struct CancellationTests {
    enum Server: String, CaseIterable, CustomStringConvertible {
        case orderService = "the order service"
        case preview = "preview --serve"
        var description: String { rawValue }
    }

    @Test(
        "A burst of 64 connections, then the server's task is cancelled at once: it ends, and every connection is closed",
        arguments: Server.allCases, 0..<4)
    func cancelDuringBurst(server: Server, round: Int) async throws {
        let folder = try TemporaryFolder("cancel")
        defer { folder.remove() }
        let store = try SQLiteOrderStore(url: folder.file("orders.sqlite"))
        defer { try? store.close() }
        var logger = Logger(label: "test.cancel")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task: Task<Void, any Error>
        switch server {
        case .orderService:
            let service = OrderServer(
                store: store, configuration: try OrderServer.Configuration(port: 0, validator: TestPKI.validator), pushSender: nil, logger: logger)
            task = Task { try await service.run { _, port in continuation.yield(port) } }
        case .preview:
            let preview = PreviewServer(
                path: Repository.sample("store-pickup").path, previewer: OrderPreviewer(validator: TestPKI.validator), options: PreviewOptions(),
                port: 0)
            task = Task { try await preview.run(logger: logger) { continuation.yield($0) } }
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let sockets = try await onOwnThread { try (0..<64).map { _ in try RawSocket(port: port) } }
        task.cancel()
        _ = await task.result
        // Every connection is closed by the server: the ones it served and the ones it never got to.
        let closed = try await onOwnThread { RawSocket.closedByServer(sockets, seconds: 20) }
        #expect(closed.allSatisfy { $0 }, "\(closed.filter { !$0 }.count) of 64 left open")
    }
}
