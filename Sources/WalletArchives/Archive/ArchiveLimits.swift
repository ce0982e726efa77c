/// The size limits of an order: Apple's limit on a bundle, the largest archive file read, and the
/// limits that keep a hostile archive from exhausting memory or time while it is opened. Every
/// stage that checks a size reads it here: building (``OrderArchiveBuilder``), reading files
/// (``FileKind``), opening (``OrderArchive``) and validating.
public struct ArchiveLimits: Sendable, Hashable {
    /// The most entries read (default 1,000; real orders have a few dozen).
    public var maxEntryCount: Int
    /// The most bytes all entries may expand to (default 64 MiB).
    public var maxTotalUncompressedBytes: Int
    /// The largest expansion ratio allowed for entries above ``compressionRatioThreshold`` (default 100:1).
    public var maxCompressionRatio: UInt64
    /// Entries smaller than this are never flagged for their ratio (default 1 MiB).
    public var compressionRatioThreshold: UInt64

    /// Creates limits; the defaults suit any real order.
    public init(
        maxEntryCount: Int = 1_000, maxTotalUncompressedBytes: Int = 64 << 20, maxCompressionRatio: UInt64 = 100,
        compressionRatioThreshold: UInt64 = 1 << 20
    ) {
        self.maxEntryCount = maxEntryCount
        self.maxTotalUncompressedBytes = maxTotalUncompressedBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.compressionRatioThreshold = compressionRatioThreshold
    }
}

extension ArchiveLimits {
    /// The limits an archive of `kind` is opened with by default: ``init(maxEntryCount:maxTotalUncompressedBytes:maxCompressionRatio:compressionRatioThreshold:)``'s
    /// for orders; for passes, which have no documented size limit, files may expand to
    /// ``maximumPassFileBytes`` (the limit of a whole `.pkpasses` bundle).
    public static func defaults(for kind: ArchiveKind) -> ArchiveLimits {
        switch kind {
        case .order: ArchiveLimits()
        case .pass: ArchiveLimits(maxTotalUncompressedBytes: maximumPassFileBytes)
        }
    }

    /// The largest pass file read: 150 MB, Apple's limit on a whole `.pkpasses` bundle
    /// ("up to 10 passes or 150 MB"), which no single pass Wallet takes from Safari can exceed.
    public static let maximumPassFileBytes = 150_000_000

    /// Apple's limit: "The total size of the bundle must be below 5 MB" (taken as 5,000,000 bytes
    /// of files, manifest and signature included).
    public static let maximumBundleBytes = 5_000_000

    /// The largest archive file read: 8 MiB (8,388,608 bytes). A bundle under
    /// ``maximumBundleBytes``, zipped with the headers of up to 1,000 entries (the most
    /// ``maxEntryCount`` reads by default), stays under 6 MB even stored, so an archive over 8 MiB
    /// can't be one Wallet accepts.
    public static let maximumArchiveFileBytes = 8 << 20
}

// MARK: - The bundle limit

extension ArchiveLimits {
    /// An order bundle's size measured against ``maximumBundleBytes``: its files' total and its largest
    /// files. The one check of Apple's limit, which building (``OrderArchiveBuilder``, as an error),
    /// validating an archive and validating a source (as the `bundle.too-large` finding) share.
    package struct BundleSize {
        /// Path → byte count.
        package let sizes: [String: Int]
        /// The files' sizes added up.
        package let total: Int

        /// Measures files given as path → byte count.
        package init(_ sizes: [String: Int]) {
            self.sizes = sizes
            total = sizes.values.reduce(0, +)
        }

        /// The three largest files, largest first (ties by path).
        package var largest: [(path: String, bytes: Int)] {
            sizes.map { (path: $0.key, bytes: $0.value) }.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.path < $1.path }
                .prefix(3).map { $0 }
        }

        /// Measures files given as path → bytes.
        package init(files: [String: [UInt8]]) { self.init(files.mapValues(\.count)) }

        /// Whether the files add up to ``ArchiveLimits/maximumBundleBytes`` or more.
        package var isTooLarge: Bool { total >= ArchiveLimits.maximumBundleBytes }

        /// `a.pdf (3.00 MB), b.png (1.20 MB)`.
        package var largestText: String { largest.map { "\($0.path) (\(ByteCountText.format($0.bytes)))" }.joined(separator: ", ") }

        /// The `bundle.too-large` finding, or `nil` when the bundle is under the limit.
        package var finding: Diagnostic? {
            guard isTooLarge else { return nil }
            return Diagnostic(
                .bundleTooLarge,
                "The order's files add up to \(ByteCountText.format(total)); Wallet requires less than 5 MB. Largest: \(largestText).",
                hint: "Shrink or drop the largest files: images need only be 300×300 px (@2x 600, @3x 900).")
        }
    }
}
