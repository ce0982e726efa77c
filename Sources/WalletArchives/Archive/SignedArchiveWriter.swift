package import Foundation
package import WalletOrdersInterop

/// The last steps of building either kind of archive, in one place: the manifest (the kind's
/// hash of every file), the detached CMS signature of its exact bytes, and the zip.
///
/// The zip is reproducible: entries in a fixed order (the content file, `manifest.json`,
/// `signature`, then every other file by its UTF-8 bytes), every timestamp the signing time in
/// UTC, fixed permissions and compression. Equal files, identity and signing time give
/// byte-identical archives.
package struct SignedArchiveWriter: Sendable {
    package var kind: ArchiveKind
    package var identity: SigningIdentity
    package var compression: ArchiveCompression

    package init(kind: ArchiveKind, identity: SigningIdentity, compression: ArchiveCompression) {
        self.kind = kind
        self.identity = identity
        self.compression = compression
    }

    /// A signed archive's bytes and what they hold.
    package struct Written: Sendable {
        package var bytes: [UInt8]
        package var manifest: Manifest
        /// The exact `manifest.json` bytes (what the signature covers).
        package var manifestBytes: [UInt8]
        /// Notes from building: a `build.skipped-file` note for each file left out of the source.
        package var diagnostics: [Diagnostic]
    }

    /// The whole archive of `files`: manifest, signature and zip, with a note for each file the
    /// source skipped. `limit` judges the files' sizes before signing, and again with
    /// `manifest.json` and `signature`, and throws to refuse them.
    package func write(
        _ files: [String: [UInt8]], skipped: [SkippedSourceFile], signingTime: Date,
        limit: ((ArchiveLimits.BundleSize) throws -> Void)? = nil
    ) throws -> Written {
        var sizes = files.mapValues(\.count)
        try limit?(ArchiveLimits.BundleSize(sizes))
        let (manifest, manifestBytes, signature) = try sign(files, signingTime: signingTime)
        if let limit {
            sizes[ArchiveKind.manifestPath] = manifestBytes.count
            sizes[ArchiveKind.signaturePath] = signature.count
            try limit(ArchiveLimits.BundleSize(sizes))
        }
        let bytes = try zip(files, manifestBytes: manifestBytes, signature: signature, signingTime: signingTime)
        let diagnostics = skipped.map { skipped in
            Diagnostic(.buildSkippedFile, "Skipped \(skipped.path): \(skipped.reason).", at: .init(file: skipped.path))
        }
        return Written(bytes: bytes, manifest: manifest, manifestBytes: manifestBytes, diagnostics: diagnostics)
    }

    /// The manifest of `files` (path → bytes; `manifest.json` and `signature` left out), its
    /// bytes, and their signature at `signingTime`.
    package func sign(_ files: [String: [UInt8]], signingTime: Date) throws -> (Manifest, [UInt8], [UInt8]) {
        let manifest = Manifest(hashing: files, algorithm: kind.manifestHash)
        let manifestBytes = manifest.jsonBytes
        return (manifest, manifestBytes, try identity.sign(manifestBytes, signingTime: signingTime))
    }

    /// The zip of `files` with `manifest.json` and `signature`.
    ///
    /// - Throws: ``WalletOrdersError/Code/archiveWriteFailed``.
    package func zip(_ files: [String: [UInt8]], manifestBytes: [UInt8], signature: [UInt8], signingTime: Date) throws -> [UInt8] {
        let deflate = compression == .deflate
        var entries: [ZipWriter.Entry] = []
        if let content = files[kind.contentPath] { entries.append(.init(path: kind.contentPath, bytes: content, deflate: deflate)) }
        entries.append(.init(path: ArchiveKind.manifestPath, bytes: manifestBytes, deflate: deflate))
        entries.append(.init(path: ArchiveKind.signaturePath, bytes: signature, deflate: false))
        let others = files.keys.filter { $0 != kind.contentPath && !Manifest.excludedPaths.contains($0) }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for path in others {
            entries.append(.init(path: path, bytes: files[path] ?? [], deflate: deflate && !Self.isAlreadyCompressed(path)))
        }
        do {
            return try ZipWriter.write(entries, timestamp: Self.dosTimestamp(signingTime), level: Self.deflateLevel)
        } catch {
            throw WalletOrdersError(.archiveWriteFailed, "Writing the zip archive failed: \(error)", underlying: error)
        }
    }

    /// The zlib level for the content file, manifest.json and other compressible files. On
    /// order-sized files level 1 costs three quarters of level 6 for archives 4% larger.
    package static let deflateLevel: Int32 = 1

    /// PNG and JPEG data is already compressed: storing it saves time and loses nothing.
    package static func isAlreadyCompressed(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".png") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
    }

    /// The zip timestamp for `date`, in UTC so that the time zone never changes the output.
    package static func dosTimestamp(_ date: Date) -> ZipWriter.DOSTimestamp {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return ZipWriter.DOSTimestamp(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }
}
