import Foundation

/// Byte counts for people.
package enum ByteCountText {
    package static func format(_ count: Int) -> String {
        if count < 1_000 { return "\(count) B" }
        if count < 1_000_000 { return String(format: "%.1f kB", Double(count) / 1_000) }
        if count < 1_000_000_000 { return String(format: "%.2f MB", Double(count) / 1_000_000) }
        return String(format: "%.2f GB", Double(count) / 1_000_000_000)
    }
}
