public import WalletOrders
public import WalletOrdersStore

/// What an ``OrderIntake`` did with one order: the whole validation report, the archive, and
/// the store's receipt or why the order was not taken.
///
/// One shape for every way in (a signed archive, a source built and signed by the intake) and
/// every caller (`wallet-orders build`, `store save`, `demo`, the merchant API).
public struct OrderIntakeResult: Sendable {
    /// Every finding of validation: the source's, checked before anything was signed, or the
    /// signed archive's. Empty of findings when a refusal came before validation could run.
    public var report: ValidationReport
    /// The archive as the builder made it, for a source that was built; `nil` for a signed
    /// archive, and for a source refused before signing.
    public var built: BuiltOrderArchive?
    /// The archive as the store saves it, when validation accepted it.
    public var archive: VerifiedOrderArchive?
    /// The store's answer, when the order was saved (`nil` for an intake without a store).
    public var receipt: OrderSaveReceipt?
    /// Why the order was not taken: ``WalletOrdersError/Code/validationFailed`` (a source with
    /// errors; nothing was signed), ``WalletOrdersError/Code/archiveRejected`` (a signed archive
    /// that doesn't verify), a build error (``WalletOrdersError/Code/bundleTooLarge``, …), or the
    /// store's verdict (``WalletOrdersError/Code/updatedAtConflict``,
    /// ``WalletOrdersError/Code/updatedAtInFuture``). `nil` when it was taken.
    public var refusal: WalletOrdersError?

    /// Creates a result.
    public init(
        report: ValidationReport, built: BuiltOrderArchive? = nil, archive: VerifiedOrderArchive? = nil,
        receipt: OrderSaveReceipt? = nil, refusal: WalletOrdersError? = nil
    ) {
        self.report = report
        self.built = built
        self.archive = archive
        self.receipt = receipt
        self.refusal = refusal
    }

    /// Whether the order was taken: validated, built when it was a source, and saved when the
    /// intake has a store.
    public var isAccepted: Bool { refusal == nil }

    /// The result, or its ``refusal`` thrown.
    ///
    /// - Throws: ``refusal``, when there is one.
    @discardableResult
    public func get() throws(WalletOrdersError) -> OrderIntakeResult {
        if let refusal { throw refusal }
        return self
    }
}
