public import Hummingbird
public import NIOCore
import WalletOrders

/// The request context of the order web service: Hummingbird's core context plus the client's
/// address (for the log endpoint's rate limit and the request log) and, under `/merchant/v1/`,
/// the order types the merchant's API key may act on.
public struct OrderRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client's address.
    public let remoteAddress: SocketAddress?
    /// The scope of the merchant API key that authenticated the request: set by the merchant API's
    /// authenticator middleware before its handlers run; `nil` outside `/merchant/v1/`.
    public internal(set) var merchantScope: MerchantScope?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The most a body decoded with `request.decode(as:context:)` may hold: the ceiling for any
    /// endpoint (``OrderServiceLimits/maximumUploadBytes``) unless a handler lowers it for its
    /// own body (a registration's is 4 KiB).
    public var maxUploadSize = OrderServiceLimits.maximumUploadBytes
}

/// The sizes the service accepts, and why.
public enum OrderServiceLimits {
    /// The largest request body of any endpoint: a signed archive, as large as an archive file may
    /// be (`ArchiveLimits.maximumArchiveFileBytes`, 8 MiB; Wallet takes bundles under 5 MB).
    public static let maximumUploadBytes = ArchiveLimits.maximumArchiveFileBytes
    /// A registration body (`{"pushToken": "…"}`).
    public static let maximumRegistrationBodyBytes = 4 << 10
    /// A `POST /v1/log` body.
    public static let maximumLogBodyBytes = 64 << 10
    /// Log entries kept from one `POST /v1/log`, and bytes kept of each.
    public static let maximumLogEntries = 100
    /// Bytes kept of one log entry.
    public static let maximumLogEntryBytes = 1_024
    /// The longest device identifier accepted.
    public static let maximumDeviceIdentifierBytes = 256
}
