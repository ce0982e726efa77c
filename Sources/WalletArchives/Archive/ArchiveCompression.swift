/// How ``OrderArchiveBuilder`` compresses the files of an archive.
///
/// Wallet reads both zip methods; the choice trades archive size for build time. Either way the
/// output is reproducible, and PNG/JPEG images and the signature (DER: keys and signatures don't
/// compress) are always stored.
public enum ArchiveCompression: String, Sendable, Hashable, CaseIterable, Codable {
    /// Deflates `order.json`, `.strings`, PDFs and other files of 1 KiB or more that are not
    /// already compressed (zlib level 1); smaller files are stored. The shipped sample's archive
    /// comes out about 2.9 kB smaller than stored; deflating its `order.json` costs about 0.3 M
    /// instructions, a sixth of build+sign time.
    case deflate
    /// Stores every file as it is: the fastest build, the largest archive.
    case store
}
