import WalletOrders

/// `--trust-root` files, read within ``FileKind/trustRoot``'s limit (checked before reading).
enum TrustRoots {
    static func read(_ paths: [String]) throws -> [[UInt8]] {
        try paths.map { try BoundedFile.read($0, as: .trustRoot) }
    }
}
