// swift-format-ignore-file
/// Every rule `wallet-orders` checks, in one place: `wallet-orders rules` prints it, the docs
/// table is made from it, and a test checks that every rule identifier used in the sources is here.
extension ValidationRule {
    /// All rules, grouped by area.
    public static let all: [ValidationRule] = archive + json + schema + content

    /// Looks a rule up by identifier.
    public static func named(_ id: String) -> ValidationRule? { index[id] }
    private static let index: [String: ValidationRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })

    static let archive: [ValidationRule] = [
        .init("file.unreadable", .error, "A path given to validate or verify can't be read.", "The file or folder does not exist, matches nothing, or can't be read; check the path and permissions."),
        .init("zip.unreadable", .error, "The file is not a zip archive.", "An .order file is a zip archive. Data that libzip can't open as one (truncated downloads, HTML error pages, files altered in transit) can't be an order."),
        .init("zip.duplicate-name", .error, "Two entries share a name.", "Which of the two copies Wallet reads is undefined. Tools that append to an archive produce this; rebuild the archive."),
        .init("zip.invalid-name-encoding", .error, "An entry name is not UTF-8.", "Entry names are paths that order.json refers to; they must be UTF-8."),
        .init("zip.absolute-path", .error, "An entry name is an absolute path.", "A name starting with '/', '\\' or a drive letter would escape the archive when extracted; the entry is not read."),
        .init("zip.parent-reference", .error, "An entry name climbs out with '..'.", "'..' in an entry name is a path-traversal attack (zip slip); the entry is not read."),
        .init("zip.backslash-path", .error, "An entry name uses '\\' as a separator.", "Zip paths use '/'. A backslash makes the path mean different things on different systems."),
        .init("zip.symlink-entry", .error, "An entry is a symbolic link.", "Orders hold files, not links; a link could point anywhere on the machine that extracts it."),
        .init("zip.encrypted-entry", .error, "An entry is encrypted.", "Wallet has no password to decrypt it; build the archive without encryption."),
        .init("zip.junk-file", .error, "Metadata junk (.DS_Store, __MACOSX/, dotfiles) is in the archive.", "Apple: don't include metadata files such as .DS_Store in the manifest or the distributable package. `wallet-orders build` skips them."),
        .init("zip.compression-ratio", .error, "An entry expands suspiciously far (zip bomb).", "An entry above 1 MiB that expands more than 100:1 is not read, so a hostile archive can't exhaust memory."),
        .init("zip.too-many-entries", .error, "The archive has more than 1,000 entries.", "Real orders have a few dozen files; reading stops at the limit."),
        .init("zip.too-large", .error, "The entries expand past 64 MiB.", "Reading stops at the limit; orders must be far smaller (under 5 MB)."),
        .init("zip.checksum-mismatch", .error, "An entry fails its CRC-32 check.", "The archive is damaged; rebuild it."),
        .init("zip.entry-unreadable", .error, "An entry can't be decompressed.", "The archive is damaged or uses a compression method libzip can't read; use deflate or store."),
        .init("zip.zip64", .warning, "The archive uses ZIP64 records.", "Orders never need ZIP64 (it exists for archives over 4 GB); some readers don't support it."),
        .init("archive.missing-file", .error, "order.json, manifest.json or signature is not at the root.", "All three must sit at the top level of the zip. A common cause is zipping the folder instead of its contents, which adds a wrapper folder."),
        .init("bundle.too-large", .error, "The files add up to 5 MB or more.", "Apple: the total size of the bundle must be below 5 MB. Shrink images (300×300 px is enough) and labels."),
        .init("manifest.invalid-json", .error, "manifest.json is not a JSON object of strings.", "The manifest maps each path to its SHA-256 hex digest. A trailing comma (as in Apple's example) makes it invalid JSON."),
        .init("manifest.lists-excluded-file", .error, "The manifest hashes manifest.json or signature.", "Those two files are never listed: the manifest can't contain its own hash, and the signature is made after it."),
        .init("manifest.sha1-hash", .error, "A manifest value has 40 hex digits (SHA-1).", "Orders use SHA-256. Apple's example manifest shows SHA-1-length values copied from the Wallet Passes article, and some libraries hash with SHA-1."),
        .init("manifest.uppercase-hash", .warning, "A manifest value uses uppercase hex.", "Every known implementation writes lowercase hex; Wallet's comparison may be case-sensitive."),
        .init("manifest.invalid-hash", .error, "A manifest value is not a SHA-256 hex digest.", "Each value must be 64 lowercase hexadecimal digits."),
        .init("manifest.hash-mismatch", .error, "A file does not match its manifest hash.", "The file changed after the manifest was written. A common cause is re-serializing order.json after hashing it."),
        .init("manifest.extra-entry", .error, "The manifest lists a file the archive lacks.", "Every listed file must be in the archive."),
        .init("manifest.missing-entry", .error, "A file is not listed in the manifest.", "Apple: the manifest contains all the source files, including those in subdirectories."),
        .init("signature.invalid-encoding", .error, "The signature is not DER-encoded CMS.", "Wallet expects a detached PKCS #7 / CMS signature in DER. PEM or S/MIME output (openssl smime without -outform DER) must be converted."),
        .init("signature.not-signed-data", .error, "The signature is not a SignedData.", "The signature must be a CMS SignedData structure."),
        .init("signature.not-detached", .error, "The signature embeds the manifest.", "Apple asks for a detached signature: manifest.json sits beside it, not inside."),
        .init("signature.content-type", .error, "The signed content type is not id-data.", "The encapsulated content type must be id-data (1.2.840.113549.1.7.1)."),
        .init("signature.signer-count", .error, "The signature does not have exactly one signer.", "Sign once, with the Order Type ID certificate."),
        .init("signature.digest-algorithm", .error, "The signature does not use SHA-256.", "Orders are signed with SHA-256 (openssl -md sha256)."),
        .init("signature.missing-signed-attributes", .error, "The signature has no signed attributes.", "Signing with -noattr leaves out the signing time, which Wallet requires (PassKit: 'Signature must contain a signing date')."),
        .init("signature.missing-signing-time", .error, "The signature has no signingTime attribute.", "Wallet rejects signatures without a signing date."),
        .init("signature.content-type-attribute", .error, "The contentType signed attribute is missing or wrong.", "RFC 5652 requires contentType = id-data among the signed attributes."),
        .init("signature.digest-mismatch", .error, "The signature covers other bytes than the stored manifest.json.", "The manifest was changed, re-encoded, or given another line ending or BOM after signing. Sign the exact bytes you store."),
        .init("signature.signer-certificate-missing", .error, "The signing certificate is not in the signature.", "Include the Order Type ID certificate (don't sign with -nocerts)."),
        .init("signature.invalid", .error, "The signature does not verify.", "It was made with another key than the included certificate's, or altered."),
        .init("signature.root-included", .warning, "The signature carries a root certificate.", "Include the Order Type ID certificate and the WWDR intermediate only; the device has the root."),
        .init("signature.intermediate-missing", .error, "The intermediate that issued the signer is not in the signature.", "Apple: the signing server needs the WWDR intermediate. Pass it when signing (openssl -certfile, or --wwdr)."),
        .init("signature.signer-uid-mismatch", .warning, "The certificate's UID differs from orderTypeIdentifier.", "Apple: orderTypeIdentifier must correspond with your signing certificate. Apple's certificates carry the type identifier in the subject UID; the layout of Order Type ID certificates is undocumented, hence a warning."),
        .init("signature.signer-uid-missing", .warning, "The signing certificate has no subject UID.", "Apple's Order Type ID certificates are expected to name the order type identifier in the subject UID."),
        .init("certificate.untrusted", .error, "The chain doesn't lead to a trusted root.", "Genuine orders chain to Apple Root CA through a WWDR intermediate. Development certificates need --trust-root."),
        .init("certificate.expired-at-signing", .error, "A certificate had expired when the archive was signed.", "Certificates must be valid at the signing time."),
        .init("certificate.not-yet-valid-at-signing", .error, "A certificate was not yet valid when the archive was signed.", "Certificates must be valid at the signing time; check the signing machine's clock."),
        .init("certificate.chain-invalid", .error, "The certificate chain is invalid.", "Any other chain failure (bad signature on a certificate, wrong basic constraints), with OpenSSL's reason."),
        .init("certificate.expired-now", .warning, "A certificate has expired since signing.", "The archive was valid when signed, but new orders need a renewed certificate (WWDR G4 expires 2030-12-10)."),
        .init("certificate.wwdr-generation", .info, "Which WWDR generation issued the signer.", "Names the intermediate generation (G4, …) so a G1/G4 mix-up is easy to spot."),
        .init("order.invalid", .error, "order.json does not decode as an order.", "The typed model could not read order.json; the schema findings say why."),
        .init("build.skipped-file", .info, "A junk file was left out of the archive.", "`wallet-orders build` skips .DS_Store, __MACOSX/, dotfiles and stale manifests or signatures."),
        .init("build.validation-failed", .error, "The order has errors, so it was not signed.", "`wallet-orders build` validates before signing; fix the errors or pass --no-validate."),
    ]

    static let json: [ValidationRule] = [
        .init("json.syntax", .error, "order.json is not valid JSON.", "Strict RFC 8259: no trailing commas, no comments, double-quoted keys, no NaN. The finding points at the first error."),
        .init("json.too-deep", .error, "The JSON nests deeper than 512 levels.", "No order needs that; parsing stops to stay safe."),
        .init("json.duplicate-key", .error, "An object has the same key twice.", "Which value Wallet uses is undefined; keep one."),
        .init("json.byte-order-mark", .warning, "order.json starts with a byte-order mark.", "JSON text must not begin with a BOM (RFC 8259 §8.1); some parsers reject it."),
        .init("json.invalid-utf8", .error, "A string holds bytes that aren't UTF-8.", "order.json must be UTF-8 (RFC 8259 §8.1)."),
        .init("json.invalid-unicode-escape", .error, "A \\u escape is a lone surrogate.", "\\uD800–\\uDFFF escapes must come in valid pairs."),
    ]

    static let schema: [ValidationRule] = [
        .init("schema.required", .error, "A required key is missing.", "Apple: if order.json lacks a required key in any object, the Add Order dialog doesn't appear."),
        .init("schema.type", .error, "A value has the wrong JSON type.", "For example quantity must be a number, not a string."),
        .init("schema.enum", .error, "A value is not one of the allowed values.", "Statuses, formats and types are finite, case-sensitive camelCase sets (OnTheWay is not onTheWay; readyForPickup is not a shipping status)."),
        .init("schema.const", .error, "A value must be exactly one thing.", "schemaVersion is 1; orderType is ecommerce; fulfillmentType matches the fulfillment kind."),
        .init("schema.unknown-key", .warning, "A key the schema doesn't define.", "Wallet ignores unknown keys, so a misspelt key (merchantIdentifer) silently loses its value. The finding suggests the nearest known key."),
        .init("schema.format", .error, "A value is not in the required format.", "Dates must be RFC 3339 with an offset (2024-01-01T00:00:00Z), durations ISO 8601 (PT30M), URLs absolute."),
        .init("schema.pattern", .error, "A value does not match the required pattern.", "For example amounts are plain decimals ('12.50', not '12,50'), currency codes three capital letters, URLs https."),
        .init("schema.length", .error, "A string or array is too short or too long.", "For example authenticationToken needs at least 16 characters; currency codes are exactly 3."),
        .init("schema.range", .error, "A number is out of range.", "Latitude is −90…90, longitude −180…180, quantities above 0."),
        .init("schema.dependent-required", .error, "A key requires another key.", "webServiceURL requires authenticationToken."),
        .init("schema.fulfillment", .error, "A fulfillment doesn't match its fulfillmentType.", "Each fulfillment is a shipping or a pickup fulfillment, discriminated by fulfillmentType."),
        .init("schema.violation", .error, "Another schema constraint failed.", "The message names the JSON Schema keyword."),
    ]

    static let content: [ValidationRule] = [
        .init("order.updated-before-created", .error, "updatedAt is earlier than createdAt.", "updatedAt is ≥ createdAt (equal on the first version) and must increase with every version; otherwise an update loses to the stored copy."),
        .init("dates.before-order-created", .warning, "An event is dated before the order was created.", "Shipping, delivery, pickup and transaction dates normally come after createdAt."),
        .init("dates.out-of-order", .error, "Event dates contradict each other.", "For example deliveredAt before shippedAt, or returnedAt before initiatedAt."),
        .init("dates.status-mismatch", .warning, "A status and its date disagree.", "A delivered shipment should say deliveredAt, a picked-up order pickedUpAt; a date for an event that the status says hasn't happened is suspicious."),
        .init("money.unknown-currency", .error, "A currency code is not in ISO 4217.", "Three capital letters are not enough: 'USB' is not a currency. Checked against ISO 4217 (Debian iso-codes)."),
        .init("money.minor-units", .warning, "An amount has more decimals than its currency has.", "JPY has no minor unit, KWD three, most currencies two (ICU data). Wallet shows amounts as given."),
        .init("money.amount-number", .warning, "An amount is a JSON number.", "Apple's schema types amount as a string; Apple's own sample uses numbers. Strings keep exact decimals."),
        .init("money.currency-mismatch", .error, "Amounts in one payment use different currencies.", "Summary items and transactions should use the total's currency; Wallet converts nothing."),
        .init("address.unknown-country", .error, "A country code is not in ISO 3166-1.", "Checked against the ISO 3166-1 alpha-2 list (Debian iso-codes)."),
        .init("files.missing-reference", .error, "A file order.json names is not in the order.", "Each referenced image, receipt or label must exist at the top level or in every .lproj folder."),
        .init("files.wrong-type", .error, "A file's content is not what it must be.", "Images must really be PNG or JPEG; receipts and return labels PDF, PNG or JPEG, whatever the extension says."),
        .init("files.image-size", .warning, "An image is not the recommended size.", "HIG: logos and product images are 300×300 px (@2x 600×600, @3x 900×900)."),
        .init("files.image-transparency", .warning, "An image has an alpha channel.", "HIG: logos and product images have a nontransparent background."),
        .init("files.variants-inconsistent", .warning, "Localizations have different resolutions of an image.", "Apple: provide the same number of resolutions (@2x/@3x) for each localization."),
        .init("files.unreferenced", .info, "A file nothing references.", "It makes the order bigger for nothing."),
        .init("localization.invalid-folder-name", .error, "A .lproj folder name is not a language identifier.", "Use BCP 47-style identifiers with hyphens: en.lproj, fr-CA.lproj, zh-Hans.lproj — not en_US.lproj."),
        .init("localization.missing-strings", .error, "A .lproj folder has no order.strings.", "Apple: each localization folder contains the order.strings file."),
        .init("localization.pass-strings", .error, "A .lproj folder has pass.strings.", "Orders use order.strings; pass.strings belongs to Wallet passes (a known library bug writes it for orders)."),
        .init("localization.strings-syntax", .error, "An order.strings file can't be parsed.", "Lines are \"key\" = \"value\"; with /* comments */."),
        .init("localization.strings-encoding", .error, "An order.strings file is neither UTF-8 nor UTF-16 with a BOM.", "Apple: use UTF-16 for non-ASCII characters; UTF-8 is read too."),
        .init("localization.non-ascii-utf8", .info, "An order.strings file has non-ASCII text in UTF-8.", "Apple asks for UTF-16 when strings are non-ASCII; modern iOS very likely reads UTF-8, but nothing documents it."),
        .init("localization.keys-differ", .error, "order.strings files don't have the same keys.", "Apple: each order.strings file has the same number of strings and the same keys."),
        .init("localization.undefined-key", .error, "order.json uses a key some order.strings lacks.", "Apple: the localized-string keys in order.json match the keys in the order.strings files."),
        .init("localization.duplicate-key", .warning, "An order.strings file defines a key twice.", "Only one of the values is used."),
        .init("uniqueness.fulfillment-identifier", .error, "Two fulfillments share a fulfillmentIdentifier.", "Wallet uses the identifier to detect changes and notify; it must be unique within the order."),
        .init("uniqueness.return-identifier", .error, "Two returns share a returnIdentifier.", "The identifier must be unique within the order."),
        .init("compatibility.newer-field", .info, "A field older iOS versions don't show.", "returns and returnInfo need iOS 17.2, orderProvider 17.4, transactions and shippingType 17.0; older systems probably ignore them."),
    ]
}
