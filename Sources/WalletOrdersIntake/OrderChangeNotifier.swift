public import WalletOrdersStore

/// Told when an ``OrderIntake`` changed its store, so that whoever tells devices about changes
/// (the web service's push worker) looks at once rather than at its next poll.
///
/// The store's change log (and, for the web service, its push outbox) is the record of what
/// changed; a notification only says "look now", so a lost one delays a push, never loses it.
public protocol OrderChangeNotifier: Sendable {
    /// Called once per submission whose save changed the store, after the save, with the
    /// receipts of the orders that changed (each with ``OrderSaveReceipt/storeChanged``).
    func ordersChanged(_ receipts: [OrderSaveReceipt]) async
}
