import Foundation
import HTTPTypes
import WalletOrders

/// Conditional GETs (RFC 9110 §13): whether a stored version is what the client already has.
enum ConditionalRequest {
    /// RFC 9110 §13.2.2: `If-None-Match` decides when present; otherwise `If-Modified-Since`, at
    /// the whole second that `Last-Modified` names (an unreadable date is ignored, as the RFC says).
    static func notModified(_ headers: HTTPFields, entityTag: String, updatedAt: Timestamp) -> Bool {
        let noneMatch = headers[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            let tags = noneMatch.flatMap { $0.split(separator: ",") }.map(\.trimmingOptionalWhitespace)
            return tags.contains { $0 == "*" || $0 == entityTag || ($0.hasPrefix("W/") && $0.dropFirst(2) == entityTag) }
        }
        guard let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) else { return false }
        return updatedAt.secondsSince1970 <= since
    }
}
