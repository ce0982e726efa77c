import CWalletOrdersBarcode
import CWalletOrdersOpenSSL
import CWalletOrdersZip

/// The versions of the C libraries the process runs with (the shared libraries loaded, which may
/// be newer than the headers it was built against), for `wallet-orders --version` and bug reports.
///
/// The corresponding C functions are `OpenSSL_version` and `zip_libzip_version`.
package enum LibraryVersions {
    /// OpenSSL's version line, such as `OpenSSL 3.0.15 3 Sep 2024`.
    package static var openSSL: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }

    /// libzip's version, such as `1.7.3`.
    package static var libzip: String { String(cString: zip_libzip_version()) }

    /// libzint's version, such as `2.12.0` (zint reports 21200; a fourth digit is a test release).
    package static var libzint: String {
        let number = Int(ZBarcode_Version())
        return "\(number / 10_000).\(number / 100 % 100).\(number / 10 % 10)"
    }
}
