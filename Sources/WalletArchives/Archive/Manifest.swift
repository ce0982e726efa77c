import Foundation
package import WalletOrdersInterop
import WalletOrdersJSON

/// The `manifest.json` of a signed archive: the hash of every file in the archive except
/// `manifest.json` and `signature`, keyed by its path relative to the archive root. Orders hash
/// with SHA-256, passes with SHA-1 (``ArchiveKind/manifestHash``).
public struct Manifest: Sendable, Hashable {
    /// The hash a manifest lists for each file.
    public enum HashAlgorithm: String, Sendable, Hashable, Codable {
        /// SHA-256, 64 hex digits: orders.
        case sha256 = "SHA-256"
        /// SHA-1, 40 hex digits: passes.
        case sha1 = "SHA-1"

        /// The number of hex digits a value has.
        public var hexLength: Int {
            switch self {
            case .sha256: 64
            case .sha1: 40
            }
        }

        /// The lowercase hex digest of `bytes`.
        public func hexHash(_ bytes: [UInt8]) -> String {
            digest.hexHash(bytes)
        }

        package var digest: MessageDigest {
            switch self {
            case .sha256: .sha256
            case .sha1: .sha1
            }
        }

        /// Whether `text` is a digest of this algorithm in lowercase hex.
        package func isLowercaseHex(_ text: String) -> Bool {
            text.utf8.count == hexLength && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
    }

    /// Path → lowercase hexadecimal hash.
    public var hashes: [String: String]

    /// The two files a manifest never lists.
    public static let excludedPaths: Set<String> = [ArchiveKind.manifestPath, ArchiveKind.signaturePath]

    /// Creates a manifest from precomputed hashes.
    public init(hashes: [String: String]) {
        self.hashes = hashes
    }

    /// Hashes `files` (path → exact bytes) with `algorithm` (SHA-256, the orders' hash, unless
    /// given), leaving out `manifest.json` and `signature`.
    public init(hashing files: [String: [UInt8]], algorithm: HashAlgorithm = .sha256) {
        let digest = algorithm.digest
        var hashes: [String: String] = [:]
        hashes.reserveCapacity(files.count)
        for (path, bytes) in files where !Self.excludedPaths.contains(path) {
            hashes[path] = digest.hexHash(bytes)
        }
        self.hashes = hashes
    }

    /// Parses `manifest.json` bytes. Accepts any valid JSON spelling (`\/` escapes, any key order).
    ///
    /// - Throws: ``WalletOrdersError/Code/invalidOrder``-free parsing errors are reported as
    ///   `DecodingError`; the verifier turns them into diagnostics.
    public init(jsonBytes: [UInt8]) throws {
        // Clean JSON (no problem of any kind) that is an object of strings reads the same through
        // JSONParser as through JSONDecoder, much faster; anything else gets JSONDecoder's verdict.
        let parsed = JSONParser.parse(jsonBytes, maxDepth: 1)
        if parsed.problems.isEmpty, let members = parsed.root?.members {
            var hashes: [String: String] = [:]
            hashes.reserveCapacity(members.count)
            for member in members {
                guard let value = member.value.stringValue else { break }
                hashes[member.key] = value
            }
            if hashes.count == members.count {
                self.hashes = hashes
                return
            }
        }
        self.hashes = try JSONDecoder().decode([String: String].self, from: Data(jsonBytes))
    }

    /// The SHA-256 (lowercase hexadecimal) of what the manifest says about the archive's content:
    /// its canonical bytes (``jsonBytes``) with every hash in lowercase.
    ///
    /// Two archives with the same content digest hold the same files with the same bytes, whatever
    /// their signatures, signing times or zip layouts: a store treats them as the same version.
    public var contentDigest: String {
        SHA256.hexHash(Manifest(hashes: hashes.mapValues { $0.lowercased() }).jsonBytes)
    }

    /// The canonical `manifest.json` bytes this library writes: one key per line, keys sorted by
    /// their UTF-8 bytes, `/` not escaped, no trailing newline. Deterministic, so equal
    /// manifests give equal bytes (and equal signatures).
    public var jsonBytes: [UInt8] {
        let keys = hashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(keys.count * 100 + 4)
        out.append(contentsOf: "{\n".utf8)
        for (position, key) in keys.enumerated() {
            out.append(contentsOf: "  ".utf8)
            JSONText.appendString(key, to: &out)
            out.append(contentsOf: ": ".utf8)
            JSONText.appendString(hashes[key] ?? "", to: &out)
            if position < keys.count - 1 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\n"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// Writing JSON text by hand where byte-exact, deterministic output matters.
package enum JSONText {
    /// Appends `string` as a JSON string literal: `"` and `\` escaped, control characters as
    /// `\uXXXX` (or their short forms), everything else, `/` and non-ASCII included, as UTF-8.
    package static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        // Most strings need no escape: copy them whole.
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x0a: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0f))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The lower-case hex digit of `nibble` (0…15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
