public import Foundation
import Synchronization
public import WalletOrders
public import WalletOrdersStore

extension OrderIntake {
    /// Validates many signed archives (in parallel, up to `maximumConcurrency` at a time) and
    /// saves those that verify in one transaction, as if saved one after another in order,
    /// without confirmation; then notifies once about every order that changed.
    ///
    /// - Returns: One result per archive, in the order given: an ``OrderSaveReceipt``, or why
    ///   it was not stored (``WalletOrdersError/Code/archiveRejected``,
    ///   ``WalletOrdersError/Code/updatedAtConflict``, ``WalletOrdersError/Code/updatedAtInFuture``).
    /// - Throws: A store error (locked, read-only, damaged): none of them was saved;
    ///   ``WalletOrdersError/Code/invalidConfiguration`` for an intake without a store.
    public func save(
        signedArchives: [some Collection<UInt8>], maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        let store = try requireStore()
        onStep?(.validating)
        let verified = await VerifiedOrderArchive.verifying(
            signedArchives.map { [UInt8]($0) }, validator: validator, maximumConcurrency: maximumConcurrency)
        onStep?(.saving)
        let results = try await store.saveMerging(verified)
        await notify(results.compactMap { try? $0.get() })
        return results
    }
}

/// Set once a confirmation handler has agreed.
final class AgreementFlag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var value: Bool { state.withLock { $0 } }
}
