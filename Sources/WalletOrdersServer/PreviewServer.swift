import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import Synchronization
import WalletOrders
public import WalletOrdersPreview

/// `wallet-orders preview --serve`: one order's preview page on loopback, rendered again when its
/// source folder (or archive) changes. The page polls `/version` and reloads itself.
public final class PreviewServer: Sendable {
    public let path: String
    public let previewer: OrderPreviewer
    public let options: PreviewOptions
    public let port: Int
    private let cache = Mutex<(fingerprint: String, html: String)?>(nil)
    /// The port it listens on once running (the real one when `port` is 0).
    private let boundPort = Mutex<Int?>(nil)

    /// - Parameters:
    ///   - path: an order source folder or a `.order` archive.
    ///   - port: the loopback port (0 picks a free one).
    /// How long a connection may send nothing before it is closed (a client that opens
    /// connections and never finishes a request holds none of them for long).
    public let idleTimeout: Duration

    public init(path: String, previewer: OrderPreviewer, options: PreviewOptions, port: Int, idleTimeout: Duration = .seconds(30)) {
        self.path = path
        self.previewer = previewer
        self.options = options
        self.port = port
        self.idleTimeout = idleTimeout
    }

    /// What changes when any file under `path` changes: every regular file's relative path, size
    /// and modification time, hashed.
    public func fingerprint() -> String {
        var hasher = FNV1a()
        let root = URL(fileURLWithPath: path)
        var entries: [String] = []
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        func describe(_ url: URL, _ name: String) {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { return }
            entries.append("\(name)\u{0}\(values.fileSize ?? -1)\u{0}\(values.contentModificationDate?.timeIntervalSince1970 ?? 0)")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys)
            while let url = walker?.nextObject() as? URL {
                describe(url, String(url.path.dropFirst(root.path.count)))
            }
        } else {
            describe(root, root.lastPathComponent)
        }
        for entry in entries.sorted() { hasher.add(entry) }
        return String(hasher.value, radix: 16)
    }

    /// The page for the files as they are now (cached until they change).
    public func page() -> String {
        let fingerprint = fingerprint()
        if let cached = cache.withLock({ $0 }), cached.fingerprint == fingerprint { return cached.html }
        var options = options
        options.liveReload = .init(versionPath: "/version", version: fingerprint)
        let html: String
        do {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                html = previewer.preview(try OrderSource(directory: URL(fileURLWithPath: path)), subject: path, options: options).html
            } else {
                let archive = try OrderArchive(bytes: BoundedFile.read(path, as: .archive))
                html = previewer.preview(archive, subject: path, options: options).html
            }
        } catch {
            // An unreadable source gives a page that says why, and reloads once it is fixed.
            let report = ValidationReport.unreadable(path, error)
            html = previewer.render(files: [:], report: report, options: options).html
        }
        cache.withLock { $0 = (fingerprint, html) }
        return html
    }

    /// Serves until SIGTERM or SIGINT; `onListening` gets the real port.
    public func run(logger: Logger = Logger(label: "wallet-orders.preview"), onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let server = self
        // Only this loopback address and port by name: a page elsewhere that rebinds its own host
        // name to 127.0.0.1 (DNS rebinding) sends its own Host and gets nothing.
        let router = HTTPMethodRules.router(context: BasicRequestContext.self) {
            LoopbackHostMiddleware { server.boundPort.withLock { $0 } }
        }
        let headers: HTTPFields = [
            .cacheControl: "no-store", .init("X-Content-Type-Options")!: "nosniff", .init("X-Frame-Options")!: "DENY",
            .init("Referrer-Policy")!: "no-referrer",
        ]
        router.get("/") { _, _ in
            var fields = headers
            fields[.contentType] = "text/html; charset=utf-8"
            fields[.init("Content-Security-Policy")!] = "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: server.page())))
        }
        router.get("version") { _, _ in
            var fields = headers
            fields[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: server.fingerprint())))
        }
        HTTPMethodRules.answerWrongMethods(on: router)
        let port = port
        // The service's connection handling: capped, timed, and safe to cancel.
        let connections = HTTPServerBuilder.guarded(
            limits: ConnectionLimits(idleTimeout: idleTimeout), trustedProxies: TrustedProxies(ranges: []), tls: nil)
        let application = Application(
            router: router, server: connections,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "wallet-orders-preview"),
            onServerRunning: { channel in
                let real = channel.localAddress?.port ?? port
                server.boundPort.withLock { $0 = real }
                await onListening(real)
            }, logger: logger)
        try await application.runService()
    }
}

/// Answers 421 unless the request's Host is `127.0.0.1:PORT` or `localhost:PORT` (PORT the one
/// listened on).
struct LoopbackHostMiddleware<Context: RequestContext>: RouterMiddleware {
    let port: @Sendable () -> Int?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let port = port(), let host = request.head.authority?.lowercased(), host == "127.0.0.1:\(port)" || host == "localhost:\(port)"
        else {
            return Response(
                status: .misdirectedRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "This preview answers to http://127.0.0.1:PORT/ only.\n")))
        }
        return try await next(request, context)
    }
}

/// FNV-1a, 64-bit: a fingerprint of file metadata, not a security measure.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        value ^= 0xff
        value = value &* 0x100_0000_01b3
    }
}
