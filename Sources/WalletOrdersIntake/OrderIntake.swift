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
/// A service signing for several merchants lets the order pick its identity:
///
/// ```swift
/// let result = try await intake.submit(source: source) { orderType in
///     guard let identity = identities[orderType] else { throw MyError.noIdentity(orderType) }
///     return OrderIntake.Signer(builder: OrderArchiveBuilder(identity: identity))
/// }
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
/// ``prepare(source:builder:signingTime:subject:accepting:)`` validates and signs without saving,
/// and the caller keeps the archive (`wallet-orders build` writes it to a file): whoever stores it
/// later validates it. The `submit` methods save, so they need a store.
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
    /// Where accepted orders are saved; `nil` for an intake that only validates and signs
    /// (``prepare(source:builder:signingTime:subject:accepting:)``).
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
    /// - Returns: The report and the saved order, or the refusal with the report.
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` for an intake without a store
    ///   (``prepare(source:builder:signingTime:subject:accepting:)`` signs without saving), a
    ///   store error (unavailable, read-only, …), or what `accepting` throws.
    public func submit(
        source: OrderSource, builder: OrderArchiveBuilder, signingTime: Date = Date(), subject: String = "order",
        accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in },
        confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> OrderIntakeResult<SavedOrder> {
        let store = try requireStore()
        let prepared = try prepare(source: source, parsed: nil, builder: builder, signingTime: signingTime, subject: subject, accepting: accepting)
        return try await save(prepared, into: store, confirm: confirm)
    }

    /// Validates `source`, signs it with the signer `signer` gives for its order type, then saves
    /// and notifies: for a service that signs for several order types (the identity and the
    /// template's files follow the type the order names).
    ///
    /// `order.json` is parsed once: the order type is read from the parse that validation uses.
    ///
    /// - Parameters:
    ///   - source: The order's files; the signer's template adds the files it leaves out.
    ///   - signer: The builder and template for an order type; called once, with the type
    ///     `order.json` names, before validation. What it throws is thrown (a service refuses a
    ///     type outside the caller's scope, or one it holds no identity for).
    ///   - signingTime: The signature's signing time and the zip's timestamps (default: now).
    ///   - subject: The name validation findings use.
    ///   - accepting: Checks the order's identifier after validation, before signing.
    ///   - confirm: Asked before the store changes.
    /// - Returns: The report and the saved order, or the refusal with the report
    ///   (``WalletOrdersError/Code/invalidOrder`` when `order.json` names no order type).
    /// - Throws: As ``submit(source:builder:signingTime:subject:accepting:confirm:)``, and what
    ///   `signer` throws.
    public func submit(
        source: OrderSource, signer: (_ orderTypeIdentifier: String) throws -> Signer, signingTime: Date = Date(),
        subject: String = "order", accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in },
        confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> OrderIntakeResult<SavedOrder> {
        let store = try requireStore()
        let parsed = source.orderJSON.map { JSONParser.parse($0, allowingTrailingCommas: true) }
        guard let orderType = parsed?.root?["orderTypeIdentifier"]?.stringValue else {
            return OrderIntakeResult(
                report: ValidationReport(subject: subject),
                outcome: .refused(
                    WalletOrdersError(
                        .invalidOrder, "The source has no order.json with a string orderTypeIdentifier, so there is no identity to sign it with.",
                        hint: "Send order.json (or a zip of it and its files) with its orderTypeIdentifier."),
                    order: nil))
        }
        let chosen = try signer(orderType)
        let prepared = try prepare(
            source: source.filling(from: chosen.template), parsed: parsed, builder: chosen.builder, signingTime: signingTime, subject: subject,
            accepting: accepting)
        return try await save(prepared, into: store, confirm: confirm)
    }

    /// The part of ``submit(source:builder:signingTime:subject:accepting:confirm:)`` before the
    /// store, synchronous: validates `source`, refuses it before any signature when it has an
    /// error, then builds and signs it once. Batches and `wallet-orders build` call this; nothing
    /// is saved, whether or not the intake has a store.
    ///
    /// - Returns: The report and the signed order, or the refusal with the report.
    /// - Throws: What `accepting` throws.
    public func prepare(
        source: OrderSource, builder: OrderArchiveBuilder, signingTime: Date = Date(), subject: String = "order",
        accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in }
    ) throws -> OrderIntakeResult<SignedOrder> {
        try prepare(source: source, parsed: nil, builder: builder, signingTime: signingTime, subject: subject, accepting: accepting)
    }

    private func prepare(
        source: OrderSource, parsed: JSONParseResult?, builder: OrderArchiveBuilder, signingTime: Date, subject: String,
        accepting: (FullyQualifiedOrderIdentifier) throws -> Void
    ) throws -> OrderIntakeResult<SignedOrder> {
        onStep?(.validating)
        let (report, order) = validator.validate(
            source, signedBy: builder.identity, at: signingTime, subject: subject, checkingTrust: store != nil, parsed: parsed)
        guard report.isValid, let order else {
            return OrderIntakeResult(report: report, outcome: .refused(OrderBatchBuilder.validationFailure(report), order: nil))
        }
        // Validation found no error, so order.json has its identifiers and an RFC 3339 updatedAt.
        var identifier: FullyQualifiedOrderIdentifier?
        do {
            if let type = order["orderTypeIdentifier"]?.stringValue, let id = order["orderIdentifier"]?.stringValue {
                let known = FullyQualifiedOrderIdentifier(orderTypeIdentifier: type, orderIdentifier: id)
                identifier = known
                try accepting(known)
                if let text = order["updatedAt"]?.stringValue, let updatedAt = try? Timestamp(rfc3339: text),
                    let refusal = updatedAtLimit?.refusal(of: known, updatedAt: updatedAt)
                {
                    return OrderIntakeResult(report: report, outcome: .refused(refusal, order: known))
                }
            }
            onStep?(.signing)
            // The identifier validation read: order.json is parsed once.
            let built = try builder.build(source, identifier: identifier, signingTime: signingTime)
            let archive = try validator.verifiedArchive(built, order: order)
            return OrderIntakeResult(report: report, outcome: .taken(SignedOrder(built: built, archive: archive)))
        } catch let error as WalletOrdersError {
            return OrderIntakeResult(report: report, outcome: .refused(error, order: identifier))
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
    /// - Returns: The report and the saved order, or the refusal
    ///   (``WalletOrdersError/Code/archiveRejected`` listing the errors) with the report.
    /// - Throws: ``WalletOrdersError/Code/invalidConfiguration`` for an intake without a store, a
    ///   store error (unavailable, read-only, …), or what `accepting` throws.
    public func submit(
        signedArchive: some Collection<UInt8>, accepting: (FullyQualifiedOrderIdentifier) throws -> Void = { _ in },
        confirm: (@Sendable (SaveProposal) async -> Bool)? = nil
    ) async throws -> OrderIntakeResult<SavedOrder> {
        let store = try requireStore()
        onStep?(.validating)
        let (checked, report) = VerifiedOrderArchive.checking(bytes: signedArchive, validator: validator)
        let archive: VerifiedOrderArchive
        switch checked {
        case .success(let value): archive = value
        case .failure(let refusal): return OrderIntakeResult(report: report, outcome: .refused(refusal, order: nil))
        }
        try accepting(archive.identifier)
        if let refusal = updatedAtLimit?.refusal(of: archive.identifier, updatedAt: archive.updatedAt) {
            return OrderIntakeResult(report: report, outcome: .refused(refusal, order: archive.identifier))
        }
        return try await save(archive, built: nil, report: report, into: store, confirm: confirm)
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
        try await submit(signedArchive: signedArchive, confirm: confirm).get().receipt.result
    }

    // MARK: - Saving

    /// The store, or why this intake can't save.
    func requireStore() throws(WalletOrdersError) -> any OrderStoring {
        guard let store else {
            throw WalletOrdersError(
                .invalidConfiguration, "This intake has no store to save into.",
                hint: "Give the intake a store, or call prepare(source:builder:) to validate and sign without saving.")
        }
        return store
    }

    /// Saves what `prepared` signed, or passes its refusal on.
    private func save(
        _ prepared: OrderIntakeResult<SignedOrder>, into store: any OrderStoring,
        confirm: (@Sendable (SaveProposal) async -> Bool)?
    ) async throws -> OrderIntakeResult<SavedOrder> {
        switch prepared.outcome {
        case .refused(let refusal, let order): return prepared.with(.refused(refusal, order: order))
        case .taken(let signed):
            return try await save(signed.archive, built: signed.built, report: prepared.report, into: store, confirm: confirm)
        }
    }

    /// Saves `archive` and notifies when the store changed.
    private func save(
        _ archive: VerifiedOrderArchive, built: BuiltOrderArchive?, report: ValidationReport, into store: any OrderStoring,
        confirm: (@Sendable (SaveProposal) async -> Bool)?
    ) async throws -> OrderIntakeResult<SavedOrder> {
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
            await notify([receipt])
            return OrderIntakeResult(report: report, outcome: .taken(SavedOrder(receipt: receipt, archive: archive, built: built)))
        case .failure(let refusal):
            return OrderIntakeResult(report: report, outcome: .refused(refusal, order: archive.identifier))
        }
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
