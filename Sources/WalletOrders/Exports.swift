// The core every archive kind shares (zip, manifest, signature, certificates, diagnostics, the
// error type) is part of this library's API: `import WalletOrders` brings it.
@_exported public import WalletArchives
