public import WalletOrders

// `Data`, NIO's `ByteBufferView` or any other collection of bytes wherever the store takes
// `[UInt8]` (one contiguous copy; an array is passed on without one): a service hands an
// upload's body straight in.

extension OrderStoring {
    /// Verifies and saves a signed archive held in any collection of bytes, without asking for
    /// confirmation.
    ///
    /// - Throws: As ``save(signedArchive:confirm:)``.
    public func save(signedArchive: some Collection<UInt8>) async throws -> SaveOrderResult {
        try await save(signedArchive: [UInt8](signedArchive), confirm: nil)
    }

    /// Verifies and saves many archives held in any collections of bytes, in one transaction.
    ///
    /// - Returns: As ``save(signedArchives:)``: one result per archive, in the order given.
    public func save(signedArchives: [some Collection<UInt8>]) async throws -> [Result<OrderSaveReceipt, WalletOrdersError>] {
        try await save(signedArchives: signedArchives.map { [UInt8]($0) })
    }
}

extension VerifiedOrderArchive {
    /// Validates archive bytes held in any collection with `validator`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveRejected`` listing the error findings.
    public init(bytes: some Collection<UInt8>, validator: OrderValidator) throws {
        try self.init(bytes: [UInt8](bytes), validator: validator)
    }

    /// Validates archive bytes held in any collection: the verified archive or the error that
    /// rejects it, with the whole report either way.
    public static func checking(bytes: some Collection<UInt8>, validator: OrderValidator)
        -> (archive: Result<VerifiedOrderArchive, WalletOrdersError>, report: ValidationReport)
    {
        checking(bytes: [UInt8](bytes), validator: validator)
    }
}
