/// An error thrown by the WalletOrders library.
///
/// Inspect ``code`` to decide what to do: codes are stable across releases. ``message`` and
/// ``hint`` are for people and may be reworded. Two errors are equal when their codes are.
///
/// Problems *inside* an archive or order (a bad hash, a missing key) are not errors: they are
/// ``Diagnostic`` values in a ``ValidationReport``. This type is for when an operation cannot
/// be carried out at all.
public struct WalletOrdersError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Stable; safe to match on.
    public var code: Code
    /// What went wrong and where, in one sentence.
    public var message: String
    /// How to fix it, when we know.
    public var hint: String?
    /// The lower-level error (OpenSSL's error queue, libzip's error), for logs.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = BoundedText.excerpt(message, limit: BoundedText.errorLimit)
        self.hint = hint.map { BoundedText.excerpt($0, limit: BoundedText.errorLimit) }
        self.underlying = underlying
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The message, then the hint on its own line when there is one.
    public var description: String {
        var text = "\(message)"
        if let hint { text += "\nhint: \(hint)" }
        return text
    }

    /// The message plus the underlying error, for `--verbose` output and logs.
    public var detailedDescription: String {
        var text = "[\(code)] \(description)"
        if let underlying { text += "\ncaused by: \(underlying)" }
        return text
    }
}

extension WalletOrdersError {
    /// `error` itself when it is a ``WalletOrdersError``; otherwise one wrapping it with `code`.
    package static func wrapping(_ error: any Error, code: Code = .fileAccess) -> WalletOrdersError {
        if let error = error as? WalletOrdersError { return error }
        return WalletOrdersError(code, "\(error)", underlying: error)
    }
}

extension WalletOrdersError {
    /// A stable identifier for a kind of failure.
    ///
    /// A struct rather than an enum so that new codes can be added without breaking clients
    /// that switch over them (the swift-nio-ssl lesson).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable text form, such as `wrong-passphrase`.
        public let rawValue: String
        /// A code with the stable text `rawValue`: for the package's other targets, which declare
        /// the codes of what they own (the store's, in `WalletOrdersStore`).
        package init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A file could not be read or written.
        public static let fileAccess = Code("file-access")
        /// A file is larger than its kind allows (``FileKind``); it was refused before being read.
        public static let fileTooLarge = Code("file-too-large")
        /// The source folder can't be packaged (missing `order.json`, a symlink, a special file).
        public static let invalidSource = Code("invalid-source")
        /// The files add up to 5 MB or more.
        public static let bundleTooLarge = Code("bundle-too-large")
        /// `order.json` is not an order this library can read.
        public static let invalidOrder = Code("invalid-order")
        /// Validation found errors, so the order was not signed.
        public static let validationFailed = Code("validation-failed")
        /// A certificate could not be parsed.
        public static let invalidCertificate = Code("invalid-certificate")
        /// The signing certificate is not an Order Type ID certificate Wallet accepts (no subject
        /// UID, no Order Type ID extended key usage, a CA, no digitalSignature, an unusual key).
        public static let certificateProfile = Code("certificate-profile")
        /// The signing certificate was issued for another order type than the order's `orderTypeIdentifier`.
        public static let orderTypeMismatch = Code("order-type-mismatch")
        /// The signing certificate was issued for another pass type or team than the pass's
        /// `passTypeIdentifier` and `teamIdentifier`.
        public static let passTypeMismatch = Code("pass-type-mismatch")
        /// A private key could not be parsed.
        public static let invalidPrivateKey = Code("invalid-private-key")
        /// A `.p12` file could not be parsed.
        public static let invalidPKCS12 = Code("invalid-pkcs12")
        /// The key or `.p12` is encrypted and no passphrase was given.
        public static let passphraseRequired = Code("passphrase-required")
        /// The passphrase does not decrypt the key or `.p12`.
        public static let wrongPassphrase = Code("wrong-passphrase")
        /// The private key does not belong to the certificate.
        public static let keyCertificateMismatch = Code("key-certificate-mismatch")
        /// A certificate has expired (or is not valid yet) at the time it is needed.
        public static let certificateNotValid = Code("certificate-not-valid")
        /// The intermediate certificate did not issue the signing certificate.
        public static let intermediateMismatch = Code("intermediate-mismatch")
        /// No intermediate certificate was given or found.
        public static let intermediateMissing = Code("intermediate-missing")
        /// OpenSSL could not produce the signature.
        public static let signingFailed = Code("signing-failed")
        /// libzip could not write the archive.
        public static let archiveWriteFailed = Code("archive-write-failed")
        /// The data is not a zip archive that can be opened at all.
        public static let archiveUnreadable = Code("archive-unreadable")
        /// A file the operation needs is not in the archive.
        public static let archiveEntryMissing = Code("archive-entry-missing")
        /// A trust anchor could not be loaded.
        public static let invalidTrustAnchor = Code("invalid-trust-anchor")
        /// An order store refused an archive because it does not verify; the message lists the
        /// error findings and the store is unchanged.
        public static let archiveRejected = Code("archive-rejected")
        /// An order store refused an archive whose `updatedAt` is further ahead of the store's
        /// clock than its margin allows (``UpdatedAtLimit``): stored, it would win against every
        /// later version. The message names the rule `order.updated-at-in-future`, the value, the
        /// clock and the margin; the store is unchanged.
        public static let updatedAtInFuture = Code("updated-at-in-future")
        /// A setting of a command or service is unusable (a short API key, a bad address).
        public static let invalidConfiguration = Code("invalid-configuration")
        /// A history token or list cursor given as text is not one this tool made, or a cursor
        /// doesn't match the query it is used with.
        public static let malformedToken = Code("malformed-token")
    }
}
