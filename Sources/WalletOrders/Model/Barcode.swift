/// A barcode that carries information about an order or a pickup.
public struct Barcode: Codable, Sendable, Hashable {
    /// The barcode symbology.
    public var format: Format

    /// The contents of the barcode.
    public var message: String

    /// The text encoding used to turn the message into bytes, typically `iso-8859-1`.
    public var messageEncoding: String

    /// Localizable human-readable text shown with the barcode.
    public var altText: String?

    /// Creates a `Barcode`; optional fields default to `nil`.
    ///
    /// - Parameters:
    ///   - format: The barcode symbology.
    ///   - message: The contents of the barcode.
    ///   - messageEncoding: The text encoding used to turn the message into bytes, typically
    ///     `iso-8859-1`.
    ///   - altText: Localizable human-readable text shown with the barcode.
    public init(
        format: Format,
        message: String,
        messageEncoding: String,
        altText: String? = nil
    ) {
        self.format = format
        self.message = message
        self.messageEncoding = messageEncoding
        self.altText = altText
    }
}

// MARK: - Enumerations

extension Barcode {
    /// The symbology of a barcode.
    public struct Format: OpenEnumeration {
        /// The raw string used in order.json.
        public let rawValue: String

        /// Creates a value from its raw string, known or not.
        ///
        /// - Parameter rawValue: The exact string used in order.json.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A QR code.
        public static let qr: Self = "qr"

        /// A PDF417 barcode.
        public static let pdf417: Self = "pdf417"

        /// An Aztec code.
        public static let aztec: Self = "aztec"

        /// A Code 128 barcode.
        public static let code128: Self = "code128"

        /// The documented values: `qr`, `pdf417`, `aztec`, `code128`.
        public static let knownValues: [Self] = [.qr, .pdf417, .aztec, .code128]
    }
}
