/// How ``OrderArchiveBuilder`` compresses the files of an archive.
///
/// Wallet reads both zip methods; the choice trades archive size for build time. Either way the
/// output is reproducible, and PNG/JPEG images and the signature (DER: keys and signatures don't
/// compress) are always stored.
public enum ArchiveCompression: String, Sendable, Hashable, CaseIterable, Codable {
    /// Deflates `order.json`, `manifest.json`, `.strings` and other files that are not already
    /// compressed (zlib level 1). Archives of the shipped sample come out about 3.4 kB smaller
    /// than stored ones; deflating costs about a fifth of build+sign time on order-sized files.
    case deflate
    /// Stores every file as it is: the fastest build, the largest archive.
    case store
}
