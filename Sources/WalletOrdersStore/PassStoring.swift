public import WalletPasses

/// What saving a pass did. A pass has no `updatedAt`: Wallet takes whichever pass it is given for
/// a (`passTypeIdentifier`, `serialNumber`) pair, so the store does the same, and the newest save
/// is the pass (the last writer wins).
public enum SavePassResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// A pass the store didn't hold: stored as its version 1.
    case added
    /// A new version replaced the stored one (the one before is kept among the pass's versions).
    case replaced
    /// The same bytes again, or the same files signed at another time: the stored version was
    /// kept, and nothing changed (no new version, no push).
    case unchanged
    /// A new version that voids the pass (`"voided": true`, where the stored version wasn't
    /// voided) replaced the stored one.
    case voided
}

/// What saving one pass did, and to which pass.
public struct PassSaveReceipt: Sendable, Hashable, Codable {
    /// The pass.
    public var identifier: PassIdentifier
    /// What the save did.
    public var result: SavePassResult
    /// The stored version: the new one, or for ``SavePassResult/unchanged`` the one kept.
    public var version: Int
    /// The stored archive's SHA-256.
    public var sha256: String

    /// Whether the save wrote to the store (all but ``SavePassResult/unchanged``).
    public var storeChanged: Bool { result != .unchanged }

    /// Creates a receipt.
    public init(identifier: PassIdentifier, result: SavePassResult, version: Int, sha256: String) {
        self.identifier = identifier
        self.result = result
        self.version = version
        self.sha256 = sha256
    }
}

/// One stored version of a pass.
public struct StoredPassVersion: Sendable, Hashable, Codable {
    /// The version's number: 1 for the first save, one more for each save that changed the pass.
    public var version: Int
    /// The version's archive's SHA-256.
    public var sha256: String
    /// The archive's size in bytes.
    public var archiveSize: Int
    /// Whether this version voids the pass.
    public var voided: Bool
    /// When the version was saved, in whole seconds since 1970: the `Last-Modified` it is served
    /// with. Each version's is later than the one before, even for saves within one second, so
    /// `If-Modified-Since` never hides a new version.
    public var modifiedAt: Int64

    /// Creates a version description.
    public init(version: Int, sha256: String, archiveSize: Int, voided: Bool, modifiedAt: Int64) {
        self.version = version
        self.sha256 = sha256
        self.archiveSize = archiveSize
        self.voided = voided
        self.modifiedAt = modifiedAt
    }
}

/// What the store knows about a stored pass.
public struct StoredPassSummary: Sendable, Hashable, Codable {
    /// The pass.
    public var identifier: PassIdentifier
    /// The stored (newest) version.
    public var current: StoredPassVersion
    /// The pass's `authenticationToken`, if it has one.
    public var authenticationToken: String?
    /// The pass's `webServiceURL`, if it has one.
    public var webServiceURL: String?
    /// The change sequence number of the newest version: the tag of the pass web service.
    public var changeSequence: Int64

    /// Creates a summary.
    public init(
        identifier: PassIdentifier, current: StoredPassVersion, authenticationToken: String?, webServiceURL: String?,
        changeSequence: Int64
    ) {
        self.identifier = identifier
        self.current = current
        self.authenticationToken = authenticationToken
        self.webServiceURL = webServiceURL
        self.changeSequence = changeSequence
    }
}

/// Which stored passes to list: by identifier, a page at a time.
public struct PassQuery: Sendable, Hashable {
    /// Only passes of this `passTypeIdentifier`.
    public var passTypeIdentifier: String?
    /// Only passes of one of these types (a merchant's keys): an empty set lists nothing.
    public var passTypeIdentifiers: Set<String>?
    /// Only voided passes (`true`) or only passes not voided (`false`).
    public var voided: Bool?
    /// Passes per page, 1 to 1,000.
    public var limit: Int
    /// Continue after this pass (the previous page's ``PassListPage/nextCursor``).
    public var after: PassIdentifier?

    /// Creates a query.
    public init(
        passTypeIdentifier: String? = nil, passTypeIdentifiers: Set<String>? = nil, voided: Bool? = nil, limit: Int = 100,
        after: PassIdentifier? = nil
    ) {
        self.passTypeIdentifier = passTypeIdentifier
        self.passTypeIdentifiers = passTypeIdentifiers
        self.voided = voided
        self.limit = min(max(1, limit), 1_000)
        self.after = after
    }
}

/// One page of stored passes.
public struct PassListPage: Sendable, Hashable, Codable {
    /// The passes, by identifier (UTF-8 bytes).
    public var passes: [StoredPassSummary]
    /// Where the next page starts, or `nil` on the last page.
    public var nextCursor: PassIdentifier?

    /// Creates a page.
    public init(passes: [StoredPassSummary], nextCursor: PassIdentifier?) {
        self.passes = passes
        self.nextCursor = nextCursor
    }
}

