public import Foundation
import WalletOrdersInterop

/// A `.pkpasses` bundle: a zip whose members are `.pkpass` files, which Safari and Mail hand to
/// Wallet to add several passes at once (MIME `application/vnd.apple.pkpasses`). The bundle is not
/// signed; each pass inside is, and Wallet adds each on its own merits.
///
/// Opening reads the zip within the bundle's limits and records what is wrong with the bundle
/// itself (``diagnostics``): more than ``maximumPassCount`` passes, more than
/// ``ArchiveLimits/maximumPassFileBytes``, members that are not passes, none at all.
public struct PassBundle: Sendable {
    /// Apple's limit: "up to 10 passes or 150 MB" (Distributing and updating a pass).
    public static let maximumPassCount = 10
    /// The MIME type to serve bundles with.
    public static let mimeType = "application/vnd.apple.pkpasses"
    /// The file extension, without the dot.
    public static let fileExtension = "pkpasses"
    /// What to do about a bundle that is not a zip.
    package static let unreadableHint = "A .pkpasses bundle is a zip of .pkpass files; check that the download or upload did not alter it."

    /// One pass of the bundle: its name in the zip and its bytes.
    public struct Member: Sendable, Hashable {
        /// The member's path in the bundle (`ticket-1.pkpass`).
        public var name: String
        /// The `.pkpass` bytes.
        public var bytes: [UInt8]

        /// A pass of a bundle.
        public init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The passes, in the zip's order.
    public let members: [Member]
    /// What is wrong with the bundle as a whole: its zip, its limits, members that aren't passes.
    public let diagnostics: [Diagnostic]

    /// Opens a bundle held in memory.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveUnreadable`` when the bytes are not a zip archive.
    public init(bytes: [UInt8]) throws {
        let zip = try SignedArchive(
            bytes: bytes, kind: .pass,
            limits: ArchiveLimits(
                maxEntryCount: 100, maxTotalUncompressedBytes: ArchiveLimits.maximumPassFileBytes, maxCompressionRatio: 100))
        var diagnostics = zip.readingDiagnostics
        var members: [Member] = []
        for path in zip.filePaths {
            guard let contents = zip.contents(of: path) else { continue }
            if path.lowercased().hasSuffix(".pkpass"), !path.contains("/") {
                members.append(Member(name: path, bytes: contents))
            } else if JunkFiles.reason(path, kind: .pass) == nil {
                diagnostics.append(
                    Diagnostic(
                        .bundleUnexpectedFile, "'\(path)' is not a .pkpass at the top of the bundle; Wallet ignores it.",
                        at: .init(file: path), hint: "A .pkpasses bundle holds .pkpass files only, at its root."))
            }
        }
        if members.isEmpty {
            diagnostics.append(
                Diagnostic(.bundleEmpty, "The bundle holds no .pkpass file.", hint: "Zip one or more .pkpass files, at the root."))
        }
        if members.count > Self.maximumPassCount {
            diagnostics.append(
                Diagnostic(
                    .bundleTooManyPasses,
                    "The bundle holds \(members.count) passes; Wallet adds up to \(Self.maximumPassCount) at once.",
                    hint: "Split it into bundles of \(Self.maximumPassCount) passes or fewer."))
        }
        let total = members.reduce(0) { $0 + $1.bytes.count }
        if total > ArchiveLimits.maximumPassFileBytes || bytes.count > ArchiveLimits.maximumPassFileBytes {
            diagnostics.append(
                Diagnostic(
                    .bundlePassesTooLarge,
                    "The bundle's passes add up to \(ByteCountText.format(max(total, bytes.count))); Wallet takes up to 150 MB at once.",
                    hint: "Split the bundle, or make the passes' images smaller."))
        }
        self.members = members
        self.diagnostics = diagnostics
    }

