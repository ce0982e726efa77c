/// One version of an order as the decision sees it: its `updatedAt`, the SHA-256 of its archive
/// bytes and the digest of its content.
public struct OrderVersion: Sendable, Hashable, Codable {
    /// The order's `updatedAt`, compared as an instant.
    public var updatedAt: Timestamp
    /// The lowercase hexadecimal SHA-256 of the archive's bytes.
    public var sha256: String
    /// The archive's ``Manifest/contentDigest``: equal for two builds of the same files, whatever
    /// their signing times. `nil` where it is unknown (a version stored before stores kept it
    /// whose archive could not be read again).
    public var contentDigest: String?

    /// Creates a version.
    public init(updatedAt: Timestamp, sha256: String, contentDigest: String? = nil) {
        self.updatedAt = updatedAt
        self.sha256 = sha256
        self.contentDigest = contentDigest
    }

    /// Whether `other` holds the same content: the same archive bytes, or the same files (equal
    /// content digests) signed at another time.
    public func hasSameContent(as other: OrderVersion) -> Bool {
        if sha256 == other.sha256 { return true }
        guard let contentDigest, let otherDigest = other.contentDigest else { return false }
        return contentDigest == otherDigest
    }

    /// The first twelve hex digits of ``sha256``, for messages.
    public var shortHash: String { String(sha256.prefix(12)) }
}
