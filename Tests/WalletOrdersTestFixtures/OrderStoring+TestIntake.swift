public import WalletOrders
public import WalletOrdersIntake
public import WalletOrdersStore

extension OrderStoring {
    /// An intake into this store that validates with `validator` (default: the test root
    /// trusted): how tests save signed archives, since a store saves only verified ones.
    public func intake(_ validator: OrderValidator = TestPKI.validator) -> OrderIntake {
        OrderIntake(validator: validator, store: self)
    }
}
