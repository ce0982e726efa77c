import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What came back for one request: status, headers and the body (read up to the limit).
struct ServiceResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    /// The first value of a header, if sent.
    func header(_ name: String) -> String? { headers.first(name: name) }

    /// `401`, or `200, Content-Type: text/html`: the status and the headers that matter here.
    var summary: String {
        var parts = ["\(status)"]
        for name in ["Content-Type", "Last-Modified", "ETag"] {
            if let value = header(name) { parts.append("\(name): \(value)") }
        }
        return parts.joined(separator: ", ")
    }
}

/// Why a request got no usable answer.
enum ServiceExchangeFailure: Error, Sendable, CustomStringConvertible {
    /// No answer at all: refused, reset, TLS failed, or nothing within the timeout.
    case noAnswer(String)
    /// The body was larger than the checker reads.
    case bodyTooLarge(status: Int, limit: Int)

    var description: String {
        switch self {
        case .noAnswer(let reason): "no answer (\(reason))"
        case .bodyTooLarge(let status, let limit): "\(status) with a body over \(limit) bytes (not read further)"
        }
    }
}

/// One HTTP client for one run: redirects are answers (not followed), TLS certificates are
/// verified, every request has a deadline covering its body, and bodies are read up to a limit.
struct ServiceHTTP: Sendable {
    let client: HTTPClient
    let baseURL: String
    let timeout: Duration
    let maximumBodyBytes: Int

    init(baseURL: String, timeout: Duration, maximumBodyBytes: Int) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: Self.timeAmount(timeout), read: Self.timeAmount(timeout)))
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.baseURL = baseURL
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// Sends one request to `path` (below the base URL) and reads the answer, within the timeout.
    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async -> Result<ServiceResponse, ServiceExchangeFailure> {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        // One deadline for the whole exchange, the body included: the client's own read timeout
        // starts again at every byte, so a service sending a byte a second would never end.
        let deadline = NIODeadline.now() + Self.timeAmount(timeout)
        let bodyDeadline = ContinuousClock.now + timeout
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return .failure(.noAnswer(Self.reason(error, timeout: timeout)))
        }
        let status = Int(response.status.code)
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumBodyBytes {
            return .failure(.bodyTooLarge(status: status, limit: maximumBodyBytes))
        }
        do {
            let body = try await Self.collect(response.body, upTo: maximumBodyBytes, by: bodyDeadline)
            return .success(ServiceResponse(status: status, headers: response.headers, body: Array(buffer: body)))
        } catch is NIOTooManyBytesError {
            return .failure(.bodyTooLarge(status: status, limit: maximumBodyBytes))
        } catch is BodyDeadlineExceeded {
            return .failure(.noAnswer("the body of a \(status) answer: not all of it within \(timeout.components.seconds) s"))
        } catch {
            return .failure(.noAnswer("the body of a \(status) answer: \(Self.reason(error, timeout: timeout))"))
        }
    }

    /// The body's bytes up to `limit`, or ``BodyDeadlineExceeded`` when it hasn't all arrived by
    /// `deadline` (the read is cancelled then).
    static func collect(
        _ body: HTTPClientResponse.Body, upTo limit: Int, by deadline: ContinuousClock.Instant
    ) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else { throw BodyDeadlineExceeded() }
            return buffer
        }
    }

    struct BodyDeadlineExceeded: Error {}

    /// A short reason for a failed exchange.
    static func reason(_ error: any Error, timeout: Duration) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return "nothing within \(timeout.components.seconds) s"
            default:
                return "\(error)"
            }
        }
        return String(describing: error)
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
