import CWalletOrdersZip

/// A failed libzip call: libzip's error code, the system error (if any) and libzip's text.
package struct ZipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libzip function that failed.
    package var function: String
    /// libzip's `ZIP_ER_*` code (`zip_error_code_zip`).
    package var code: Int32
    /// The `errno` or zlib code behind it (`zip_error_code_system`), 0 when none.
    package var systemCode: Int32
    /// libzip's description (`zip_error_strerror`), such as `Not a zip archive`.
    package var message: String

    package init(function: String, code: Int32, systemCode: Int32 = 0, message: String) {
        self.function = function
        self.code = code
        self.systemCode = systemCode
        self.message = message
    }

    /// Reads a `zip_error_t`.
    init(function: String, error: UnsafeMutablePointer<zip_error_t>) {
        self.init(
            function: function,
            code: zip_error_code_zip(error),
            systemCode: zip_error_code_system(error),
            message: String(cString: zip_error_strerror(error))
        )
    }

    /// Reads the error recorded on an archive handle (`zip_get_error`).
    init(function: String, archive: OpaquePointer) {
        self.init(function: function, error: zip_get_error(archive))
    }

    /// Whether the data is not a zip archive at all (`ZIP_ER_NOZIP`).
    package var isNotZip: Bool { code == ZIP_ER_NOZIP }

    /// Whether an entry's data failed its CRC check (`ZIP_ER_CRC`).
    package var isChecksumMismatch: Bool { code == ZIP_ER_CRC }

    package var description: String { "\(message) (\(function))" }
}
