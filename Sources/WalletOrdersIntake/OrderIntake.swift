public import Foundation
public import WalletOrders
import WalletOrdersJSON
public import WalletOrdersStore

/// The one way an order comes in: validate → sign → store → notify, for a signed archive and for
/// a source the intake builds and signs.
///
/// ```swift
/// let intake = OrderIntake(validator: validator, store: store, notifier: pushWorker)
/// let result = try await intake.submit(
///     source: OrderSource(files: ["order.json": orderJSON]), builder: OrderArchiveBuilder(identity: identity))
/// if let refusal = result.refusal { print(refusal.message, result.report) }
/// ```
///
/// The order of the steps is the point of the type:
/// - **A source** is validated first (its content, and the identity's certificate chain against
///   the validator's trust anchors when the intake has a store) and refused with
///   ``WalletOrdersError/Code/validationFailed`` before any signature is made. Then it is built
///   and signed once, and the ``VerifiedOrderArchive`` the store saves is made from the builder's
///   own parts: the archive just written is not opened again, its signature not verified again,
///   and `order.json` parsed once for validation and the store.
/// - **A signed archive** is validated once (``VerifiedOrderArchive/checking(bytes:validator:)``).
/// - Then the store saves it (stores are persistence only: they trust the validator used here),
///   and the ``notifier`` is told when the store changed.
///
/// Without a store the intake validates and signs and the caller keeps the archive
/// (`wallet-orders build` writes it to a file): whoever stores it later validates it.
public struct OrderIntake: Sendable {
    /// A step of the intake, reported to ``onStep`` as it begins.
    public enum Step: String, Sendable, Hashable, CaseIterable {
        /// Validating the source or the signed archive.
        case validating
        /// Building and signing a source (the RSA signature).
        case signing
        /// Saving to the store.
        case saving
        /// Telling the notifier that the store changed.
        case notifying
    }

    /// Judges every order before anything is signed or stored (trust anchors included).
    public var validator: OrderValidator
    /// Where accepted orders are saved; `nil` to validate and sign only.
    public var store: (any OrderStoring)?
    /// Told when a save changed the store.
    public var notifier: (any OrderChangeNotifier)?
    /// How far ahead of this process's clock an order's `updatedAt` may be, checked after
    /// validation and before signing or saving (an order refused here costs no signature); the
    /// store checks again against its own clock. `nil`: only the store checks.
    public var updatedAtLimit: UpdatedAtLimit?
    /// Told of each step as it begins, in order (for logs, metrics and tests: a refused source
    /// shows ``Step/validating`` and nothing else).
    public var onStep: (@Sendable (Step) -> Void)?

    /// Creates an intake.
    ///
    /// - Parameters:
    ///   - validator: Judges every order (its verifier's trust anchors decide which signatures count).
    ///   - store: Where accepted orders are saved; `nil` to validate and sign only.
    ///   - notifier: Told when a save changed the store.
    ///   - updatedAtLimit: How far ahead of the clock an order's `updatedAt` may be (`nil`: only
    ///     the store checks).
    ///   - onStep: Told of each step as it begins.
    public init(
        validator: OrderValidator, store: (any OrderStoring)? = nil, notifier: (any OrderChangeNotifier)? = nil,
        updatedAtLimit: UpdatedAtLimit? = nil, onStep: (@Sendable (Step) -> Void)? = nil
    ) {
        self.validator = validator
        self.store = store
        self.notifier = notifier
        self.updatedAtLimit = updatedAtLimit
        self.onStep = onStep
    }

    // MARK: - A source

    /// Validates `source`, then builds and signs it with `builder`, then saves and notifies.
    ///
    /// - Parameters:
    ///   - source: The order's files (`order.json`, images, localizations).
    ///   - builder: Signs the archive (its identity) and compresses it.
    ///   - signingTime: The signature's signing time and the zip's timestamps (default: now).
    ///   - subject: The name validation findings use.
    ///   - accepting: Checks the order's identifier after validation, before signing (a service
    ///     refuses order types outside the caller's scope here); what it throws is thrown.
    ///   - confirm: Asked before the store changes (see ``OrderStoring/save(verifiedArchive:confirm:)``).
    /// - Returns: The report, the built archive and the receipt, or the refusal with the report.
    /// - Throws: A store error (unavailable, read-only, …), or what `accepting` throws.
    public func submit(
        source: OrderSource, builder: OrderArchiveBuilder, signingTime: Date = Date(), subject: String = "order",
        accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in },
        confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> OrderIntakeResult {
        let prepared = try prepare(source: source, builder: builder, signingTime: signingTime, subject: subject, accepting: accepting)
        guard prepared.refusal == nil, let archive = prepared.archive else { return prepared }
        return try await save(archive, report: prepared.report, built: prepared.built, confirm: confirm)
    }

