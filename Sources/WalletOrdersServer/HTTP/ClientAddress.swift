import Foundation
import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A range of IP addresses in CIDR notation: `10.0.0.0/8`, `fd00::/8`, or one address
/// (`127.0.0.1` is `127.0.0.1/32`). IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) are matched as
/// the IPv4 address they carry.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `address/prefix` or a single address; `nil` when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let length: Int
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...address.count * 8).contains(given) else { return nil }
            length = given
        } else {
            length = address.count * 8
        }
        network = Self.masked(address, length)
        prefixLength = length
    }

    /// Whether `address` (an IP address as text) is in the range.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address), bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    public var description: String { "\(Self.text(network))/\(prefixLength)" }

    /// Whether the range holds every address of its family (`0.0.0.0/0`, `::/0`).
    public var holdsEveryAddress: Bool { prefixLength == 0 }

    /// `address` written the one canonical way (`::FFFF:10.0.0.1` is `10.0.0.1`); `nil` when it
    /// isn't an IP address.
    static func canonical(_ address: String) -> String? {
        bytes(address).map(text)
    }

    /// What a client's limits (connections per address, request rates) are counted under: an
    /// IPv4 address itself; an IPv6 address's /64 (`2001:db8:1:2::/64`), since one subscriber is
    /// given at least a /64 and picks any address in it, and counting each address would let one
    /// client multiply every per-address limit by 2⁶⁴; anything else as it is.
    package static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        return bytes.count == 4 ? text(bytes) : text(masked(bytes, 64)) + "/64"
    }

    private static func text(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address's bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; `nil` when it isn't one.
    static func bytes(_ text: String) -> [UInt8]? {
        // Plain byte buffers rather than in_addr/in6_addr: those C structs are defined by several
        // modules here (Glibc, NIO's C shims), and which one's initializer a file sees depends on
        // the build.
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 { return v4 }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard bytes.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return nil }
        if bytes[..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, length - index * 8))
            return bits == 0 ? 0 : byte & ~UInt8(truncatingIfNeeded: 0xFF >> bits)
        }
    }
}

/// The proxies whose `X-Forwarded-For` the service believes: a client is known by its socket
/// address, unless that address is a trusted proxy's; then by the right-most address of
/// `X-Forwarded-For` that is not a trusted proxy's (the one the nearest trusted proxy saw).
package struct TrustedProxies: Sendable {
    package let ranges: [IPAddressRange]

    package init(ranges: [IPAddressRange]) {
        self.ranges = ranges
    }

    package func contains(_ address: String) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client's address for limits and logs: `socketAddress`, or, when that is a trusted
    /// proxy, the right-most address of `forwardedFor` (every `X-Forwarded-For` field, in order)
    /// that isn't one. An entry that isn't an address ends the walk at the hop before it.
    package func client(socketAddress: String, forwardedFor: [String]) -> String {
        guard contains(socketAddress) else { return socketAddress }
        var client = socketAddress
        for field in forwardedFor.reversed() {
            for entry in field.split(separator: ",").reversed() {
                guard let address = Self.address(entry) else { return client }
                client = address
                if !contains(address) { return client }
            }
        }
        return client
    }

    /// An `X-Forwarded-For` entry's address, without brackets or a port; `nil` when it isn't one.
    private static func address(_ entry: Substring) -> String? {
        var text = String(entry.trimmingOptionalWhitespace)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        return IPAddressRange.canonical(text)
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`: the addresses a request came through, each proxy appending its client's.
    static let xForwardedFor = Self("X-Forwarded-For")!
}
