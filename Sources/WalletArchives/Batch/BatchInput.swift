/// Where one order of a batch came from, for messages: a line of a JSON Lines file, a file, or a
/// label of the caller's.
public enum BatchOrigin: Sendable, Hashable, CustomStringConvertible {
    /// A line of a JSON Lines file, counted from 1.
    case line(Int)
    /// A file, by the name or path the caller gave.
    case file(String)
    /// Anything else the caller wants to see in messages.
    case label(String)

    /// `line 12`, the file name, or the label.
    public var description: String {
        switch self {
        case .line(let number): "line \(number)"
        case .file(let name): name
        case .label(let label): label
        }
    }
}

/// One item of a batch: the bytes of its JSON document (an order's `order.json`, or the fields of
/// one pass of a pass batch) and where they came from.
public struct BatchInput: Sendable {
    /// Where the order came from, for messages.
    public var origin: BatchOrigin
    /// The exact bytes of the document (`order.json` for an order).
    public var orderJSON: [UInt8]
    /// The exact bytes of the document (the name for any kind of batch).
    public var json: [UInt8] { orderJSON }
    /// Why the order could not even be read, when it couldn't.
    public var readFailure: WalletOrdersError?

    /// An order to build.
    public init(origin: BatchOrigin, orderJSON: [UInt8]) {
        self.origin = origin
        self.orderJSON = orderJSON
        self.readFailure = nil
    }

    /// An order that could not be read (an unreadable file, a line over the size limit): the
    /// batch reports it as a failure with `error` and goes on with the others.
    public static func unreadable(origin: BatchOrigin, error: WalletOrdersError) -> Self {
        var input = Self(origin: origin, orderJSON: [])
        input.readFailure = error
        return input
    }
}
