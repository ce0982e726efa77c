import Foundation
package import WalletOrdersInterop

/// An opened signed archive of either kind (``ArchiveKind``): its entries and its files' bytes.
/// `OrderArchive` and `PassArchive` wrap one and add the typed access to their content file.
///
/// Opening reads every entry once, within ``ArchiveLimits``, and records anything unsafe or
/// broken about the zip itself (``readingDiagnostics``) instead of failing: only data that is
/// not a zip archive at all makes ``init(bytes:kind:limits:)`` throw. The verifiers turn the
/// rest into a full report.
public struct SignedArchive: Sendable {
    /// One entry of the zip's central directory.
    public struct Entry: Sendable, Hashable, Codable {
        /// How an entry's bytes are stored.
        public enum Compression: Sendable, Hashable, Codable, CustomStringConvertible {
            case stored
            case deflated
            /// Another zip method number (bzip2 = 12, LZMA = 14, …).
            case other(UInt16)

            package init(method: UInt16) {
                switch method {
                case 0: self = .stored
                case 8: self = .deflated
                default: self = .other(method)
                }
            }
            public var description: String {
                switch self {
                case .stored: "stored"
                case .deflated: "deflated"
                case .other(let method): "method \(method)"
                }
            }
        }

        /// The entry's name, relative to the archive root.
        public var path: String
        /// The uncompressed size the directory declares.
        public var uncompressedSize: UInt64
        /// The stored (compressed) size.
        public var compressedSize: UInt64
        /// How the bytes are stored.
        public var compression: Compression
        /// Whether it is a directory entry (name ends with `/`).
        public var isDirectory: Bool
        /// Whether it is encrypted.
        public var isEncrypted: Bool
        /// Whether it is a Unix symbolic link.
        public var isSymbolicLink: Bool
    }

    /// Which kind of archive this was opened as.
    public let kind: ArchiveKind
    /// Every entry in central-directory order.
    public let entries: [Entry]
    /// The size of the archive in bytes.
    public let byteCount: Int
    /// What was wrong with the zip container while reading it (unsafe names, duplicates, encrypted
    /// entries, bombs, checksum failures). Empty for a clean archive.
    public let readingDiagnostics: [Diagnostic]
    /// Path → bytes for every regular file that was safe to read.
    package let files: [String: [UInt8]]

    /// The paths of the files that were read, sorted.
    public var filePaths: [String] { files.keys.sorted() }

    /// The bytes of one file, or `nil` when the archive has no readable file at `path`.
    public func contents(of path: String) -> [UInt8]? { files[path] }

    /// Opens an archive from a file, read within ``FileKind/archive(_:)``'s limit.
    ///
    /// - Throws: ``WalletOrdersError/Code/fileAccess`` or ``WalletOrdersError/Code/archiveUnreadable``.
    public init(contentsOf path: String, kind: ArchiveKind, limits: ArchiveLimits? = nil) throws {
        try self.init(bytes: try BoundedFile.read(path, as: .archive(for: kind)), kind: kind, limits: limits)
    }

