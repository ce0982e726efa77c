public import WalletPasses

/// What the pass web service needs to know of a stored pass to answer a device: who may fetch
/// it and which version it is, without reading the archive.
public struct PassAccessRecord: Sendable, Hashable {
    /// The pass.
    public var identifier: PassIdentifier
    /// The pass's `authenticationToken`, or `nil` for a pass without one (which no device can
    /// fetch or register for).
    public var authenticationToken: String?
    /// The token the pass had before a version changed it, if one did: a device registered with
    /// it can only learn the new one from the version that carries it.
    public var previousAuthenticationToken: String?
    /// When the stored version was saved, in whole seconds since 1970 (its `Last-Modified`): each
    /// version of a pass is saved at least a second after the one before.
    public var modifiedAt: Int64
    /// The stored archive's SHA-256 (lowercase hex): the entity tag of the archive.
    public var sha256: String

    /// Creates a record.
    public init(
        identifier: PassIdentifier, authenticationToken: String?, previousAuthenticationToken: String? = nil, modifiedAt: Int64,
        sha256: String
    ) {
        self.identifier = identifier
        self.authenticationToken = authenticationToken
        self.previousAuthenticationToken = previousAuthenticationToken
        self.modifiedAt = modifiedAt
        self.sha256 = sha256
    }
}

/// The passes of one type that changed for a device since a tag, and the tag to send next time
/// (Apple's `SerialNumbers`: `serialNumbers` and `lastUpdated`).
///
/// `lastUpdated` is a JSON string: a device given a number never fetches (Apple Developer Forums
/// 694992).
public struct ChangedPasses: Sendable, Hashable, Codable {
    /// The `serialNumber`s of the device's passes of the type that changed since the tag.
    public var serialNumbers: [String]
    /// The opaque tag the device echoes back as `passesUpdatedSince`: the store's change
    /// sequence, marked with the store it came from, as for orders (see
    /// ``DeviceRegistrationStoring``).
    public var lastUpdated: String

    /// Creates a list.
    public init(serialNumbers: [String], lastUpdated: String) {
        self.serialNumbers = serialNumbers
        self.lastUpdated = lastUpdated
    }
}

/// Device registrations for Wallet's pass web service, kept in the store beside the orders' so
/// that a pass's save and the pushes it causes are one transaction, in the same push outbox
/// (topic: the `passTypeIdentifier`).
///
/// Everything ``DeviceRegistrationStoring`` says of orders holds for passes: a registration's push
/// token is its own, the caps of ``RegistrationLimits`` apply (per pass and per device), the tag
/// is the store's change sequence (a tag the store didn't give out is answered with every one of
/// the device's passes of the type, never a 204), and APNs refusing a token for a topic
/// (``PushOutboxStoring``, ``PushCompletion/tokenGone``) removes that token's registrations for
/// the pass type too.
public protocol PassRegistrationStoring: Sendable {
    /// The access record of a stored pass and, when `wantsArchive` asks for it given that record,
    /// the archive of the version the record describes; `nil` when no such pass is stored.
    func passAccessRecord(for identifier: PassIdentifier, archiveIf wantsArchive: (PassAccessRecord) -> Bool) async throws
        -> (record: PassAccessRecord, archive: [UInt8]?)?

    /// Registers `deviceIdentifier` for updates of `pass`, pushed to `pushToken`; registering
    /// again replaces that registration's push token and nothing else. A new registration past
    /// `limits` is refused and nothing is stored.
    ///
    /// - Throws: ``WalletOrdersError/Code/orderRegistrationLimit`` (the pass's cap) or
    ///   ``WalletOrdersError/Code/deviceRegistrationLimit`` for a new registration past a cap.
    func register(deviceIdentifier: String, pushToken: String, for pass: PassIdentifier, limits: RegistrationLimits) async throws
        -> DeviceRegistrationResult

    /// Removes the device's registration for `pass`; `false` when there was none.
    @discardableResult
    func unregister(deviceIdentifier: String, from pass: PassIdentifier) async throws -> Bool

    /// The device's passes of `passTypeIdentifier` changed after `tag` (all of them for `nil` and
    /// for a tag this store didn't give out), or `nil` when none did (Apple's 204).
    ///
    /// - Throws: ``WalletOrdersError/Code/malformedToken`` when `tag` is longer than 1024
    ///   characters, which no server's tag is.
    func changedPasses(deviceIdentifier: String, passTypeIdentifier: String, since tag: String?) async throws -> ChangedPasses?

    /// Whether `deviceIdentifier` is registered for any pass of `passTypeIdentifier`.
    func isRegistered(deviceIdentifier: String, passTypeIdentifier: String) async throws -> Bool

    /// The devices registered for `pass`, by device identifier.
    func registrations(for pass: PassIdentifier) async throws -> [DeviceRegistration]
}

extension PassRegistrationStoring {
    /// The access record of a stored pass, or `nil` when no such pass is stored.
    public func passAccessRecord(for identifier: PassIdentifier) async throws -> PassAccessRecord? {
        try await passAccessRecord(for: identifier) { _ in false }?.record
    }

    /// Registers `deviceIdentifier` for updates of `pass` within ``RegistrationLimits/default``.
    public func register(deviceIdentifier: String, pushToken: String, for pass: PassIdentifier) async throws
        -> DeviceRegistrationResult
    {
        try await register(deviceIdentifier: deviceIdentifier, pushToken: pushToken, for: pass, limits: .default)
    }
}
