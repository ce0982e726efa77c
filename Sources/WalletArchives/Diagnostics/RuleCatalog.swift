// swift-format-ignore-file
/// Every rule `wallet-orders` checks, in one place: `wallet-orders rules` prints it, the docs
/// table is made from it, and a test checks that every rule identifier used in the sources is here.
extension ValidationRule {
    /// All rules, grouped by area.
    public static let all: [ValidationRule] = archive + json + schema + content + pass

    /// Looks a rule up by identifier.
    public static func named(_ id: String) -> ValidationRule? { index[id] }
    private static let index: [String: ValidationRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })

    /// The rules of pass.json that verification checks.
    package static let pass: [ValidationRule] = [
        .passInvalid,
        .passMissingKey,
        .passJunkFile,
        .passIconMissing,
        .passStyleMissing,
        .passStyleMultiple,
        .fieldsDuplicateKey,
        .fieldsDuplicateKeyLogged,
        .fieldsChangeMessage,
        .fieldsChangeMessageLogged,
        .fieldsTooMany,
        .fieldsInvalid,
        .fieldsInvalidLogged,
        .passWebServiceNotHTTPS,
        .passBarcodeEncoding,
        .passBarcodeEncodingLogged,
        .passBarcodeEncodingUnknown,
        .passNFCMessageLength,
        .passNFCKey,
        .passReservedKey,
        .passReservedKeyUnread,
        .passTooManyEntries,
        .imagesUnusedForStyle,
        .imagesSize,
        .imagesMissingScale,
        .imagesNotPNG,
        .imagesStripExcludesOthers,
        .layoutPosterFallsBack,
        .layoutPosterWithoutArtwork,
        .layoutSemanticBoardingFallsBack,
        .layoutPosterGenericWithoutGeneric,
        .layoutBarcodeWithoutFallback,
        .passStringsSyntax,
        .passStringsEncoding,
        .passStringsKeysDiffer,
    ]

    package static let archive: [ValidationRule] = [
        .fileTooLarge,
        .fileUnreadable,
        .zipUnreadable,
        .zipDuplicateName,
        .zipInvalidNameEncoding,
        .zipAbsolutePath,
        .zipParentReference,
        .zipBackslashPath,
        .zipSymlinkEntry,
        .zipEncryptedEntry,
        .zipJunkFile,
        .zipCompressionRatio,
        .zipTooManyEntries,
        .zipTooLarge,
        .zipChecksumMismatch,
        .zipEntryUnreadable,
        .zipTrailingData,
        .zipTrailingPadding,
        .zipCentralDirectoryInvalid,
        .zipLayoutGap,
        .zipOverlappingEntries,
        .zipLocalHeaderMismatch,
        .zipParserDifferential,
        .zipCaseCollision,
        .zipNameContainsNUL,
        .zipUnsupportedCompression,
        .zip64,
        .archiveMissingFile,
        .bundleTooLarge,
        .bundleTooManyPasses,
        .bundlePassesTooLarge,
        .bundleUnexpectedFile,
        .bundleEmpty,
        .manifestInvalidJSON,
        .manifestListsExcludedFile,
        .manifestSHA1Hash,
        .manifestSHA256Hash,
        .manifestUppercaseHash,
        .manifestInvalidHash,
        .manifestHashMismatch,
        .manifestExtraEntry,
        .manifestMissingEntry,
        .signatureInvalidEncoding,
        .signatureNotDER,
        .signatureBEREncoding,
        .signatureNotSignedData,
        .signatureNotDetached,
        .signatureContentType,
        .signatureSignerCount,
        .signatureDigestAlgorithm,
        .signatureMissingSignedAttributes,
        .signatureMissingSigningTime,
        .signatureContentTypeAttribute,
        .signatureDigestMismatch,
        .signatureSignerCertificateMissing,
        .signatureInvalid,
        .signatureRootIncluded,
        .signatureIntermediateMissing,
        .signatureIntermediateNotIncluded,
        .signatureSignerUIDMismatch,
        .signatureSignerUIDMissing,
        .signatureSignerOrderTypeMismatch,
        .signatureSignerPassTypeMismatch,
        .signatureSignerTeamMismatch,
        .certificatePassTypeCertificate,
        .certificateOrderTypeCertificate,
        .certificateLeafPassTypeExtendedKeyUsage,
        .certificateLeafPassTypeMarker,
        .certificateNFCRequired,
        .certificateLeafExtendedKeyUsage,
        .certificateLeafOrderTypeMarker,
        .certificateIntermediateMarker,
        .certificateLeafIsCA,
        .certificateLeafKeyUsage,
        .certificateLeafKeyType,
        .certificateLeafIssuedByRoot,
        .certificateUntrusted,
        .certificateExpiredAtSigning,
        .certificateNotYetValidAtSigning,
        .certificateChainInvalid,
        .certificateExpiredNow,
        .certificateWWDRGeneration,
        .orderInvalid,
        .buildSkippedFile,
        .buildValidationFailed,
    ]

    package static let json: [ValidationRule] = [
        .jsonSyntax,
        .jsonTrailingComma,
        .jsonTooDeep,
        .jsonDuplicateKey,
        .jsonByteOrderMark,
        .jsonInvalidUTF8,
        .jsonNumberUnrepresentable,
        .jsonInvalidUnicodeEscape,
    ]

    package static let schema: [ValidationRule] = [
        .schemaRequired,
        .schemaType,
        .schemaEnum,
        .schemaConst,
        .schemaUnknownKey,
        .schemaFormat,
        .schemaPattern,
        .schemaLength,
        .schemaRange,
        .schemaDependentRequired,
        .schemaFulfillment,
        .schemaViolation,
    ]

    package static let content: [ValidationRule] = [
        .orderUpdatedBeforeCreated,
        .orderUpdatedAtInFuture,
        .orderNoWebService,
        .datesBeforeOrderCreated,
        .datesOutOfOrder,
        .datesStatusMismatch,
        .moneyUnknownCurrency,
        .moneyMinorUnits,
        .moneyAmountNumber,
        .moneyCurrencyMismatch,
        .addressUnknownCountry,
        .filesMissingReference,
        .filesWrongType,
        .filesImageSize,
        .filesImageTransparency,
        .filesVariantsInconsistent,
        .filesUnreferenced,
        .localizationInvalidFolderName,
        .localizationMissingStrings,
        .localizationTopLevelFileOverrides,
        .localizationKeyNearMiss,
        .localizationPassStrings,
        .localizationStringsSyntax,
        .localizationStringsEncoding,
        .localizationNonASCIIUTF8,
        .localizationKeysDiffer,
        .localizationUndefinedKey,
        .localizationDuplicateKey,
        .uniquenessFulfillmentIdentifier,
        .uniquenessReturnIdentifier,
        .compatibilityNewerField,
    ]

    // MARK: - archive

    /// A file is larger than any order could be; it was not read.
    public static let fileTooLarge = ValidationRule("file.too-large", .error, "A file is larger than any order could be; it was not read.", "Sizes are checked before reading: an archive over 8 MiB can't be one Wallet accepts (its files must add up to less than 5 MB), so it is refused without reading it, in constant memory.")
    /// A path given to validate or verify can't be read.
    public static let fileUnreadable = ValidationRule("file.unreadable", .error, "A path given to validate or verify can't be read.", "The file or folder does not exist, matches nothing, or can't be read; check the path and permissions.")
    /// The file is not a zip archive.
    public static let zipUnreadable = ValidationRule("zip.unreadable", .error, "The file is not a zip archive.", "An .order file is a zip archive. Data that libzip can't open as one (truncated downloads, HTML error pages, files altered in transit) can't be an order.")
    /// Two entries share a name.
    public static let zipDuplicateName = ValidationRule("zip.duplicate-name", .error, "Two entries share a name.", "Which of the two copies Wallet reads is undefined. Tools that append to an archive produce this; rebuild the archive.")
    /// An entry name is not UTF-8.
    public static let zipInvalidNameEncoding = ValidationRule("zip.invalid-name-encoding", .error, "An entry name is not UTF-8.", "Entry names are paths that order.json refers to; they must be UTF-8.")
    /// An entry name is an absolute path.
    public static let zipAbsolutePath = ValidationRule("zip.absolute-path", .error, "An entry name is an absolute path.", "A name starting with '/', '\\' or a drive letter would escape the archive when extracted; the entry is not read.")
    /// An entry name climbs out with '..'.
    public static let zipParentReference = ValidationRule("zip.parent-reference", .error, "An entry name climbs out with '..'.", "'..' in an entry name is a path-traversal attack (zip slip); the entry is not read.")
    /// An entry name uses '\' as a separator.
    public static let zipBackslashPath = ValidationRule("zip.backslash-path", .error, "An entry name uses '\\' as a separator.", "Zip paths use '/'. A backslash makes the path mean different things on different systems.")
    /// An entry is a symbolic link.
    public static let zipSymlinkEntry = ValidationRule("zip.symlink-entry", .error, "An entry is a symbolic link.", "Orders hold files, not links; a link could point anywhere on the machine that extracts it.")
    /// An entry is encrypted.
    public static let zipEncryptedEntry = ValidationRule("zip.encrypted-entry", .error, "An entry is encrypted.", "Wallet has no password to decrypt it; build the archive without encryption.")
    /// Metadata junk (.DS_Store, __MACOSX/, dotfiles) is in the archive.
    public static let zipJunkFile = ValidationRule("zip.junk-file", .error, "Metadata junk (.DS_Store, __MACOSX/, dotfiles) is in the archive.", "Apple: don't include metadata files such as .DS_Store in the manifest or the distributable package. `wallet-orders build` skips them.")
    /// An entry expands suspiciously far (zip bomb).
    public static let zipCompressionRatio = ValidationRule("zip.compression-ratio", .error, "An entry expands suspiciously far (zip bomb).", "An entry above 1 MiB that expands more than 100:1 is not read, so a hostile archive can't exhaust memory.")
    /// The archive has more than 1,000 entries.
    public static let zipTooManyEntries = ValidationRule("zip.too-many-entries", .error, "The archive has more than 1,000 entries.", "Real orders have a few dozen files; reading stops at the limit.")
    /// The entries expand past 64 MiB.
    public static let zipTooLarge = ValidationRule("zip.too-large", .error, "The entries expand past 64 MiB.", "Reading stops at the limit; orders must be far smaller (under 5 MB).")
    /// An entry fails its CRC-32 check.
    public static let zipChecksumMismatch = ValidationRule("zip.checksum-mismatch", .error, "An entry fails its CRC-32 check.", "The archive is damaged; rebuild it.")
    /// An entry can't be decompressed.
    public static let zipEntryUnreadable = ValidationRule("zip.entry-unreadable", .error, "An entry can't be decompressed.", "The archive is damaged or uses a compression method libzip can't read; use deflate or store.")
    /// Bytes follow the end-of-central-directory record.
    public static let zipTrailingData = ValidationRule("zip.trailing-data", .error, "Bytes follow the end-of-central-directory record.", "An archive ends at its end record (and its comment). Data after it, such as a second archive appended to a signed one, is read by some readers and skipped by others: Info-ZIP and Python read the appended archive, which the signature doesn't cover. Trailing bytes that are all zero are block padding instead (zip.trailing-padding, a warning); one non-zero byte among them makes them all this error.")
    /// Zero bytes (block padding) follow the end-of-central-directory record.
    public static let zipTrailingPadding = ValidationRule("zip.trailing-padding", .warning, "Zero bytes (block padding) follow the end-of-central-directory record.", "libarchive (bsdtar, macOS's tar) pads a zip it writes to standard output with NUL bytes to a whole 10,240-byte block. Zeros hold no record, so Info-ZIP, Python's zipfile and libzip all read the archive before them alike; the finding names the count. Have bsdtar write the file itself, or cut the zeros, for an archive that ends at its end record.")
    /// The end record or central directory can't be read as declared.
    public static let zipCentralDirectoryInvalid = ValidationRule("zip.central-directory-invalid", .error, "The end record or central directory can't be read as declared.", "The end record must point at a central directory of exactly the declared records, on one disk.")
    /// Bytes no entry accounts for.
    public static let zipLayoutGap = ValidationRule("zip.layout-gap", .error, "Bytes no entry accounts for.", "The entries must tile the archive from byte 0 to the central directory, which must end at the end record: unexplained bytes are where a second, hidden archive or entry can sit.")
    /// Two entries share bytes.
    public static let zipOverlappingEntries = ValidationRule("zip.overlapping-entries", .error, "Two entries share bytes.", "Overlapping entries (a zip bomb technique, or a disguised entry) are never written by a real zip tool; the overlapping entry is not read.")
    /// A local header disagrees with the central directory.
    public static let zipLocalHeaderMismatch = ValidationRule("zip.local-header-mismatch", .error, "A local header disagrees with the central directory.", "Readers that stream (local headers) and readers that seek (central directory) would see different names, sizes or data: the name ../../x in one and logo.png in the other. Name, method, flags, CRC-32 and sizes must agree; the entry is not read. Sizes written after the data (a data descriptor, flag bit 3) are read 8 bytes wide when the local header has a ZIP64 field (APPNOTE 4.3.9.1), whether or not the central directory has one, as Python's streaming ZIP64 writer produces.")
    /// libzip reads other entries than the central directory holds.
    public static let zipParserDifferential = ValidationRule("zip.parser-differential", .error, "libzip reads other entries than the central directory holds.", "The strict reading of the central directory and libzip's disagree, so some reader would see a different archive; rebuild it.")
    /// Two entry names differ only in case.
    public static let zipCaseCollision = ValidationRule("zip.case-collision", .error, "Two entry names differ only in case.", "logo.png and Logo.png are one file on a case-insensitive file system such as APFS: one replaces the other when extracted, and which one Wallet shows is undefined.")
    /// An entry name contains a NUL byte.
    public static let zipNameContainsNUL = ValidationRule("zip.name-contains-nul", .error, "An entry name contains a NUL byte.", "C-based readers cut the name at the NUL, others keep it whole, so the entry has two names.")
    /// An entry uses a compression method other than store or deflate.
    public static let zipUnsupportedCompression = ValidationRule("zip.unsupported-compression", .error, "An entry uses a compression method other than store or deflate.", "Wallet and every order tool write stored (0) or deflated (8) entries; bzip2, LZMA, Zstandard and others are not read.")
    /// The archive uses ZIP64 records or per-entry ZIP64 fields.
    public static let zip64 = ValidationRule("zip.zip64", .warning, "The archive uses ZIP64 records or per-entry ZIP64 fields.", "Orders never need ZIP64 (it exists for archives over 4 GB); some readers don't support it.")
    /// order.json, manifest.json or signature is not at the root.
    public static let archiveMissingFile = ValidationRule("archive.missing-file", .error, "order.json, manifest.json or signature is not at the root.", "All three must sit at the top level of the zip. A common cause is zipping the folder instead of its contents, which adds a wrapper folder.")
    /// The files add up to 5 MB or more.
    public static let bundleTooLarge = ValidationRule("bundle.too-large", .error, "The files add up to 5 MB or more.", "Apple: the total size of the bundle must be below 5 MB. Checked on archives and on source folders (measured without the manifest and signature building adds, a few kB). Shrink images (300×300 px is enough) and labels.")
    /// A .pkpasses bundle holds more than 10 passes.
    public static let bundleTooManyPasses = ValidationRule("bundle.too-many-passes", .error, "A .pkpasses bundle holds more than 10 passes.", "Apple (Distributing and updating a pass): a bundle carries up to 10 passes or 150 MB; Safari and Mail hand Wallet no more.")
    /// A .pkpasses bundle is larger than 150 MB.
    public static let bundlePassesTooLarge = ValidationRule("bundle.passes-too-large", .error, "A .pkpasses bundle is larger than 150 MB.", "Apple (Distributing and updating a pass): a bundle carries up to 10 passes or 150 MB.")
    /// A .pkpasses bundle holds a file that is not a pass.
    public static let bundleUnexpectedFile = ValidationRule("bundle.unexpected-file", .warning, "A .pkpasses bundle holds a file that is not a .pkpass at its root.", "A bundle's members are .pkpass files (Apple; member names are free). Anything else is ignored at best; remove it.")
    /// A .pkpasses bundle holds no pass.
    public static let bundleEmpty = ValidationRule("bundle.empty", .error, "A .pkpasses bundle holds no pass.", "A bundle with no .pkpass member adds nothing to Wallet.")
    /// manifest.json is not a JSON object of strings.
    public static let manifestInvalidJSON = ValidationRule("manifest.invalid-json", .error, "manifest.json is not a JSON object of strings.", "The manifest maps each path to its SHA-256 hex digest. A trailing comma (as in Apple's example) makes it invalid JSON.")
    /// The manifest hashes manifest.json or signature.
    public static let manifestListsExcludedFile = ValidationRule("manifest.lists-excluded-file", .error, "The manifest hashes manifest.json or signature.", "Those two files are never listed: the manifest can't contain its own hash, and the signature is made after it.")
    /// A manifest value has 40 hex digits (SHA-1).
    public static let manifestSHA1Hash = ValidationRule("manifest.sha1-hash", .error, "A manifest value has 40 hex digits (SHA-1).", "Orders use SHA-256. Apple's example manifest shows SHA-1-length values copied from the Wallet Passes article, and some libraries hash with SHA-1.")
    /// A manifest value uses uppercase hex.
    public static let manifestUppercaseHash = ValidationRule("manifest.uppercase-hash", .warning, "A manifest value uses uppercase hex.", "Every known implementation writes lowercase hex; Wallet's comparison may be case-sensitive.")
    /// A manifest value is not a SHA-256 hex digest.
    public static let manifestInvalidHash = ValidationRule("manifest.invalid-hash", .error, "A manifest value is not a SHA-256 hex digest.", "Each value must be 64 lowercase hexadecimal digits.")
    /// A file does not match its manifest hash.
    public static let manifestHashMismatch = ValidationRule("manifest.hash-mismatch", .error, "A file does not match its manifest hash.", "The file changed after the manifest was written. A common cause is re-serializing order.json after hashing it.")
    /// The manifest lists a file the archive lacks.
    public static let manifestExtraEntry = ValidationRule("manifest.extra-entry", .error, "The manifest lists a file the archive lacks.", "Every listed file must be in the archive.")
    /// A file is not listed in the manifest.
    public static let manifestMissingEntry = ValidationRule("manifest.missing-entry", .error, "A file is not listed in the manifest.", "Apple: the manifest contains all the source files, including those in subdirectories.")
    /// The signature is not DER-encoded CMS.
    public static let signatureInvalidEncoding = ValidationRule("signature.invalid-encoding", .error, "The signature is not DER-encoded CMS.", "Wallet expects a detached PKCS #7 / CMS signature in DER. PEM or S/MIME output (openssl smime without -outform DER) must be converted.")
    /// The signature has bytes after its structure, an unreadable length, or BER inside a certificate.
    public static let signatureNotDER = ValidationRule("signature.not-der", .error, "The signature has bytes after its structure, an unreadable length, or BER inside a certificate.", "Bytes appended after the CMS structure give readers room to disagree, and a certificate not in the DER its issuer signed can be changed without breaking that signature. The finding names the byte offset. BER in the CMS structure itself (BouncyCastle's default encoding, openssl cms -stream) is signature.ber-encoding, a warning.")
    /// The signature is BER, not DER.
    public static let signatureBEREncoding = ValidationRule("signature.ber-encoding", .warning, "The signature is BER, not DER.", "BouncyCastle's CMSSignedData.getEncoded() (what jpasskit ships) and openssl cms -stream write indefinite lengths. OpenSSL reads and verifies them, and Wallet has accepted BouncyCastle's BER pass signatures for years, but Apple documents only DER. The finding names the offset of the first BER-only form (an indefinite length, or a length longer than needed); the signature, its signed attributes and its chain are then checked as for DER. Write DER: getEncoded(\"DER\"), or openssl cms -sign without -stream.")
    /// The signature is not a SignedData.
    public static let signatureNotSignedData = ValidationRule("signature.not-signed-data", .error, "The signature is not a SignedData.", "The signature must be a CMS SignedData structure.")
    /// The signature embeds the manifest.
    public static let signatureNotDetached = ValidationRule("signature.not-detached", .error, "The signature embeds the manifest.", "Apple asks for a detached signature: manifest.json sits beside it, not inside.")
    /// The signed content type is not id-data.
    public static let signatureContentType = ValidationRule("signature.content-type", .error, "The signed content type is not id-data.", "The encapsulated content type must be id-data (1.2.840.113549.1.7.1).")
    /// The signature does not have exactly one signer.
    public static let signatureSignerCount = ValidationRule("signature.signer-count", .error, "The signature does not have exactly one signer.", "Sign once, with the Order Type ID certificate.")
    /// The signature does not use SHA-256.
    public static let signatureDigestAlgorithm = ValidationRule("signature.digest-algorithm", .error, "The signature does not use SHA-256.", "Orders are signed with SHA-256 (openssl -md sha256).")
    /// The signature has no signed attributes.
    public static let signatureMissingSignedAttributes = ValidationRule("signature.missing-signed-attributes", .error, "The signature has no signed attributes.", "Signing with -noattr leaves out the signing time, which Wallet requires (PassKit: 'Signature must contain a signing date').")
    /// The signature has no signingTime attribute.
    public static let signatureMissingSigningTime = ValidationRule("signature.missing-signing-time", .error, "The signature has no signingTime attribute.", "Wallet rejects signatures without a signing date.")
    /// The contentType signed attribute is missing or wrong.
    public static let signatureContentTypeAttribute = ValidationRule("signature.content-type-attribute", .error, "The contentType signed attribute is missing or wrong.", "RFC 5652 requires contentType = id-data among the signed attributes.")
    /// The signature covers other bytes than the stored manifest.json.
    public static let signatureDigestMismatch = ValidationRule("signature.digest-mismatch", .error, "The signature covers other bytes than the stored manifest.json.", "The manifest was changed, re-encoded, or given another line ending or BOM after signing. Sign the exact bytes you store.")
    /// The signing certificate is not in the signature.
    public static let signatureSignerCertificateMissing = ValidationRule("signature.signer-certificate-missing", .error, "The signing certificate is not in the signature.", "Include the Order Type ID certificate (don't sign with -nocerts).")
    /// The signature does not verify.
    public static let signatureInvalid = ValidationRule("signature.invalid", .error, "The signature does not verify.", "It was made with another key than the included certificate's, or altered.")
    /// The signature carries a root certificate.
    public static let signatureRootIncluded = ValidationRule("signature.root-included", .warning, "The signature carries a root certificate.", "Include the Order Type ID certificate and the WWDR intermediate only; the device has the root.")
    /// The intermediate that issued the signer is not in the signature.
    public static let signatureIntermediateMissing = ValidationRule("signature.intermediate-missing", .error, "The intermediate that issued the signer is not in the signature.", "Apple: the signing server needs the WWDR intermediate. Include it in the signature when signing (openssl cms -certfile does).")
    /// The signing certificate was issued for another order type.
    public static let signatureSignerUIDMismatch = ValidationRule("signature.signer-uid-mismatch", .error, "The signing certificate's subject UID names another order type.", "Apple: orderTypeIdentifier must correspond with your signing certificate. Order Type ID certificates name the type in the subject UID (and in their order-type marker); Wallet binds an order to the certificate of its type, so a certificate for one type can't sign (and replace) another merchant's orders.")
    /// The signing certificate has no subject UID.
    public static let signatureSignerUIDMissing = ValidationRule("signature.signer-uid-missing", .error, "The signing certificate has no subject UID.", "Apple's Order Type ID certificates name the order type identifier in the subject UID; without it no order type is bound to the signature.")
    /// The signing certificate's order-type marker names another order type.
    public static let signatureSignerOrderTypeMismatch = ValidationRule("signature.signer-order-type-mismatch", .error, "The signing certificate's order-type marker names another order type.", "Apple's Order Type ID certificates carry the order type identifier in extension 1.2.840.113635.100.14.2, and Wallet accepts an order only when that value equals its orderTypeIdentifier.")
    /// The signer is a Pass Type ID certificate.
    /// The hash for a file of a pass has 64 hex digits (SHA-256).
    public static let manifestSHA256Hash = ValidationRule("manifest.sha256-hash", .warning, "A pass manifest value has 64 hex digits (SHA-256).", "Passes hash with SHA-1 (Apple's Building a Pass; every builder, Apple's own pass-builder of 2026 included, writes SHA-1). No pass with a SHA-256 manifest is known to install, but no device test shows Wallet refusing one either: a warning, and the file is compared with its SHA-256.")
    /// A pass's signature lacks the WWDR intermediate, which Apple's bundled G4 supplies.
    public static let signatureIntermediateNotIncluded = ValidationRule("signature.intermediate-not-included", .warning, "A pass's signature lacks the WWDR intermediate that issued its signer.", "Apple lists signatures that omit the WWDR intermediate among common errors, and 2012-2022 reports (frozon/passbook#5, jpasskit#312, dotnet-passbook#152) say Wallet refused them; Apple-signed passes of 2023-2026 ship without it and are shown. The chain is checked with Apple's G4 intermediate, bundled here; include it when signing.")
    /// The pass-type marker names another pass type than passTypeIdentifier.
    public static let signatureSignerPassTypeMismatch = ValidationRule("signature.signer-pass-type-mismatch", .error, "The signing certificate's pass-type marker names another pass type.", "Wallet's pass policy (SecPolicyCreatePassbookCardSigner) requires extension 1.2.840.113635.100.6.1.16 of the signer to name pass.json's passTypeIdentifier. The device compares the marker, not the subject UID: a genuine certificate whose marker names another type is refused even when its UID matches. Device: 'The passTypeIdentifier or teamIdentifier provided may not match your certificate, or the certificate trust chain could not be verified.'")
    /// The signer's subject OU is another team than teamIdentifier.
    public static let signatureSignerTeamMismatch = ValidationRule("signature.signer-team-mismatch", .error, "The signing certificate's subject OU names another team.", "Wallet's pass policy requires the signer's subject OU (the Team ID) to equal pass.json's teamIdentifier. Device: 'The passTypeIdentifier or teamIdentifier provided may not match your certificate, or the certificate trust chain could not be verified.'")
    public static let certificatePassTypeCertificate = ValidationRule("certificate.pass-type-certificate", .error, "The signer is a Pass Type ID certificate.", "Pass Type ID certificates (extended key usage 1.2.840.113635.100.4.14, marker 1.2.840.113635.100.6.1.16) sign Wallet passes; orders need an Order Type ID certificate.")
    /// The signer of a pass is an Order Type ID certificate.
    public static let certificateOrderTypeCertificate = ValidationRule("certificate.order-type-certificate", .error, "The signer of a pass is an Order Type ID certificate.", "Order Type ID certificates (extended key usage 1.2.840.113635.100.4.19, marker 1.2.840.113635.100.14.2) sign Wallet orders; Wallet's pass policy requires a Pass Type ID certificate (1.2.840.113635.100.4.14).")
    /// The signer of a pass lacks the Pass Type ID extended key usage.
    public static let certificateLeafPassTypeExtendedKeyUsage = ValidationRule("certificate.leaf-pass-type-extended-key-usage", .error, "The signer of a pass lacks the Pass Type ID extended key usage.", "Wallet's pass policy requires Apple's Passbook signing purpose 1.2.840.113635.100.4.14 on the signer, which Apple's Pass Type ID certificates carry beside clientAuth.")
    /// The signer of a pass lacks the pass-type marker.
    public static let certificateLeafPassTypeMarker = ValidationRule("certificate.leaf-pass-type-marker", .error, "The signer of a pass lacks Apple's pass-type marker.", "Apple's Pass Type ID certificates carry extension 1.2.840.113635.100.6.1.16, a UTF8String naming the pass type; Wallet's pass policy requires it to name pass.json's passTypeIdentifier.")
    /// A pass with nfc or personalization.json is signed without the NFC certificate.
    public static let certificateNFCRequired = ValidationRule("certificate.nfc-certificate-required", .error, "A pass with nfc or personalization.json is not signed with an NFC-enabled certificate.", "Apple grants NFC passes on request and issues an NFC-enabled Pass Type ID certificate (marker 1.2.840.113635.100.6.1.26). Device: 'Passes with an NFC dictionary or a Personalization JSON file must be signed with an enhanced Passbook certificate.' (jpasskit#96, php-pkpass#79).")
    /// The signer lacks the Order Type ID extended key usage.
    public static let certificateLeafExtendedKeyUsage = ValidationRule("certificate.leaf-extended-key-usage", .error, "The signer lacks the Order Type ID extended key usage.", "Wallet's policy for orders requires Apple's Order Type ID purpose 1.2.840.113635.100.4.19, which Apple's Order Type ID certificates carry beside clientAuth; TLS, code-signing and Apple Pay certificates don't.")
    /// The signer lacks Apple's order-type marker.
    public static let certificateLeafOrderTypeMarker = ValidationRule("certificate.leaf-order-type-marker", .error, "The signer lacks Apple's order-type marker.", "Apple's Order Type ID certificates carry extension 1.2.840.113635.100.14.2, a UTF8String naming the order type; Wallet's policy for orders requires it.")
    /// The intermediate that issued the signer lacks Apple's WWDR marker.
    public static let certificateIntermediateMarker = ValidationRule("certificate.intermediate-marker", .error, "The intermediate that issued the signer lacks Apple's WWDR marker.", "Wallet's policy for orders requires the issuing intermediate to carry extension 1.2.840.113635.100.6.2.1, as Apple's WWDR intermediates (G4) do.")
    /// The signer is a CA certificate.
    public static let certificateLeafIsCA = ValidationRule("certificate.leaf-is-ca", .error, "The signer is a CA certificate.", "Orders are signed by an end-entity certificate; basicConstraints cA: TRUE is never on an Order Type ID certificate.")
    /// The signer's key usage excludes digitalSignature.
    public static let certificateLeafKeyUsage = ValidationRule("certificate.leaf-key-usage", .error, "The signer's key usage excludes digitalSignature.", "When the key usage extension is present it must allow digitalSignature, which a CMS signature is.")
    /// The signer's key is not one Apple issues.
    public static let certificateLeafKeyType = ValidationRule("certificate.leaf-key-type", .error, "The signer's key is not one Apple issues.", "Apple issues Order Type ID certificates with RSA keys of 2,048 bits or more (or EC on P-256, P-384, P-521); anything else is not an Apple certificate.")
    /// The signer is issued directly by the root.
    public static let certificateLeafIssuedByRoot = ValidationRule("certificate.leaf-issued-by-root", .error, "The signer is issued directly by the root.", "Apple issues Order Type ID certificates through a WWDR intermediate; a leaf signed by the root itself is not one of them.")
    /// The chain doesn't lead to a trusted root.
    public static let certificateUntrusted = ValidationRule("certificate.untrusted", .error, "The chain doesn't lead to a trusted root.", "Genuine orders chain to Apple Root CA through a WWDR intermediate. Development certificates chain to their own test root, which must be trusted explicitly.")
    /// A certificate had expired when the archive was signed.
    public static let certificateExpiredAtSigning = ValidationRule("certificate.expired-at-signing", .error, "A certificate had expired when the archive was signed.", "Certificates must be valid at the signing time.")
    /// A certificate was not yet valid when the archive was signed.
    public static let certificateNotYetValidAtSigning = ValidationRule("certificate.not-yet-valid-at-signing", .error, "A certificate was not yet valid when the archive was signed.", "Certificates must be valid at the signing time; check the signing machine's clock.")
    /// The certificate chain is invalid.
    public static let certificateChainInvalid = ValidationRule("certificate.chain-invalid", .error, "The certificate chain is invalid.", "Any other chain failure (bad signature on a certificate, wrong basic constraints), with OpenSSL's reason.")
    /// A certificate has expired since signing.
    public static let certificateExpiredNow = ValidationRule("certificate.expired-now", .warning, "A certificate has expired since signing.", "The archive was valid when signed, but new orders need a renewed certificate (WWDR G4 expires 2030-12-10).")
    /// Which WWDR generation issued the signer.
    public static let certificateWWDRGeneration = ValidationRule("certificate.wwdr-generation", .info, "Which WWDR generation issued the signer.", "Names the intermediate generation (G4, …) so a G1/G4 mix-up is easy to spot.")
    /// order.json does not decode as an order.
    /// pass.json is not a JSON object.
    public static let passInvalid = ValidationRule("pass.invalid", .error, "pass.json is not a JSON object Wallet can read.", "Wallet parses pass.json before anything else; invalid JSON (a trailing comma aside, which Apple's reader takes) fails the pass with 'The pass cannot be read because it isn't valid.'")
    /// pass.json lacks a key Wallet requires.
    public static let passMissingKey = ValidationRule("pass.missing-key", .error, "pass.json lacks a key Wallet requires.", "The device requires formatVersion, passTypeIdentifier, serialNumber, description, organizationName and teamIdentifier at the top level, and transitType in a boardingPass, and refuses a pass without one: 'Pass dictionary must contain key '%@'.'")
    /// A pass holds .DS_Store, __MACOSX/ or another hidden file.
    public static let passJunkFile = ValidationRule("pass.junk-file", .warning, "A pass holds .DS_Store, __MACOSX/ or another hidden file.", "Apple: such files belong neither in the manifest nor in the pass. Wallet refuses a pass holding a file its manifest doesn't list ('No entry in manifest for file …', manifest.missing-entry); one the manifest lists installs (an Apple-signed pass Wallet shows carries a listed .DS_Store), so this alone is a warning.")
    /// A pass has no icon.
    public static let passIconMissing = ValidationRule("pass.icon-missing", .error, "A pass has no icon.png, icon@2x.png or icon@3x.png.", "The device refuses a pass without an icon at some resolution: 'Pass does not contain icon.png/icon@2x.png/icon@3x.png' (the device's validation, passes specification §1.2). Notifications and the lock screen show it.")
    /// pass.json has no style key.
    public static let passStyleMissing = ValidationRule("pass.style-missing", .error, "pass.json has no style key.", "Every pass is one of boardingPass, coupon, eventTicket, generic or storeCard (posterGeneric on iOS 27), and the device refuses one with none: 'Pass dictionary must have an entry for one of {…}'.")
    /// pass.json has more than one style key.
    public static let passStyleMultiple = ValidationRule("pass.style-multiple", .warning, "pass.json has more than one style key.", "Apple: a pass has exactly one style. Which one Wallet shows when there are more is not documented; posterGeneric with generic, its fallback on older iOS, is the one allowed pair.")
    /// Two fields share a key where the device refuses it.
    public static let fieldsDuplicateKey = ValidationRule("fields.duplicate-key", .error, "Two fields of a pass share a key, the second in its header, primary or auxiliary fields.", "Field keys must be unique across the pass ('more than one field has the key '%@'. Field keys must be unique.'); the device fails the pass for it in headerFields, primaryFields and auxiliaryFields (passes specification §3.3, from the device's validation).")
    /// Two fields share a key where the device only logs it.
    public static let fieldsDuplicateKeyLogged = ValidationRule("fields.duplicate-key-logged", .warning, "Two fields of a pass share a key, the second in its secondary, back or additional info fields.", "The device logs 'more than one field has the key '%@'' there without failing the pass; which of the two a change notification or an update names is undefined.")
    /// A change message without exactly one %@, where the device refuses it.
    public static let fieldsChangeMessage = ValidationRule("fields.change-message", .error, "A changeMessage in the header, primary or auxiliary fields doesn't have exactly one %@.", "The device checks a change message: one %@ for the new value and no other format code ('Change message %@ needs to contain %%@.', '…has more than one %%@', '…has a format code other than %%@'); in those fields the warning fails the pass.")
    /// A change message without exactly one %@, where the device only logs it.
    public static let fieldsChangeMessageLogged = ValidationRule("fields.change-message-logged", .warning, "A changeMessage in the secondary, back or additional info fields doesn't have exactly one %@.", "The device logs the problem there without failing the pass, and the change notification shows wrong text or none.")
    /// More fields than the style shows.
    public static let fieldsTooMany = ValidationRule("fields.too-many", .warning, "A pass has more fields on its front than its style shows.", "The HIG's limits: up to 3 header fields, 1 primary (2 on a boarding pass), 4 secondary and 4 auxiliary (5 on a boarding pass; 4 secondary and auxiliary together on a coupon or store card; two rows of auxiliary fields on an event ticket). What doesn't fit is not shown, so the information belongs on the back.")
    /// A field the device warns about, where the warning fails the pass.
    public static let fieldsInvalid = ValidationRule("fields.invalid", .error, "A header, primary or auxiliary field has a value that doesn't suit its formatting options, both a numberStyle and a currencyCode, date and number options, or a row other than 0 or 1.", "The device warns about such a field ('There are date formatting options, so this should be a string parseable as a date.', '…has both a numberStyle and a currencyCode…'), and in headerFields, primaryFields and auxiliaryFields the warning fails the pass (passes specification §3.3–§3.4, from the device's validation).")
    /// A field the device warns about, where it only logs the warning.
    public static let fieldsInvalidLogged = ValidationRule("fields.invalid-logged", .warning, "A secondary, back or additional info field has a value that doesn't suit its formatting options, or conflicting options.", "The device logs the warning there without failing the pass, and shows the value unformatted.")
    /// A barcode message its encoding can't hold, in the legacy barcode key.
    public static let passBarcodeEncoding = ValidationRule("pass.barcode-encoding", .error, "The legacy barcode's message has characters its messageEncoding can't encode.", "The device refuses the pass: 'barcode message '%@' isn't encodable with encoding '%@'.' (passes specification §3.5, from the device's validation; an invalid legacy barcode is fatal).")
    /// A barcode message its encoding can't hold, in the barcodes array.
    public static let passBarcodeEncodingLogged = ValidationRule("pass.barcode-encoding-logged", .warning, "A barcode of the barcodes array has characters its messageEncoding can't encode.", "The device logs 'The barcodes array did not validate correctly' without refusing the pass, and the barcode doesn't show (passes specification §3.5). ASCII, Latin-1, Windows-1252 and the Unicode encodings are checked.")
    /// A messageEncoding that is no character set name this tool knows.
    public static let passBarcodeEncodingUnknown = ValidationRule("pass.barcode-encoding-unknown", .warning, "A barcode's messageEncoding is not a character set name this tool knows.", "The device refuses a name that is not IANA's ('message encoding %@ is not an IANA character set name.'); the tool knows IANA's common names and aliases, not the whole registry, so a name it doesn't know is a warning.")
    /// An NFC payload over 64 bytes.
    public static let passNFCMessageLength = ValidationRule("pass.nfc-message-length", .warning, "nfc.message is longer than 64 bytes.", "Apple documents a payload of 64 bytes at most (Pass.NFC); a longer one is cut (passes specification §3.7).")
    /// An NFC encryption key that is no P-256 SubjectPublicKeyInfo.
    public static let passNFCKey = ValidationRule("pass.nfc-key", .error, "nfc.encryptionPublicKey is not a Base64 P-256 SubjectPublicKeyInfo.", "The device validates the key: 'nfc encryptionPublicKey '%@' isn't a valid EC compact public key. Valid curves are secp256r1.' (passes specification §3.7, from the device's validation). The key is read with OpenSSL.")
    /// A key Apple reserves that the device refuses on other passes.
    public static let passReservedKey = ValidationRule("pass.reserved-key", .error, "pass.json has a key Apple reserves for its own passes (sharing, healthPass, paymentCard, accessCard).", "The device refuses it unless the pass type is Apple's ('Pass is not permitted to contain the sharing key.', 'Invalid passTypeIdentifier for pass style 'paymentCard''; passes specification §3.1, from the device's validation).")
    /// A key the device reads on Apple's own passes only.
    public static let passReservedKeyUnread = ValidationRule("pass.reserved-key-unread", .warning, "pass.json has a key the device reads on Apple's own passes only.", "transactionServiceURL, paymentApplications, cardType and the like are known to the device but reserved for Apple's passes (passes specification §3.1); on another pass they do nothing.")
    /// More locations, beacons or featured actions than Apple documents.
    public static let passTooManyEntries = ValidationRule("pass.too-many-entries", .warning, "A pass has more than 10 locations, 10 beacons or 2 featured actions.", "Apple documents those limits (Pass; Showing a Pass on the Lock Screen; WWDC26 session 209); which entries Wallet uses beyond them is not documented.")
    /// A pass's webServiceURL is not https.
    public static let passWebServiceNotHTTPS = ValidationRule("pass.web-service-not-https", .error, "A pass's webServiceURL is not https.", "A production device refuses the pass: 'scheme of webServiceURL '%@' needs to be an https rather than %@.' (the device's validation); http works only on a device set to allow HTTP services for development.")
    /// A pass image its style doesn't show.
    public static let imagesUnusedForStyle = ValidationRule("images.unused-for-style", .warning, "A pass holds an image its style doesn't show.", "Apple's styles show their own images (the HIG): a boarding pass logo, icon and footer; a coupon and a store card a strip; an event ticket a strip, or a background and thumbnail; a generic pass a thumbnail. Another is carried for nothing.")
    /// A pass image is not the size Apple documents.
    public static let imagesSize = ValidationRule("images.size", .warning, "A pass image is not the size Apple documents for it.", "Sizes are in points, ×2 and ×3 in pixels at @2x and @3x (Apple's Pass Design and Creation): icon 29×29, logo at most 160×50, strip 375×98 on an event ticket and 375×144 on a coupon or store card, thumbnail at most 90×90, footer 286×15. Wallet scales and crops another size, so this is a warning.")
    /// A pass image lacks one of its scales.
    public static let imagesMissingScale = ValidationRule("images.missing-scale", .info, "A pass image lacks its @1x, @2x or @3x file.", "Apple asks for each image at every scale; a device of a missing scale stretches another.")
    /// A pass image is not PNG.
    public static let imagesNotPNG = ValidationRule("images.not-png", .warning, "A pass image is not a PNG.", "Wallet shows PNG images; a JPEG named .png is silently not shown (php-passbook#48).")
    /// An event ticket has a strip and a background or thumbnail.
    public static let imagesStripExcludesOthers = ValidationRule("images.strip-excludes-others", .warning, "An event ticket has a strip image and a background or thumbnail.", "The HIG: an event ticket shows a strip, or a background and a thumbnail; with a strip the others are not shown.")
    /// A poster event ticket lacks the semantics its layout needs.
    public static let layoutPosterFallsBack = ValidationRule("layout.poster-falls-back", .warning, "A pass asks for the poster event ticket layout but lacks the semantics it needs.", "Apple (Creating a poster event pass using semantic tags): eventName, venueName, venueRegionName and venueRoom, plus the team abbreviations for sports and performerNames for live performances. Without them iOS 18 and later show the classic event ticket, silently; iOS 17 always does.")
    /// A poster event ticket has no artwork.
    public static let layoutPosterWithoutArtwork = ValidationRule("layout.poster-without-artwork", .warning, "A poster event ticket has no background or artwork image.", "The poster layout is drawn around its artwork (background.png, or artwork.png in Apple's pass-builder); without one it shows without its artwork.")
    /// A semantic boarding pass lacks what its layout needs.
    public static let layoutSemanticBoardingFallsBack = ValidationRule("layout.semantic-boarding-falls-back", .warning, "A pass asks for the semantic boarding pass layout but lacks what it needs.", "Apple (Creating an airline boarding pass using semantic tags): transitType PKTransitTypeAir and the flight's semantic tags. Without them iOS 26 and later show the classic boarding pass.")
    /// posterGeneric has no generic fallback.
    public static let layoutPosterGenericWithoutGeneric = ValidationRule("layout.poster-generic-without-generic", .error, "A posterGeneric pass has no generic fallback.", "posterGeneric is new in iOS 27; a pass with it alone can't be added on iOS 26 and earlier (WWDC26-209), and a pass syncs to every device of the account. The generic dictionary is what older systems show.")
    /// Every barcode is in a format older systems can't draw.
    public static let layoutBarcodeWithoutFallback = ValidationRule("layout.barcode-without-fallback", .warning, "Every barcode of a pass is in a format new in iOS 27.", "Code 39, Codabar, EAN-13 and Interleaved 2 of 5 arrive in iOS 27 (WWDC26-209); Wallet shows the first barcode of barcodes it can draw, so with no QR, PDF417, Aztec or Code 128 after them iOS 26 and earlier show none.")
    /// A pass.strings file can't be parsed.
    public static let passStringsSyntax = ValidationRule("pass.strings-syntax", .warning, "A pass.strings file can't be parsed.", "Lines are \"key\" = \"value\"; with /* */ comments (Apple: Creating the Source for a Pass). Where the file can't be read Wallet shows the keys of pass.json untranslated.")
    /// A pass.strings file is neither UTF-8 nor UTF-16 with a byte-order mark.
    public static let passStringsEncoding = ValidationRule("pass.strings-encoding", .warning, "A pass.strings file is neither UTF-8 nor UTF-16 with a byte-order mark.", "Apple asks for UTF-16 when a file has non-ASCII text; UTF-8 files install too (php-pkpass and passkit-generator write them), so both are read and anything else is reported.")
    /// The pass.strings files don't have the same keys.
    public static let passStringsKeysDiffer = ValidationRule("pass.strings-keys-differ", .warning, "The pass.strings files of a pass don't have the same keys.", "Apple's Building a Pass (Common Problems): the key sets of all pass.strings files match. A language without a key shows the key itself.")
    public static let orderInvalid = ValidationRule("order.invalid", .error, "order.json does not decode as an order.", "The typed model could not read order.json; the schema findings say why.")
    /// A junk file was left out of the archive.
    public static let buildSkippedFile = ValidationRule("build.skipped-file", .info, "A junk file was left out of the archive.", "`wallet-orders build` skips .DS_Store, __MACOSX/, dotfiles and stale manifests or signatures.")
    /// The order has errors, so it was not signed.
    public static let buildValidationFailed = ValidationRule("build.validation-failed", .error, "The order has errors, so it was not signed.", "Building validates before signing; fix the errors, or turn validation off to sign anyway.")

    // MARK: - json

    /// order.json is not valid JSON.
    public static let jsonSyntax = ValidationRule("json.syntax", .error, "order.json is not valid JSON.", "RFC 8259: no comments, double-quoted keys and strings, no NaN (a trailing comma is json.trailing-comma, a warning). The finding points at the first error.")
    /// The JSON nests deeper than 512 levels.
    public static let jsonTooDeep = ValidationRule("json.too-deep", .error, "The JSON nests deeper than 512 levels.", "No order needs that; parsing stops to stay safe.")
    /// An object has the same key twice.
    public static let jsonDuplicateKey = ValidationRule("json.duplicate-key", .error, "An object has the same key twice.", "Which value Wallet uses is undefined; keep one.")
    /// order.json starts with a byte-order mark.
    /// A comma before a closing ] or }.
    public static let jsonTrailingComma = ValidationRule("json.trailing-comma", .warning, "A comma before a closing ] or }.", "Strict JSON (RFC 8259) has none there, and strict tools (python3 -m json.tool, jq) refuse the file. Evidence that it is no error: four Apple-signed passes (Apple's own boarding-pass sample among them) carry one in pass.json and Wallet shows them, so Apple's JSON reader on the device takes it; nothing shows the order reader differs. A warning: the value is read as if the comma weren't there.")
    public static let jsonByteOrderMark = ValidationRule("json.byte-order-mark", .warning, "order.json starts with a byte-order mark.", "JSON text must not begin with a BOM (RFC 8259 §8.1); some parsers reject it.")
    /// A string holds bytes that aren't UTF-8.
    public static let jsonInvalidUTF8 = ValidationRule("json.invalid-utf8", .error, "A string holds bytes that aren't UTF-8.", "order.json must be UTF-8 (RFC 8259 §8.1).")
    /// A number doesn't fit the type Wallet decodes it into.
    public static let jsonNumberUnrepresentable = ValidationRule("json.number-unrepresentable", .error, "A number doesn't fit the type Wallet decodes it into.", "JSON numbers have no size limit, Wallet's decoder does: every number must be a finite 64-bit float, an integer must fit 64 bits, and an amount must fit Foundation's Decimal (38 significant digits).")
    /// A \u escape is a lone surrogate.
    public static let jsonInvalidUnicodeEscape = ValidationRule("json.invalid-unicode-escape", .error, "A \\u escape is a lone surrogate.", "\\uD800–\\uDFFF escapes must come in valid pairs.")

    // MARK: - schema

    /// A required key is missing.
    public static let schemaRequired = ValidationRule("schema.required", .error, "A required key is missing.", "Apple: if order.json lacks a required key in any object, the Add Order dialog doesn't appear.")
    /// A value has the wrong JSON type.
    public static let schemaType = ValidationRule("schema.type", .error, "A value has the wrong JSON type.", "For example quantity must be a number, not a string.")
    /// A value is not one of the allowed values.
    public static let schemaEnum = ValidationRule("schema.enum", .error, "A value is not one of the allowed values.", "Statuses, formats and types are finite, case-sensitive camelCase sets (OnTheWay is not onTheWay; readyForPickup is not a shipping status).")
    /// A value must be exactly one thing.
    public static let schemaConst = ValidationRule("schema.const", .error, "A value must be exactly one thing.", "schemaVersion is 1; orderType is ecommerce; fulfillmentType matches the fulfillment kind.")
    /// A key the schema doesn't define.
    public static let schemaUnknownKey = ValidationRule("schema.unknown-key", .warning, "A key the schema doesn't define.", "Wallet ignores unknown keys, so a misspelt key (merchantIdentifer) silently loses its value. The finding suggests the nearest known key and names the keys allowed there.")
    /// A value is not in the required format.
    public static let schemaFormat = ValidationRule("schema.format", .error, "A value is not in the required format.", "Dates must be RFC 3339 with an offset (2024-01-01T00:00:00Z), durations ISO 8601 (PT30M), URLs absolute.")
    /// A value does not match the required pattern.
    public static let schemaPattern = ValidationRule("schema.pattern", .error, "A value does not match the required pattern.", "For example amounts are plain decimals ('12.50', not '12,50'), currency codes three capital letters, URLs https.")
    /// A string or array is too short or too long.
    public static let schemaLength = ValidationRule("schema.length", .error, "A string or array is too short or too long.", "For example authenticationToken needs at least 16 characters; currency codes are exactly 3.")
    /// A number is out of range.
    public static let schemaRange = ValidationRule("schema.range", .error, "A number is out of range.", "Latitude is −90…90, longitude −180…180, quantities above 0.")
    /// A key requires another key.
    public static let schemaDependentRequired = ValidationRule("schema.dependent-required", .error, "A key requires another key.", "webServiceURL requires authenticationToken. Reported at the key that requires the other, with a hint naming the missing one.")
    /// A fulfillment doesn't match its fulfillmentType.
    public static let schemaFulfillment = ValidationRule("schema.fulfillment", .error, "A fulfillment doesn't match its fulfillmentType.", "Each fulfillment is a shipping or a pickup fulfillment, discriminated by fulfillmentType.")
    /// Another schema constraint failed.
    public static let schemaViolation = ValidationRule("schema.violation", .error, "Another schema constraint failed.", "The message names the JSON Schema keyword.")

    // MARK: - content

    /// updatedAt is earlier than createdAt.
    public static let orderUpdatedBeforeCreated = ValidationRule("order.updated-before-created", .error, "updatedAt is earlier than createdAt.", "updatedAt is ≥ createdAt (equal on the first version) and must increase with every version; otherwise an update loses to the stored copy.")
    /// updatedAt is further in the future than a store accepts.
    public static let orderUpdatedAtInFuture = ValidationRule("order.updated-at-in-future", .warning, "updatedAt is further in the future than a store accepts.", "Versions of an order are ordered by updatedAt alone, so one dated far ahead (9999-12-31) would win against every later version, which would all be newerExisting. Order stores refuse an updatedAt more than their margin (a day by default) ahead of their clock; validation can't know a store's clock, so it compares with the current time and warns.")
    /// An event is dated before the order was created.
    public static let datesBeforeOrderCreated = ValidationRule("dates.before-order-created", .warning, "An event is dated before the order was created.", "Shipping, delivery, pickup and transaction dates normally come after createdAt.")
    /// Event dates contradict each other.
    public static let datesOutOfOrder = ValidationRule("dates.out-of-order", .warning, "Event dates contradict each other.", "For example deliveredAt before shippedAt, or returnedAt before initiatedAt. A warning, like the other date checks: Apple documents no rule on the order of these dates, but such dates are most likely wrong (often an offset).")
    /// A status and its date disagree.
    public static let datesStatusMismatch = ValidationRule("dates.status-mismatch", .warning, "A status and its date disagree.", "A delivered shipment should say deliveredAt, a picked-up order pickedUpAt; a date for an event that the status says hasn't happened is suspicious.")
    /// A currency code is not in ISO 4217.
    public static let moneyUnknownCurrency = ValidationRule("money.unknown-currency", .error, "A currency code is not in ISO 4217.", "Three capital letters are not enough: 'USB' is not a currency. Checked against ISO 4217: Debian's iso-codes, plus the codes added since the version the table was made from (XCG, ZWG).")
    /// An amount has more decimals than its currency has.
    public static let moneyMinorUnits = ValidationRule("money.minor-units", .warning, "An amount has more decimals than its currency has.", "JPY has no minor unit, KWD three, most currencies two (ICU data). Wallet shows amounts as given.")
    /// An amount is a JSON number.
    public static let moneyAmountNumber = ValidationRule("money.amount-number", .warning, "An amount is a JSON number.", "Apple's schema types amount as a string; Apple's own sample uses numbers. Strings keep exact decimals. The hint writes the number as the plain decimal string to use (1.9293e2 as \"192.93\").")
    /// Amounts in one payment use different currencies.
    public static let moneyCurrencyMismatch = ValidationRule("money.currency-mismatch", .warning, "Amounts in one payment use different currencies.", "Summary items and transactions should use the total's currency: Wallet converts nothing (\"Monetary values display in the provided currency\"), so mixed currencies read as wrong sums. A warning, not an error: no Apple text says Wallet refuses such an order, and a refund or a gift card in another currency can be meant.")
    /// A country code is not in ISO 3166-1.
    public static let addressUnknownCountry = ValidationRule("address.unknown-country", .error, "A country code is not in ISO 3166-1.", "Checked against the ISO 3166-1 alpha-2 list (Debian iso-codes).")
    /// A file order.json names is not in the order.
    public static let filesMissingReference = ValidationRule("files.missing-reference", .error, "A file order.json names is not in the order.", "Each referenced image, receipt or label must exist at the top level or in every .lproj folder.")
    /// A file's content is not what it must be.
    public static let filesWrongType = ValidationRule("files.wrong-type", .error, "A file's content is not what it must be.", "Images must really be PNG or JPEG; receipts and return labels PDF, PNG or JPEG, whatever the extension says.")
    /// An image is not the recommended size.
    public static let filesImageSize = ValidationRule("files.image-size", .warning, "An image is not the recommended size.", "HIG: logos and product images are 300×300 px (@2x 600×600, @3x 900×900).")
    /// An image has an alpha channel.
    public static let filesImageTransparency = ValidationRule("files.image-transparency", .warning, "An image has an alpha channel.", "HIG: logos and product images have a nontransparent background.")
    /// Localizations have different resolutions of an image.
    public static let filesVariantsInconsistent = ValidationRule("files.variants-inconsistent", .warning, "Localizations have different resolutions of an image.", "Apple: provide the same number of resolutions (@2x/@3x) for each localization.")
    /// A file nothing references.
    public static let filesUnreferenced = ValidationRule("files.unreferenced", .info, "A file nothing references.", "It makes the order bigger for nothing.")
    /// A .lproj folder name is not a language identifier.
    public static let localizationInvalidFolderName = ValidationRule("localization.invalid-folder-name", .error, "A .lproj folder name is not a language identifier.", "Use BCP 47-style identifiers with hyphens: en.lproj, fr-CA.lproj, zh-Hans.lproj — not en_US.lproj.")
    /// A .lproj folder has no order.strings.
    public static let localizationMissingStrings = ValidationRule("localization.missing-strings", .warning, "A .lproj folder has no order.strings.", "Evidence: a line of Apple's troubleshooting list (each localization folder contains the order.strings file), not a refusal Wallet is known to make; peers' test sources ship .lproj folders that only localize images. A warning: order.json's localized keys have no translation in that language.")
    /// A top-level file has the name of localized ones.
    public static let localizationTopLevelFileOverrides = ValidationRule("localization.top-level-file-overrides", .warning, "A top-level file has the name of localized ones.", "Apple: adding an image of the same name to the top-level folder of the order file overrides any localized versions. Every language then shows the top-level image, which is rarely what localized copies were made for.")
    /// A localizable string is one edit or a case away from an order.strings key.
    public static let localizationKeyNearMiss = ValidationRule("localization.key-near-miss", .warning, "A localizable string is one edit or a case away from an order.strings key.", "order.json's string is not a key any order.strings defines, so Wallet shows it as it is; it differs from a defined key only by case or one character (CheesecakeSlice, CheeseCakeSlice), so it is likely a misspelt key.")
    /// A .lproj folder has pass.strings.
    public static let localizationPassStrings = ValidationRule("localization.pass-strings", .error, "A .lproj folder has pass.strings.", "Orders use order.strings; pass.strings belongs to Wallet passes (a known library bug writes it for orders).")
    /// An order.strings file can't be parsed.
    public static let localizationStringsSyntax = ValidationRule("localization.strings-syntax", .error, "An order.strings file can't be parsed.", "Lines are \"key\" = \"value\"; with /* comments */.")
    /// An order.strings file is neither UTF-8 nor UTF-16 with a BOM.
    public static let localizationStringsEncoding = ValidationRule("localization.strings-encoding", .error, "An order.strings file is neither UTF-8 nor UTF-16 with a BOM.", "Apple: use UTF-16 for non-ASCII characters; UTF-8 is read too.")
    /// An order.strings file has non-ASCII text in UTF-8.
    public static let localizationNonASCIIUTF8 = ValidationRule("localization.non-ascii-utf8", .info, "An order.strings file has non-ASCII text in UTF-8.", "Apple asks for UTF-16 when strings are non-ASCII; modern iOS very likely reads UTF-8, but nothing documents it.")
    /// order.strings files don't have the same keys.
    public static let localizationKeysDiffer = ValidationRule("localization.keys-differ", .error, "order.strings files don't have the same keys.", "Apple: each order.strings file has the same number of strings and the same keys.")
    /// order.json uses a key some order.strings lacks.
    public static let localizationUndefinedKey = ValidationRule("localization.undefined-key", .error, "order.json uses a key some order.strings lacks.", "Apple: the localized-string keys in order.json match the keys in the order.strings files.")
    /// An order.strings file defines a key twice.
    public static let localizationDuplicateKey = ValidationRule("localization.duplicate-key", .warning, "An order.strings file defines a key twice.", "Only one of the values is used.")
    /// Two fulfillments share a fulfillmentIdentifier.
    public static let uniquenessFulfillmentIdentifier = ValidationRule("uniqueness.fulfillment-identifier", .error, "Two fulfillments share a fulfillmentIdentifier.", "Wallet uses the identifier to detect changes and notify; it must be unique within the order.")
    /// Two returns share a returnIdentifier.
    public static let uniquenessReturnIdentifier = ValidationRule("uniqueness.return-identifier", .error, "Two returns share a returnIdentifier.", "The identifier must be unique within the order.")
    /// A field older iOS versions don't show.
    public static let compatibilityNewerField = ValidationRule("compatibility.newer-field", .info, "A field older iOS versions don't show.", "returns and returnInfo need iOS 17.2, orderProvider 17.4, transactions and shippingType 17.0; older systems probably ignore them.")
    /// The order has no webServiceURL: Wallet won't ask a service for updates to it.
    public static let orderNoWebService = ValidationRule("order.no-web-service", .info, "The order has no webServiceURL: Wallet won't ask a service for updates to it.", "Without webServiceURL no device registers for the order and no push reaches it; every change needs a new archive the customer adds again. Apple's documentation makes the key optional, so this is information, not a problem.")
}