    /// Opens an archive held in memory.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveUnreadable`` when the bytes are not a zip archive.
    public init(bytes: [UInt8], kind: ArchiveKind, limits: ArchiveLimits? = nil) throws {
        let limits = limits ?? .defaults(for: kind)
        let reader: ZipReader
        do {
            reader = try ZipReader(bytes: bytes)
        } catch {
            throw WalletOrdersError(
                .archiveUnreadable, "The data is not a readable zip archive: \(error.message).",
                hint: error.isNotZip
                    ? "\(kind == .order ? "An" : "A") .\(kind.fileExtension) file is a zip archive; check that the download or upload did not alter it."
                    : "Rebuild the archive; the zip structure is damaged.",
                underlying: error)
        }
        var diagnostics: [Diagnostic] = []
        var files: [String: [UInt8]] = [:]
        var seen: Set<RawEntryName> = []
        var foldedNames: [String: String] = [:]
        var totalRead = 0
        var stoppedForSize = false

        let layout = ZipLayout(bytes)
        diagnostics += Self.layoutDiagnostics(layout, libzipEntries: reader.entries)
        if layout.usesZip64 {
            diagnostics.append(
                Diagnostic(
                    .zip64, "The archive uses ZIP64 records or fields, which Wallet \(kind.plural) don't need.",
                    hint: "Write the archive without ZIP64 (\(kind.plural) are far below its 4 GB threshold)."))
        }
        // libzip's index is the central directory's when both read the same number of records.
        let sameRecords = layout.records.count == reader.entries.count
        if reader.entries.count > limits.maxEntryCount {
            diagnostics.append(
                Diagnostic(
                    .zipTooManyEntries, "The archive has \(reader.entries.count) entries; at most \(limits.maxEntryCount) are read.",
                    hint: "\(kind.withArticle.capitalizedFirst) needs a few dozen files at most; remove what it doesn't reference."))
        }

        for info in reader.entries.prefix(limits.maxEntryCount) {
            let location = Diagnostic.Location(file: info.name)
            if !seen.insert(RawEntryName(bytes: info.rawName)).inserted {
                diagnostics.append(
                    Diagnostic(
                        .zipDuplicateName, "The archive holds more than one entry named '\(info.name)'.",
                        at: location, hint: "Each path may appear once; rebuild the archive."))
                continue
            }
            let storedName = sameRecords ? layout.records[info.index].rawName : info.rawName
            if storedName.contains(0) {
                diagnostics.append(
                    Diagnostic(
                        .zipNameContainsNUL,
                        "The entry name '\(ZipLayout.display(storedName))' contains a NUL byte; readers cut the name there, so they disagree about it.",
                        at: .init(file: ZipLayout.display(storedName)), hint: "Entry names are plain paths; rebuild the archive."))
                continue
            }
            guard info.hasValidUTF8Name else {
                diagnostics.append(
                    Diagnostic(
                        .zipInvalidNameEncoding,
                        "The entry name '\(ZipLayout.display(info.rawName))' is not valid UTF-8 (bytes that aren't UTF-8 shown as \\xNN).",
                        at: .init(file: ZipLayout.display(info.rawName)), hint: "Use UTF-8 file names."))
                continue
            }
            if sameRecords, layout.untrustedRecords.contains(info.index) { continue }  // reported by the layout check
            let folded = Self.caseFolded(info.name)
            if let other = foldedNames[folded] {
                diagnostics.append(
                    Diagnostic(
                        .zipCaseCollision,
                        "'\(info.name)' and '\(other)' differ only in case or Unicode normalization; on a case-insensitive file system (APFS) one replaces the other.",
                        at: location, hint: "Give every file a name that differs from the others by more than case."))
                continue
            }
            foldedNames[folded] = info.name
            if let problem = Self.pathProblem(info.name) {
                diagnostics.append(Diagnostic(problem.rule, problem.message, at: location, hint: problem.hint))
                continue
            }
            if info.isSymbolicLink {
                diagnostics.append(
                    Diagnostic(
                        .zipSymlinkEntry, "'\(info.name)' is a symbolic link.", at: location,
                        hint: "Store the file itself, not a link to it."))
                continue
            }
            if info.encryptionMethod != 0 {
                diagnostics.append(
                    Diagnostic(
                        .zipEncryptedEntry, "'\(info.name)' is encrypted; Wallet cannot read it.",
                        at: location, hint: "Build the archive without a password."))
                continue
            }
            if info.isDirectory { continue }
            if info.compressionMethod != 0 && info.compressionMethod != 8 {
                let known: [UInt16: String] = [
                    1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard", 95: "XZ", 99: "AES encryption",
                ]
                diagnostics.append(
                    Diagnostic(
                        .zipUnsupportedCompression,
                        "'\(info.name)' uses compression method \(info.compressionMethod)\(known[info.compressionMethod].map { " (\($0))" } ?? ""); Wallet reads stored (0) and deflated (8) entries only.",
                        at: location, hint: "Zip the \(kind.noun) with deflate or store (zip -Z deflate; wallet-orders build does)."))
                continue
            }
            if let reason = JunkFiles.reason(info.name, kind: kind) {
                // A pass with a junk file its manifest lists installs (an Apple-signed pass carries
                // one); one the manifest lacks fails as manifest.missing-entry.
                diagnostics.append(
                    Diagnostic(
                        kind == .order ? ValidationRule.zipJunkFile : .passJunkFile,
                        "'\(info.name)' does not belong in \(kind.withArticle): \(reason).", at: location,
                        hint: "Remove it before building (wallet-orders build skips such files)."))
            }
            if info.uncompressedSize > limits.compressionRatioThreshold,
                info.uncompressedSize / max(info.compressedSize, 1) > limits.maxCompressionRatio
            {
                diagnostics.append(
                    Diagnostic(
                        .zipCompressionRatio,
                        "'\(info.name)' expands from \(info.compressedSize) to \(info.uncompressedSize) bytes, more than \(limits.maxCompressionRatio):1; it was not read.",
                        at: location, hint: "This looks like a zip bomb; real \(kind.noun) files don't compress that well."))
                continue
            }
            let remaining = limits.maxTotalUncompressedBytes - totalRead
            if info.uncompressedSize > UInt64(max(remaining, 0)) {
                if !stoppedForSize {
                    diagnostics.append(
                        Diagnostic(
                            .zipTooLarge,
                            "The archive's files expand to more than \(limits.maxTotalUncompressedBytes) bytes; reading stopped at '\(info.name)'.",
                            at: location,
                            hint: kind == .order ? "Orders must stay below 5 MB." : "Keep passes small: the smallest images that still look right."))
                    stoppedForSize = true
                }
                continue
            }
            do {
                let data = try reader.read(info, limit: remaining)
                totalRead += data.count
                files[info.name] = data
            } catch {
                diagnostics.append(
                    Diagnostic(
                        error.isChecksumMismatch ? ValidationRule.zipChecksumMismatch : .zipEntryUnreadable,
                        "'\(info.name)' could not be read: \(error.message).", at: location,
                        hint: "The archive is damaged; rebuild it."))
            }
        }

        self.entries = reader.entries.map { info in
            Entry(
                path: info.name, uncompressedSize: info.uncompressedSize, compressedSize: info.compressedSize,
                compression: .init(method: info.compressionMethod), isDirectory: info.isDirectory,
                isEncrypted: info.encryptionMethod != 0, isSymbolicLink: info.isSymbolicLink)
        }
        self.kind = kind
        self.byteCount = bytes.count
        self.readingDiagnostics = diagnostics
        self.files = files
    }

