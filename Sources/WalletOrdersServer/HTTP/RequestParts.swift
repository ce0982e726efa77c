import Hummingbird
import NIOCore
import WalletOrders

/// The parts of a request every route reads the same way: path segments (percent-decoded
/// strictly), the order and device they name, and a body read up to a limit.
extension OrderRequestContext {
    /// The path segment `{name}`, percent-decoded; 400 `bad-path` when it isn't valid
    /// percent-encoded UTF-8.
    func pathSegment(_ name: String) throws -> String {
        guard let raw = parameters.get(name), let decoded = PathComponent.decode(raw) else {
            throw ServiceError.badRequest(
                "bad-path", "The path segment {\(name)} is not valid percent-encoded UTF-8.",
                hint: "Percent-encode identifiers as RFC 3986 says (%XX with two hex digits).")
        }
        return decoded
    }

    /// The order `{type}/{order}` names.
    func orderIdentifier() throws -> FullyQualifiedOrderIdentifier {
        FullyQualifiedOrderIdentifier(orderTypeIdentifier: try pathSegment("type"), orderIdentifier: try pathSegment("order"))
    }

    /// The device `{device}` names, at most ``OrderServiceLimits/maximumDeviceIdentifierBytes``.
    func deviceIdentifier() throws -> String {
        let device = try pathSegment("device")
        guard device.utf8.count <= OrderServiceLimits.maximumDeviceIdentifierBytes else {
            throw ServiceError.badRequest(
                "bad-path", "The device identifier is longer than \(OrderServiceLimits.maximumDeviceIdentifierBytes) bytes.")
        }
        return device
    }
}

extension Request {
    /// The body's bytes, refusing more than `limit` with 413 `body-too-large`.
    func bodyBytes(upTo limit: Int) async throws -> [UInt8] {
        do {
            return Array(try await body.collect(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw ServiceError(.contentTooLarge, code: "body-too-large", "The request body is larger than \(limit) bytes.")
        } catch let error where ServiceError.isBodyStreamFailure(error) {
            throw ServiceError.bodyIncomplete
        }
    }
}
