public import WalletOrders
public import WalletOrdersStore

/// What an ``OrderIntake`` did with one order: the whole validation report, and what it took or
/// why it took nothing.
///
/// One shape for every way in (a signed archive, a source built and signed by the intake) and
/// every caller (`wallet-orders build`, `store save`, `demo`, the merchant API). `Taken` is what
/// the step gives: ``OrderIntake/SignedOrder`` from
/// ``OrderIntake/prepare(source:builder:signingTime:subject:accepting:)``, ``OrderIntake/SavedOrder``
/// from the `submit` methods, which save.
///
/// ```swift
/// switch try await intake.submit(signedArchive: bytes).outcome {
/// case .taken(let saved): print(saved.receipt.result)
/// case .refused(let refusal, _): print(refusal.message)
/// }
/// ```
public struct OrderIntakeResult<Taken: Sendable>: Sendable {
    /// Every finding of validation: the source's, checked before anything was signed, or the
    /// signed archive's. Empty of findings when a refusal came before validation could run.
    public var report: ValidationReport
    /// What was taken, or why nothing was.
    public var outcome: Outcome

    /// What was taken, or why nothing was.
    public enum Outcome: Sendable {
        /// Taken: validated, built and signed when it was a source, and saved when the step saves.
        case taken(Taken)
        /// Not taken. The error is ``WalletOrdersError/Code/validationFailed`` (a source with
        /// errors; nothing was signed), ``WalletOrdersError/Code/archiveRejected`` (a signed
        /// archive that doesn't verify), ``WalletOrdersError/Code/invalidOrder`` (no order type to
        /// sign for), a build error (``WalletOrdersError/Code/bundleTooLarge``, …), or the store's
        /// verdict (``WalletOrdersError/Code/updatedAtConflict``,
        /// ``WalletOrdersError/Code/updatedAtInFuture``). `order` names the order when it was read
        /// that far.
        case refused(WalletOrdersError, order: FullyQualifiedOrderIdentifier?)
    }

    /// Creates a result.
    public init(report: ValidationReport, outcome: Outcome) {
        self.report = report
        self.outcome = outcome
    }

    /// What was taken, when it was.
    public var taken: Taken? {
        if case .taken(let taken) = outcome { return taken }
        return nil
    }

    /// Why nothing was taken, when it wasn't.
    public var refusal: WalletOrdersError? {
        if case .refused(let refusal, _) = outcome { return refusal }
        return nil
    }

    /// What was taken, or the refusal thrown.
    ///
    /// - Throws: The refusal, when there is one.
    @discardableResult
    public func get() throws(WalletOrdersError) -> Taken {
        switch outcome {
        case .taken(let taken): return taken
        case .refused(let refusal, _): throw refusal
        }
    }

    /// The same report with `outcome`, for the next step.
    func with<Next>(_ outcome: OrderIntakeResult<Next>.Outcome) -> OrderIntakeResult<Next> {
        OrderIntakeResult<Next>(report: report, outcome: outcome)
    }
}

extension OrderIntake {
    /// An order the intake validated, then built and signed: not saved yet.
    public struct SignedOrder: Sendable {
        /// The archive as the builder made it.
        public var built: BuiltOrderArchive
        /// The archive as a store saves it, made from the builder's own parts.
        public var archive: VerifiedOrderArchive
    }

    /// An order the intake validated (and built and signed, for a source) and saved.
    public struct SavedOrder: Sendable {
        /// The store's answer.
        public var receipt: OrderSaveReceipt
        /// The archive as the store saved it.
        public var archive: VerifiedOrderArchive
        /// The archive as the builder made it, for a source; `nil` for a signed archive.
        public var built: BuiltOrderArchive?
    }

    /// What signs an order of one type: the builder (its identity) and the files every order of
    /// the type shares, which fill in what the source leaves out.
    public struct Signer: Sendable {
        /// Signs the archive and compresses it.
        public var builder: OrderArchiveBuilder
        /// Files added to the source where it has none of that path.
        public var template: OrderBatchTemplate

        /// Creates a signer.
        public init(builder: OrderArchiveBuilder, template: OrderBatchTemplate = OrderBatchTemplate()) {
            self.builder = builder
            self.template = template
        }
    }
}
