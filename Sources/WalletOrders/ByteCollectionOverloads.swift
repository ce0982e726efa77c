public import Foundation

// `Data`, `ArraySlice<UInt8>`, NIO's `ByteBufferView` or any other collection of bytes wherever
// the library takes `[UInt8]`: a caller holding an upload body doesn't copy it by hand. Each
// overload makes one contiguous copy (`[UInt8](bytes)`, a `memcpy` for `Data`) and calls the
// `[UInt8]` method; passing an array calls that method directly, without a copy.

extension OrderArchive {
    /// Opens an archive from any collection of bytes (`Data`, `ByteBufferView`, …).
    ///
    /// - Throws: As the `[UInt8]` initializer: ``WalletOrdersError`` when the bytes are not a readable archive.
    public init(bytes: some Collection<UInt8>, limits: ArchiveLimits = .init()) throws {
        try self.init(bytes: [UInt8](bytes), limits: limits)
    }
}

extension OrderValidator {
    /// Validates archive bytes held in any collection (`Data`, `ByteBufferView`, …).
    public func validate(archiveBytes bytes: some Collection<UInt8>, subject: String, now: Date = Date()) -> ValidationReport {
        validate(archiveBytes: [UInt8](bytes), subject: subject, now: now)
    }

    /// A validator that trusts `additionalTrustAnchors` (PEM or DER) besides Apple's root: for
    /// example the root `wallet-orders dev-certs` writes, or
    /// ``DevelopmentCertificateAuthority/rootCertificatePEM``, in tests and staging.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidTrustAnchor`` when one isn't a certificate.
    public init(additionalTrustAnchors: [some Collection<UInt8>], trustAppleRootCA: Bool = true) throws {
        try self.init(
            verifier: OrderArchiveVerifier(
                additionalTrustAnchors: additionalTrustAnchors.map { [UInt8]($0) }, trustAppleRootCA: trustAppleRootCA))
    }
}

extension OrderArchiveVerifier {
    /// A verifier that trusts `additionalTrustAnchors` (PEM or DER, each in any collection of
    /// bytes) besides Apple's root, when `trustAppleRootCA`.
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidTrustAnchor`` when one isn't a certificate.
    public init(
        additionalTrustAnchors: [some Collection<UInt8>], trustAppleRootCA: Bool = true, limits: ArchiveLimits = .init()
    ) throws {
        try self.init(
            additionalTrustAnchors: additionalTrustAnchors.map { [UInt8]($0) }, trustAppleRootCA: trustAppleRootCA,
            limits: limits)
    }

    /// Verifies archive bytes held in any collection (`Data`, `ByteBufferView`, …).
    public func verify(archiveBytes bytes: some Collection<UInt8>, subject: String, now: Date = Date()) -> ValidationReport {
        verify(archiveBytes: [UInt8](bytes), subject: subject, now: now)
    }
}

extension SigningIdentity {
    /// Loads an identity from a `.p12` and an intermediate held in any collection of bytes.
    public init(
        pkcs12: some Collection<UInt8>, passphrase: String, intermediate: (some Collection<UInt8>)?, validAt date: Date = Date()
    ) throws {
        try self.init(pkcs12: [UInt8](pkcs12), passphrase: passphrase, intermediate: intermediate.map { [UInt8]($0) }, validAt: date)
    }

    /// A detached CMS signature of `manifest` (the bytes of `manifest.json`, in any collection).
    public func detachedSignature(of manifest: some Collection<UInt8>, signingTime: Date = Date()) throws -> [UInt8] {
        try detachedSignature(of: [UInt8](manifest), signingTime: signingTime)
    }

    /// Whether PEM bytes held in any collection are an encrypted private key.
    public static func isEncryptedPrivateKey(_ bytes: some Collection<UInt8>) -> Bool {
        isEncryptedPrivateKey([UInt8](bytes))
    }
}

extension OrderSource {
    /// A source from files held in memory in any collection of bytes (`["order.json": data, …]`).
    public init(files: [String: some Collection<UInt8>]) {
        self.init(files: files.mapValues { [UInt8]($0) })
    }
}

extension Manifest {
    /// Parses `manifest.json` held in any collection of bytes.
    public init(jsonBytes: some Collection<UInt8>) throws {
        try self.init(jsonBytes: [UInt8](jsonBytes))
    }
}

extension OrderBatchInput {
    /// An order of a batch from `order.json` bytes held in any collection.
    public init(origin: OrderBatchOrigin, orderJSON: some Collection<UInt8>) {
        self.init(origin: origin, orderJSON: [UInt8](orderJSON))
    }
}