    /// The `.pkpasses` bytes of `members`: a zip of the passes, stored (each is compressed
    /// already), in the order given, every timestamp `date` (so the same passes and date give the
    /// same bytes).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidSource`` for no pass, more than
    ///   ``maximumPassCount``, more than 150 MB, a name that isn't `NAME.pkpass` without a folder,
    ///   or the same name twice; ``WalletOrdersError/Code/archiveWriteFailed``.
    public static func make(_ members: [Member], date: Date = Date()) throws -> [UInt8] {
        let hint = "A .pkpasses bundle holds 1 to \(maximumPassCount) passes, 150 MB at most, each NAME.pkpass at its root."
        guard !members.isEmpty else { throw WalletOrdersError(.invalidSource, "A bundle needs at least one pass.", hint: hint) }
        guard members.count <= maximumPassCount else {
            throw WalletOrdersError(.invalidSource, "\(members.count) passes are more than Wallet adds at once (\(maximumPassCount)).", hint: hint)
        }
        let total = members.reduce(0) { $0 + $1.bytes.count }
        guard total <= ArchiveLimits.maximumPassFileBytes else {
            throw WalletOrdersError(
                .invalidSource, "The passes add up to \(ByteCountText.format(total)), more than Wallet takes at once (150 MB).", hint: hint)
        }
        var seen: Set<String> = []
        for member in members {
            guard member.name.lowercased().hasSuffix(".pkpass"), !member.name.contains("/"), SignedArchive.pathProblem(member.name) == nil
            else {
                throw WalletOrdersError(.invalidSource, "'\(member.name)' is not a pass name (NAME.pkpass, no folder).", hint: hint)
            }
            guard seen.insert(member.name.lowercased()).inserted else {
                throw WalletOrdersError(.invalidSource, "Two passes are named '\(member.name)' (names compare without case).", hint: hint)
            }
        }
        do {
            return try ZipWriter.write(
                members.map { ZipWriter.Entry(path: $0.name, bytes: $0.bytes, deflate: false) }, timestamp: SignedArchiveWriter.dosTimestamp(date))
        } catch {
            throw WalletOrdersError(.archiveWriteFailed, "Writing the bundle failed: \(error)", underlying: error)
        }
    }

    /// Verifies every pass of the bundle on its own, as Wallet adds each: one report per pass
    /// (subject `<bundle>/<member>`), after one for the bundle itself when it has findings.
    public static func verify(
        bytes: [UInt8], subject: String, with verifier: PassArchiveVerifier, now: Date = Date()
    ) -> [ValidationReport] {
        reports(bytes: bytes, subject: subject) { verifier.verify(archiveBytes: $0, subject: $1, now: now) }
    }

    /// Validates every pass of the bundle on its own (``PassValidator``), reported as ``verify(bytes:subject:with:now:)`` does.
    public static func validate(
        bytes: [UInt8], subject: String, with validator: PassValidator, now: Date = Date()
    ) -> [ValidationReport] {
        reports(bytes: bytes, subject: subject) { validator.validate(archiveBytes: $0, subject: $1, now: now) }
    }

    /// The bundle's own report (when it has findings), then `check` of each pass's bytes and subject.
    static func reports(bytes: [UInt8], subject: String, check: ([UInt8], String) -> ValidationReport) -> [ValidationReport] {
        let bundle: PassBundle
        do {
            bundle = try PassBundle(bytes: bytes)
        } catch {
            var report = ValidationReport(subject: subject, kind: .pass)
            let failure = WalletOrdersError.wrapping(error)
            report.add(.zipUnreadable, failure.message, hint: failure.code == .archiveUnreadable ? unreadableHint : failure.hint)
            return [report]
        }
        var reports: [ValidationReport] = []
        if !bundle.diagnostics.isEmpty { reports.append(ValidationReport(subject: subject, diagnostics: bundle.diagnostics, kind: .pass)) }
        for member in bundle.members {
            reports.append(check(member.bytes, "\(subject)/\(member.name)"))
        }
        return reports
    }
}