/// What changed among a store's passes since a history token.
public typealias PassChanges = StoreChanges<PassIdentifier>

/// A store of signed passes, beside its orders: the same file or database, the same change
/// sequence and history tokens, the same copy.
///
/// - Passes are keyed by ``PassIdentifier``, exactly and case-sensitively.
/// - ``save(verifiedPass:)`` answers with ``SavePassResult`` (``PassStoreDecision``): a pass not
///   stored is ``SavePassResult/added``; the same bytes, or the same files signed again, are
///   ``SavePassResult/unchanged`` and change nothing; anything else replaces the stored version
///   (``SavePassResult/replaced``, or ``SavePassResult/voided`` when it voids the pass).
/// - Every version's bytes are kept (``passVersions(for:)``, ``passArchive(for:version:)``) until
///   the pass is deleted.
public protocol PassStoring: Sendable {
    /// Saves a verified pass.
    func save(verifiedPass: VerifiedPassArchive) async throws -> PassSaveReceipt

    /// Saves verified passes in one transaction, as if saved one after another in order.
    func save(verifiedPasses: [VerifiedPassArchive]) async throws -> [PassSaveReceipt]

    /// The stored pass's bytes (its newest version, or `version`), or `nil` when there is none.
    func passArchive(for identifier: PassIdentifier, version: Int?) async throws -> [UInt8]?

    /// What the store knows about the pass, or `nil` when it isn't stored.
    func passSummary(for identifier: PassIdentifier) async throws -> StoredPassSummary?

    /// Every stored version of the pass, oldest first (empty when it isn't stored).
    func passVersions(for identifier: PassIdentifier) async throws -> [StoredPassVersion]

    /// One page of stored passes matching `query`.
    func listPasses(_ query: PassQuery) async throws -> PassListPage

    /// Removes the pass and all its versions; returns whether it was stored.
    func deletePass(_ identifier: PassIdentifier) async throws -> Bool

    /// What changed among the passes since `token` (`nil`: every stored pass, as inserted). The
    /// token is the store's, the same kind ``OrderStoring/history(since:limit:)`` gives: one
    /// token follows one kind.
    ///
    /// - Throws: ``WalletOrdersError/Code/historyTokenInvalid`` as the order history does.
    func passHistory(since token: OrderHistoryToken?, limit: Int?) async throws -> PassChanges
}

extension PassStoring {
    /// The stored pass's newest version, or `nil` when it isn't stored.
    public func passArchive(for identifier: PassIdentifier) async throws -> [UInt8]? {
        try await passArchive(for: identifier, version: nil)
    }
}

/// What the store holds of a pass when a save is decided.
public struct StoredPassState: Sendable, Hashable {
    /// The stored version.
    public var version: Int
    /// Its SHA-256.
    public var sha256: String
    /// Its content digest.
    public var contentDigest: String?
    /// Whether it voids the pass.
    public var voided: Bool
    /// Its `Last-Modified`, in seconds since 1970.
    public var modifiedAt: Int64

    /// Creates a state.
    public init(version: Int, sha256: String, contentDigest: String?, voided: Bool, modifiedAt: Int64) {
        self.version = version
        self.sha256 = sha256
        self.contentDigest = contentDigest
        self.voided = voided
        self.modifiedAt = modifiedAt
    }
}

/// The decision every ``PassStoring`` makes for a save, inside its write transaction.
public enum PassStoreDecision: Sendable, Hashable {
    /// Write `incoming` as version `version`, answering `result`.
    case write(version: Int, result: SavePassResult)
    /// Keep what is stored (``SavePassResult/unchanged``).
    case keep

    /// Decides what saving `incoming` does when `stored` is what the store holds (or `nil`).
    public static func save(stored: StoredPassState?, incoming: VerifiedPassArchive) -> Self {
        guard let stored else { return .write(version: 1, result: .added) }
        if incoming.hasSameContent(asSHA256: stored.sha256, contentDigest: stored.contentDigest) { return .keep }
        return .write(version: stored.version + 1, result: incoming.voided && !stored.voided ? .voided : .replaced)
    }

    /// The `Last-Modified` of a new version saved at `now` (seconds since 1970) over `stored`:
    /// `now`, or a second after the stored version's when that is not before it.
    public static func modifiedAt(now: Int64, stored: StoredPassState?) -> Int64 {
        guard let stored else { return now }
        return max(now, stored.modifiedAt + 1)
    }

    /// The receipt of a save decided as `self` over `stored`.
    package func receipt(for incoming: VerifiedPassArchive, stored: StoredPassState?) -> PassSaveReceipt {
        switch self {
        case .write(let version, let result):
            PassSaveReceipt(identifier: incoming.identifier, result: result, version: version, sha256: incoming.sha256)
        case .keep:
            PassSaveReceipt(
                identifier: incoming.identifier, result: .unchanged, version: stored?.version ?? 0, sha256: stored?.sha256 ?? incoming.sha256)
        }
    }
}
