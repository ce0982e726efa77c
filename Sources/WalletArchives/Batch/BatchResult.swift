/// A built archive of either kind, as a batch hands it over: its bytes and the notes of building.
public protocol BuiltArchive: Sendable {
    /// The archive file's bytes.
    var bytes: [UInt8] { get }
    /// Warnings and notes from building (nothing here stopped the build).
    var diagnostics: [Diagnostic] { get }
}

/// What became of one item of a batch (`OrderBatchResult` for orders, `PassBatchResult` for passes).
public struct BatchResult<Archive: BuiltArchive>: Sendable {
    /// The position of the item in the input, from 0.
    public var index: Int
    /// Where the item came from.
    public var origin: BatchOrigin
    /// The archive, or why there is none.
    public var outcome: Outcome
    /// The validation findings, when the batch validates: warnings and notes for a built item,
    /// the errors for one refused by validation.
    public var report: ValidationReport?

    /// The archive, or why there is none.
    public enum Outcome: Sendable {
        /// Built and signed; `fileName` is made from its identifier (``ArchiveFileName``).
        case built(Archive, fileName: String)
        /// Not built: unreadable, not valid, refused by validation, or signing failed.
        case failed(WalletOrdersError)
    }

    /// Creates a result.
    public init(index: Int, origin: BatchOrigin, outcome: Outcome, report: ValidationReport? = nil) {
        self.index = index
        self.origin = origin
        self.outcome = outcome
        self.report = report
    }

    /// The archive, when the item was built.
    public var archive: Archive? {
        if case .built(let archive, _) = outcome { return archive }
        return nil
    }

    /// The file name for the archive, when the item was built.
    public var fileName: String? {
        if case .built(_, let name) = outcome { return name }
        return nil
    }

    /// Why the item was not built, when it wasn't.
    public var error: WalletOrdersError? {
        if case .failed(let error) = outcome { return error }
        return nil
    }
}