    /// Parses `manifest.json`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidOrder``.
    public func manifest() throws -> Manifest {
        guard let bytes = files[ArchiveKind.manifestPath] else {
            throw WalletOrdersError(.archiveEntryMissing, "The archive has no manifest.json at its root.")
        }
        do {
            return try Manifest(jsonBytes: bytes)
        } catch {
            throw WalletOrdersError(
                .invalidOrder, "manifest.json is not a JSON object of strings: \(DecodingErrorText.describe(error))",
                underlying: error)
        }
    }

    /// Reads the facts of the signature: signer, issuer, serial, validity, signing time, algorithms.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveEntryMissing`` or ``WalletOrdersError/Code/invalidCertificate``.
    public func signatureInfo() throws -> SignatureInfo {
        guard let bytes = files[ArchiveKind.signaturePath] else {
            throw WalletOrdersError(.archiveEntryMissing, "The archive has no signature at its root.")
        }
        do {
            return SignatureInfo(try CMSSignedData(derBytes: bytes))
        } catch {
            throw WalletOrdersError(
                .invalidCertificate, "The signature is not a DER-encoded CMS structure.", underlying: error)
        }
    }

    /// `name` as a case-insensitive, normalization-insensitive file system compares it (APFS):
    /// canonically composed, then lowercased. An ASCII name is its own composition, so it skips
    /// Foundation's normalization, about a fifth of the reading of a typical archive.
    package static func caseFolded(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.lowercased() }
        return name.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// What is unsafe about an entry path, if anything.
    package static func pathProblem(_ path: String) -> (rule: ValidationRule, message: String, hint: String)? {
        // Read as UTF-8 bytes: '/', '\\', ':' and '.' are ASCII and never part of a multi-byte
        // sequence, so byte checks are exact and cost no allocation per entry.
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        let backslash = UInt8(ascii: "\\")
        let dot = UInt8(ascii: ".")
        let first = bytes.first
        let second = bytes.dropFirst().first
        if first == slash || first == backslash || (second == UInt8(ascii: ":")) {
            return (ValidationRule.zipAbsolutePath, "'\(path)' is an absolute path.", "Entry paths must be relative to the archive root.")
        }
        var componentLength = 0
        var componentIsDots = true
        var hasBackslash = false
        for byte in bytes {
            if byte == slash || byte == backslash {
                if componentLength == 2 && componentIsDots {
                    return (ValidationRule.zipParentReference, "'\(path)' climbs out of the archive with '..'.", "Remove '..' from entry paths.")
                }
                hasBackslash = hasBackslash || byte == backslash
                componentLength = 0
                componentIsDots = true
            } else {
                componentLength += 1
                componentIsDots = componentIsDots && byte == dot
            }
        }
        if componentLength == 2 && componentIsDots {
            return (ValidationRule.zipParentReference, "'\(path)' climbs out of the archive with '..'.", "Remove '..' from entry paths.")
        }
        if hasBackslash {
            return (ValidationRule.zipBackslashPath, "'\(path)' uses '\\' as a separator.", "Zip paths use '/'.")
        }
        return nil
    }
}

