public import WalletOrders

// The store's error codes: declared by the target that throws them, on the one error type.

extension WalletOrdersError.Code {
    /// An order store already holds a different archive with the same `updatedAt` for that
    /// order; the stored version is kept and the message names both versions.
    public static let updatedAtConflict = Self("updated-at-conflict")
    /// An order store file is not a database or is damaged; nothing was written to it.
    public static let storeCorrupt = Self("store-corrupt")
    /// An order store file was written by a newer version with a schema this code doesn't know.
    public static let storeTooNew = Self("store-too-new")
    /// An order store that a command only reads (or deletes from) doesn't exist; nothing was
    /// created in its place.
    public static let storeNotFound = Self("store-not-found")
    /// An order store could not be opened, read or written (a locked or read-only file, for example).
    public static let storeUnavailable = Self("store-unavailable")
    /// The file system holding an order store is full; the transaction that needed the
    /// space was rolled back, so nothing of it was stored (what was saved before is kept).
    public static let storeFull = Self("store-full")
    /// An order store's file or folder can't be written (read-only file system, no write
    /// permission); nothing was changed.
    public static let storeReadOnly = Self("store-read-only")
    /// A database server refused the order store's credentials, or the role may not use the
    /// database; nothing was read or written.
    public static let storeAccessDenied = Self("store-access-denied")
    /// A history token can't be used with this store: changes after it were compacted away,
    /// or it comes from another store. Resynchronize with `history(since: nil)`.
    public static let historyTokenInvalid = Self("history-token-invalid")
    /// A new device registration was refused: the order has as many registrations as the
    /// store's `RegistrationLimits` allow (nothing was stored).
    public static let orderRegistrationLimit = Self("order-registration-limit")
    /// A new device registration was refused: the device identifier has as many registrations
    /// as the store's `RegistrationLimits` allow (nothing was stored).
    public static let deviceRegistrationLimit = Self("device-registration-limit")
}
