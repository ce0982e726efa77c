public import WalletOrders

// The service checker's error code: declared by the target that throws it, on the one error type.

extension WalletOrdersError.Code {
    /// The order web service being checked could not be reached at all: the first request got
    /// no answer (refused, a name that doesn't resolve, a TLS failure, or nothing within the
    /// timeout). No check ran.
    public static let serviceUnreachable = Self("service-unreachable")
}
