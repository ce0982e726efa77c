import CWalletOrdersOpenSSL
import CWalletOrdersZip

/// The versions of the C libraries the process runs with (the shared libraries loaded, which may
/// be newer than the headers it was built against), for `wallet-orders --version` and bug reports.
/// libzint's is ``BarcodeEncoder/libraryVersion``, in the preview's half of the interop layer.
///
/// The corresponding C functions are `OpenSSL_version` and `zip_libzip_version`.
package enum LibraryVersions {
    /// OpenSSL's version line, such as `OpenSSL 3.0.15 3 Sep 2024`.
    package static var openSSL: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }

    /// libzip's version, such as `1.7.3`.
    package static var libzip: String { String(cString: zip_libzip_version()) }
}
