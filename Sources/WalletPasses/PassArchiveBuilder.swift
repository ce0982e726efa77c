public import Foundation
import WalletOrdersJSON

/// Packages a ``PassSource`` into a signed `.pkpass`: `manifest.json` (SHA-1 of every file, as
/// Wallet requires), a detached CMS signature of it (SHA-256, with the signing time and the WWDR
/// intermediate), and a zip.
///
/// The output is reproducible: equal sources, identity and signing time give byte-identical
/// passes. A builder is an immutable `Sendable` value; reuse one for any number of passes, from
/// any number of tasks.
public struct PassArchiveBuilder: Sendable {
    /// The Pass Type ID certificate, key and intermediate that sign every pass.
    public var identity: SigningIdentity
    /// How the files are compressed in the zip (default: ``ArchiveCompression/deflate``).
    public var compression: ArchiveCompression

    /// Creates a builder that signs with `identity` (loaded `for: .pass`).
    public init(identity: SigningIdentity, compression: ArchiveCompression = .deflate) {
        self.identity = identity
        self.compression = compression
    }

    /// Builds and signs a pass.
    ///
    /// - Parameters:
    ///   - source: The pass's files.
    ///   - signingTime: The signingTime attribute and the zip timestamps (default: now). Must fall
    ///     inside the certificate's validity.
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/invalidSource`` (no
    ///   `pass.json`), ``WalletOrdersError/Code/invalidOrder`` (`pass.json` is no JSON object),
    ///   ``WalletOrdersError/Code/passTypeMismatch`` (the certificate was issued for another pass
    ///   type or team), ``WalletOrdersError/Code/certificateNotValid`` or
    ///   ``WalletOrdersError/Code/signingFailed``.
    public func build(_ source: PassSource, signingTime: Date = Date()) throws -> BuiltPassArchive {
        guard let passJSON = source.passJSON else {
            throw WalletOrdersError(.invalidSource, "The source has no pass.json.", hint: "Add pass.json at the top level.")
        }
        switch PassIdentity.read(passJSON) {
        case .identity(let identity): return try build(source, identity: identity, signingTime: signingTime)
        case .unreadable(let problem):
            throw WalletOrdersError(
                .invalidOrder, "pass.json is not valid JSON: \(problem.message) at \(problem.position).",
                hint: "Fix pass.json; verifying the built pass lists every problem.")
        }
    }

    /// Builds and signs a pass whose `pass.json` the caller has read already (a batch validates
    /// it first): `identity` is what it says, so it isn't parsed again.
    package func build(_ source: PassSource, identity: PassIdentity, signingTime: Date) throws -> BuiltPassArchive {
        guard let passTypeIdentifier = identity.passTypeIdentifier else {
            throw WalletOrdersError(.invalidOrder, "pass.json has no passTypeIdentifier.", hint: "Add the pass type the certificate names.")
        }
        try self.identity.checkCanSign(passTypeIdentifier: passTypeIdentifier, teamIdentifier: identity.teamIdentifier)
        try self.identity.checkValidity(at: signingTime)
        let written = try SignedArchiveWriter(kind: .pass, identity: self.identity, compression: compression).write(
            source.files, skipped: source.skippedFiles, signingTime: signingTime)
        return BuiltPassArchive(
            bytes: written.bytes, manifest: written.manifest, manifestBytes: written.manifestBytes, passTypeIdentifier: passTypeIdentifier,
            serialNumber: identity.serialNumber, signingTime: signingTime, diagnostics: written.diagnostics)
    }
}

/// A signed pass produced by ``PassArchiveBuilder``.
public struct BuiltPassArchive: BuiltArchive {
    /// The `.pkpass` file's bytes.
    public var bytes: [UInt8]
    /// The manifest that was signed (SHA-1 hashes).
    public var manifest: Manifest
    /// The exact `manifest.json` bytes in the pass (what the signature covers).
    public var manifestBytes: [UInt8]
    /// `passTypeIdentifier`.
    public var passTypeIdentifier: String
    /// `serialNumber`, when pass.json has one.
    public var serialNumber: String?
    /// The signing time used.
    public var signingTime: Date
    /// Notes from building (files skipped from the source).
    public var diagnostics: [Diagnostic]

    /// Writes the pass to `url` without destroying what is there (see `OutputFile`).
    public func write(to url: URL) throws {
        try OutputFile.write(bytes, to: url.path)
    }
}