    /// The part of ``submit(source:builder:signingTime:subject:accepting:confirm:)`` before the
    /// store, synchronous: validates `source`, refuses it before any signature when it has an
    /// error, then builds and signs it once. Batches call this for each order.
    ///
    /// - Returns: The report and the built archive, or the refusal with the report.
    /// - Throws: What `accepting` throws.
    public func prepare(
        source: OrderSource, builder: OrderArchiveBuilder, signingTime: Date = Date(), subject: String = "order",
        accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in }
    ) throws -> OrderIntakeResult {
        onStep?(.validating)
        let (report, order) = validator.validate(
            source, signedBy: builder.identity, at: signingTime, subject: subject, checkingTrust: store != nil)
        guard report.isValid, let order else {
            return OrderIntakeResult(report: report, refusal: OrderBatchBuilder.validationFailure(report))
        }
        do {
            // Validation found no error, so order.json has its identifiers and an RFC 3339 updatedAt.
            var identifier: FullyQualifiedOrderIdentifier?
            if let type = order["orderTypeIdentifier"]?.stringValue, let id = order["orderIdentifier"]?.stringValue {
                let known = FullyQualifiedOrderIdentifier(orderTypeIdentifier: type, orderIdentifier: id)
                identifier = known
                try accepting(known)
                if let text = order["updatedAt"]?.stringValue, let updatedAt = try? Timestamp(rfc3339: text),
                    let refusal = updatedAtLimit?.refusal(of: known, updatedAt: updatedAt)
                {
                    return OrderIntakeResult(report: report, refusal: refusal)
                }
            }
            onStep?(.signing)
            // The identifier validation read: order.json is parsed once.
            let built = try builder.build(source, identifier: identifier, signingTime: signingTime)
            return OrderIntakeResult(report: report, built: built, archive: try validator.verifiedArchive(built, order: order))
        } catch let error as WalletOrdersError {
            return OrderIntakeResult(report: report, refusal: error)
        }
    }

    // MARK: - A signed archive

    /// Validates a signed archive, then saves it and notifies.
    ///
    /// - Parameters:
    ///   - signedArchive: The `.order` file's bytes (`[UInt8]`, `Data`, an HTTP body's view).
    ///   - accepting: Checks the order's identifier after validation, before saving (a service
    ///     refuses order types outside the caller's scope here); what it throws is thrown.
    ///   - confirm: Asked before the store changes (see ``OrderStoring/save(verifiedArchive:confirm:)``).
    /// - Returns: The report and the receipt, or the refusal
    ///   (``WalletOrdersError/Code/archiveRejected`` listing the errors) with the report.
    /// - Throws: A store error (unavailable, read-only, …), or what `accepting` throws.
    public func submit(
        signedArchive: some Collection<UInt8>, accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in },
        confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> OrderIntakeResult {
        onStep?(.validating)
        let (checked, report) = VerifiedOrderArchive.checking(bytes: signedArchive, validator: validator)
        let archive: VerifiedOrderArchive
        switch checked {
        case .success(let value): archive = value
        case .failure(let refusal): return OrderIntakeResult(report: report, refusal: refusal)
        }
        try accepting(archive.identifier)
        if let refusal = updatedAtLimit?.refusal(of: archive.identifier, updatedAt: archive.updatedAt) {
            return OrderIntakeResult(report: report, archive: archive, refusal: refusal)
        }
        return try await save(archive, report: report, built: nil, confirm: confirm)
    }

    /// Validates a signed archive and saves it: the convenience for library users who want the
    /// store's answer only.
    ///
    /// - Throws: The refusal (``WalletOrdersError/Code/archiveRejected``,
    ///   ``WalletOrdersError/Code/updatedAtConflict``, …), a store error, or
    ///   ``WalletOrdersError/Code/invalidConfiguration`` for an intake without a store.
    public func save(
        signedArchive: some Collection<UInt8>, confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> SaveOrderResult {
        guard store != nil else {
            throw WalletOrdersError(.invalidConfiguration, "This intake has no store to save into.")
        }
        let result = try await submit(signedArchive: signedArchive, confirm: confirm).get()
        return result.receipt?.result ?? .added
    }

    // MARK: - Saving

    /// Saves `archive` (when there is a store) and notifies when the store changed.
    private func save(
        _ archive: VerifiedOrderArchive, report: ValidationReport, built: BuiltOrderArchive?,
        confirm: (@Sendable (SaveProposal) async -> Bool)?
    ) async throws -> OrderIntakeResult {
        var result = OrderIntakeResult(report: report, built: built, archive: archive)
        guard let store else { return result }
        onStep?(.saving)
        let saved: Result<OrderSaveReceipt, WalletOrdersError>
        if let confirm {
            // A write happens only after the handler agreed: an `added` it never agreed to changed nothing.
            let agreed = AgreementFlag()
            do {
                let answer = try await store.save(verifiedArchive: archive) { proposal in
                    let yes = await confirm(proposal)
                    if yes { agreed.set() }
                    return yes
                }
                saved = .success(archive.receipt(answer, storeChanged: answer == .added && agreed.value))
            } catch let error as WalletOrdersError where Self.isVerdict(error) {
                saved = .failure(error)
            }
        } else {
            saved =
                try await store.save(verifiedArchives: [archive]).first
                ?? .failure(WalletOrdersError(.storeUnavailable, "The store returned no result."))
        }
        switch saved {
        case .success(let receipt):
            result.receipt = receipt
            await notify([receipt])
        case .failure(let refusal):
            result.refusal = refusal
        }
        return result
    }

    /// Tells the notifier about the receipts that changed the store, if any did.
    func notify(_ receipts: [OrderSaveReceipt]) async {
        let changed = receipts.filter(\.storeChanged)
        guard let notifier, !changed.isEmpty else { return }
        onStep?(.notifying)
        await notifier.ordersChanged(changed)
    }

    /// Whether `error` is the store's verdict on one order (a refusal) rather than a failure of the store.
    static func isVerdict(_ error: WalletOrdersError) -> Bool {
        error.code == .updatedAtConflict || error.code == .updatedAtInFuture
    }
}