extension SignedArchive {
    /// The strict-layout problems (``ZipLayout``) as findings, and any disagreement between the
    /// central directory as read strictly and the entries libzip reports.
    package static func layoutDiagnostics(_ layout: ZipLayout, libzipEntries: [ZipReader.EntryInfo]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let hint = "Rebuild the archive with a standard zip writer (wallet-orders build); every reader must see the same entries."
        for problem in layout.problems {
            let rule =
                switch problem.kind {
                case .trailingData: ValidationRule.zipTrailingData
                case .centralDirectoryInvalid: ValidationRule.zipCentralDirectoryInvalid
                case .gap: ValidationRule.zipLayoutGap
                case .overlap: ValidationRule.zipOverlappingEntries
                case .localHeaderMismatch: ValidationRule.zipLocalHeaderMismatch
                }
            let file = problem.recordIndex.map { ZipLayout.display(layout.records[$0].rawName) }
            diagnostics.append(Diagnostic(rule, problem.message, at: file.map { .init(file: $0) } ?? .archive, hint: hint))
        }
        if let padding = layout.trailingPadding {
            diagnostics.append(
                Diagnostic(
                    .zipTrailingPadding,
                    "\(padding.count) zero byte(s) follow the end-of-central-directory record (which ends at byte \(padding.lowerBound)): block padding, as a tar-style writer (bsdtar, macOS's tar) adds when it writes a zip to standard output in whole 10,240-byte blocks.",
                    hint:
                        "Readers skip the zeros alike, so the archive reads the same everywhere; to drop them, have bsdtar write the file itself (-f order.order) instead of redirecting its output, or cut the archive after its end record."
                ))
        }
        guard !layout.records.isEmpty || libzipEntries.isEmpty else { return diagnostics }
        let differs =
            layout.records.count != libzipEntries.count
            || zip(layout.records, libzipEntries).contains { record, entry in
                (record.rawName != entry.rawName && !record.rawName.contains(0)) || record.method != entry.compressionMethod
                    || record.uncompressedSize != entry.uncompressedSize || record.compressedSize != entry.compressedSize
            }
        if differs && layout.problems.isEmpty {
            diagnostics.append(
                Diagnostic(
                    .zipParserDifferential,
                    "libzip reads \(libzipEntries.count) entries where the central directory holds \(layout.records.count) records, or reads them differently.",
                    hint: hint))
        }
        return diagnostics
    }
}

/// Human-readable decoding errors.
package enum DecodingErrorText {
    package static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ codingPath: [any CodingKey]) -> String {
            "/" + codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing required key '\(key.stringValue)' at \(path(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "wrong type at \(path(context.codingPath)) (expected \(type)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "null at \(path(context.codingPath)) where \(type) is required"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? context.debugDescription : "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(decoding)"
        }
    }
}

/// An entry's name as stored (not necessarily UTF-8), hashed as one run of bytes: `[UInt8]`'s own
/// `hash(into:)` feeds the hasher a byte at a time, which was a tenth of reading an archive.
private struct RawEntryName: Hashable {
    package let bytes: [UInt8]

    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
