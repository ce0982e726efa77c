import Foundation
import NIOHTTP1
import WalletOrders
import WalletOrdersInterop
import WalletOrdersJSON

/// Changes the order through this package's merchant API, so the checker can see the change
/// reach a device: `GET /merchant/v1/orders/{type}/{order}` for the stored archive, then
/// `POST /merchant/v1/orders/build` with its files (without manifest and signature) and a later
/// `updatedAt`, which the service validates, signs and stores.
struct OrderChange {
    /// Why the change was not made.
    struct NotMade: Error {
        var reason: String
    }

    let run: ServiceCheckRun

    /// The new version's `updatedAt`, or why there is none.
    func make() async -> Result<Timestamp, NotMade> {
        guard let key = run.configuration.merchantAPIKey else { return .failure(NotMade(reason: "no merchant API key was given")) }
        let bearer = ("Authorization", "Bearer \(key)")
        let path = "/merchant/v1/orders/\(run.segment(run.type))/\(run.segment(run.id))"
        let stored: ServiceResponse
        switch await run.http.send(.GET, path, headers: [bearer]) {
        case .failure(let failure): return .failure(NotMade(reason: "GET \(path): \(failure)"))
        case .success(let response) where response.status == 200: stored = response
        case .success(let response): return .failure(NotMade(reason: "GET \(path) answered \(Self.describe(response))"))
        }
        let files: [ZipWriter.Entry]
        let updatedAt: Timestamp
        do {
            let archive = try OrderArchive(bytes: stored.body)
            guard let orderJSON = archive.contents(of: OrderArchive.orderPath) else {
                return .failure(NotMade(reason: "the stored archive has no order.json"))
            }
            guard let edited = Self.laterUpdatedAt(in: orderJSON) else {
                return .failure(NotMade(reason: "the stored order.json has no updatedAt that can be moved"))
            }
            updatedAt = edited.updatedAt
            files = archive.filePaths.filter { $0 != OrderArchive.manifestPath && $0 != OrderArchive.signaturePath }.map { path in
                ZipWriter.Entry(path: path, bytes: path == OrderArchive.orderPath ? edited.json : archive.contents(of: path) ?? [])
            }
        } catch {
            return .failure(NotMade(reason: "the stored archive can't be opened: \(WalletOrdersError.wrapping(error).message)"))
        }
        let zip: [UInt8]
        do {
            let now = Timestamp(Date()).text
            let fields = now.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            zip = try ZipWriter.write(
                files,
                timestamp: .init(year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5]))
        } catch {
            return .failure(NotMade(reason: "the changed files can't be zipped: \(error)"))
        }
        let build = "/merchant/v1/orders/build"
        switch await run.http.send(.POST, build, headers: [bearer, ("Content-Type", "application/zip")], body: zip) {
        case .failure(let failure): return .failure(NotMade(reason: "POST \(build): \(failure)"))
        case .success(let response) where response.status == 200:
            let result = JSONParser.parse(response.body, maxDepth: 8).root?["result"]?.stringValue
            guard result == "added" else {
                return .failure(NotMade(reason: "POST \(build) kept the stored version (result: \(result ?? "none"))"))
            }
            return .success(updatedAt)
        case .success(let response):
            let code = Self.errorCode(response)
            let reason =
                code == "no-signing-identity"
                ? "building isn't configured on the service for \(run.type) (POST \(build) answered \(Self.describe(response)))"
                : "POST \(build) answered \(Self.describe(response))"
            return .failure(NotMade(reason: reason))
        }
    }

    /// `order.json` with `updatedAt` one second past the stored one, or now if that is later
    /// (whole seconds, so the HTTP-date of the new version is later too).
    static func laterUpdatedAt(in json: [UInt8]) -> (json: [UInt8], updatedAt: Timestamp)? {
        guard let node = JSONParser.parse(json, maxDepth: 64).root?["updatedAt"], let text = node.stringValue,
            let old = try? Timestamp(rfc3339: text)
        else { return nil }
        let start = node.position.offset
        guard start < json.count, json[start] == UInt8(ascii: "\""),
            let end = json[(start + 1)...].firstIndex(of: UInt8(ascii: "\"")), !json[start..<end].contains(UInt8(ascii: "\\"))
        else { return nil }
        let now = Int64(Date().timeIntervalSince1970)
        let updatedAt = Timestamp(secondsSince1970: max(now, old.secondsSince1970 + 1))
        var edited = Array(json[..<(start + 1)])
        edited += Array(updatedAt.text.utf8)
        edited += json[end...]
        return (edited, updatedAt)
    }

    /// `422 no-signing-identity: This service holds no …`.
    static func describe(_ response: ServiceResponse) -> String {
        let root = JSONParser.parse(response.body, maxDepth: 8).root?["error"]
        let code = root?["code"]?.stringValue
        let message = root?["message"]?.stringValue
        let text = [code, message].compactMap { $0 }.joined(separator: ": ")
        return "\(response.status)" + (text.isEmpty ? "" : " \(ServiceCheckRun.bounded(text))")
    }

    static func errorCode(_ response: ServiceResponse) -> String? {
        JSONParser.parse(response.body, maxDepth: 8).root?["error"]?["code"]?.stringValue
    }
}
