import Foundation
import NIOHTTP1
import WalletOrders
import WalletOrdersInterop
import WalletOrdersJSON

/// One run of the checks: the requests in Wallet's order, what each answer means, and what the
/// run has learned so far (the archive's validators, the tag, whether the test device is
/// registered). Used by one task only.
final class ServiceCheckRun {
    /// A request to send, and how a finding names it.
    struct Request {
        var method: HTTPMethod
        var path: String
        var detail: String?
        var headers: [(String, String)] = []
        var body: [UInt8]?

        var summary: ServiceRequestSummary { ServiceRequestSummary(method: method.rawValue, path: path, detail: detail) }
    }

    /// What came of sending a request.
    enum Answer {
        case response(ServiceResponse)
        case failed(ServiceExchangeFailure)
        /// Not sent: the service stopped answering earlier.
        case notSent(String)
    }

    static let orderMediaType = "application/vnd.apple.finance.order"

    let configuration: ServiceChecker.Configuration
    let http: ServiceHTTP
    var report: ServiceCheckReport

    /// Why every later request is skipped: the service stopped answering.
    var stopped: String?
    var sent = 0

    let orderPath: String
    let device: String
    let pushToken: String
    var registrationPath: String { "/v1/devices/\(device)/registrations/\(segment(type))/\(segment(id))" }
    var listPath: String { "/v1/devices/\(device)/registrations/\(segment(type))" }
    var type: String { configuration.order.orderTypeIdentifier }
    var id: String { configuration.order.orderIdentifier }

    // What the run has learned.
    var served: ServiceResponse?
    var servedUpdatedAt: Timestamp?
    var lastModified: (text: String, seconds: Int64)?
    /// The served answer's `Date`: the service's clock.
    var serviceDate: Int64?
    var entityTag: String?
    var registered = false
    var tag: String?

    init(configuration: ServiceChecker.Configuration, http: ServiceHTTP) {
        self.configuration = configuration
        self.http = http
        report = ServiceCheckReport(serviceURL: configuration.serviceURL, order: configuration.order)
        device = "wallet-orders-check-" + Self.randomHex(bytes: 8)
        pushToken = Self.randomHex(bytes: 32)
        orderPath = "/v1/orders/\(Self.segment(configuration.order.orderTypeIdentifier))/\(Self.segment(configuration.order.orderIdentifier))"
    }

    // MARK: - The checks, in Wallet's order

    func runAll() async throws {
        try await checkAuthorization()
        try await fetchOrder()
        try await caching()
        try await registration()
        try await changedOrders()
        try await deviceLog()
        try await change()
        try await unregistration()
    }

    /// 401 without the token, with a wrong one, and for an unknown order.
    private func checkAuthorization() async throws {
        try await expect(
            .unauthorized, "GET the order without Authorization", Request(method: .GET, path: orderPath, detail: "no Authorization"),
            status: [401], "The order was not refused without a token.")
        try await expect(
            .unauthorized, "GET the order with a wrong token",
            Request(method: .GET, path: orderPath, detail: "a wrong token", headers: [wrongAuthorization]), status: [401],
            "The order was not refused with a wrong token.")
        let unknown = Request(
            method: .GET, path: "/v1/orders/\(segment(type))/wallet-orders-check-\(Self.randomHex(bytes: 8))",
            detail: "an unknown order, the token", headers: [authorization])
        let name = "GET an unknown order with the token"
        switch try await send(unknown) {
        case .notSent(let reason): skip(.unknownOrder, name, reason)
        case .failed(let failure):
            record(.unknownOrder, name, [finding(.unknownOrder, .error, "No answer.", unknown, expected: "401", actual: failure)])
        case .response(let response) where response.status == 401: record(.unknownOrder, name, [])
        case .response(let response):
            let message =
                response.status == 404
                ? "An unknown order is answered 404, a known one with a wrong token 401: the answer tells which orders exist."
                : "An unknown order is not answered 401."
            record(
                .unknownOrder, name,
                [
                    finding(
                        .unknownOrder, .error, message, unknown, expected: "401", actual: response.summary,
                        hint: "Answer an unknown order exactly as a wrong token: 401, after the same work.")
                ])
        }
    }

    /// 200 with the archive of this order, its media type and Last-Modified.
    private func fetchOrder() async throws {
        let request = Request(method: .GET, path: orderPath, detail: "the token", headers: [authorization])
        let name = "GET the order with the token"
        let expected = "200 with the signed archive of \(configuration.order)"
        let notServed = "the order was not served (service.order)"
        switch try await send(request) {
        case .notSent(let reason):
            skip(.order, name, reason)
            skip(.mediaType, Self.mediaTypeName, reason)
            skip(.lastModified, Self.lastModifiedName, reason)
            skip(.updatedAtAhead, Self.updatedAtName, reason)
        case .failed(let failure):
            record(.order, name, [finding(.order, .error, "The order was not served.", request, expected: expected, actual: failure)])
            skip(.mediaType, Self.mediaTypeName, notServed)
            skip(.lastModified, Self.lastModifiedName, notServed)
            skip(.updatedAtAhead, Self.updatedAtName, notServed)
        case .response(let response):
            var findings: [ServiceFinding] = []
            if response.status != 200 {
                findings.append(
                    finding(
                        .order, .error, "The order was not served with its token.", request, expected: expected, actual: response.summary,
                        hint: response.status == 401
                            ? "Check that the token is the order's authenticationToken; with the right token, the service refuses its own order."
                            : nil))
            } else if !response.body.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                findings.append(
                    finding(
                        .order, .error, "The body is not a zip archive.", request, expected: "a body starting PK\\x03\\x04 (a zip)",
                        actual: "\(response.summary), body \(Self.excerpt(response.body))"))
            } else {
                do {
                    let archive = try OrderArchive(bytes: response.body)
                    let root = archive.contents(of: OrderArchive.orderPath).flatMap {
                        JSONParser.parse($0, maxDepth: 64, allowingTrailingCommas: true).root
                    }
                    let servedType = root?["orderTypeIdentifier"]?.stringValue
                    let servedID = root?["orderIdentifier"]?.stringValue
                    if servedType != type || servedID != id {
                        findings.append(
                            finding(
                                .order, .error, "The archive holds another order.", request, expected: "order.json of \(configuration.order)",
                                actual: root == nil ? "no readable order.json" : "order.json of \(servedType ?? "?")/\(servedID ?? "?")"))
                    }
                    servedUpdatedAt = root?["updatedAt"]?.stringValue.flatMap { try? Timestamp(rfc3339: $0) }
                } catch {
                    findings.append(
                        finding(
                            .order, .error, "The archive can't be opened.", request, expected: expected,
                            actual: "\(response.summary), \(WalletOrdersError.wrapping(error).message)"))
                }
            }
            record(.order, name, findings)
            guard response.status == 200 else {
                skip(.mediaType, Self.mediaTypeName, notServed)
                skip(.lastModified, Self.lastModifiedName, notServed)
                skip(.updatedAtAhead, Self.updatedAtName, notServed)
                return
            }
            served = response
            serviceDate = response.header("Date").flatMap(HTTPDate.parse)
            mediaType(response, request)
            readLastModified(response, request)
            checkUpdatedAt(response, request)
            entityTag = response.header("ETag")
        }
    }

    static let mediaTypeName = "The archive's Content-Type"
    static let lastModifiedName = "The archive's Last-Modified"
    static let updatedAtName = "The order's updatedAt against the service's clock"

    /// Whether the service held Last-Modified back to its clock (RFC 9110 §8.8.2.1) because the
    /// order's updatedAt is ahead of it: then a conditional GET by that date rightly gets the
    /// archive again.
    var lastModifiedHeldBack: Bool {
        guard let lastModified, let servedUpdatedAt else { return false }
        return lastModified.seconds < servedUpdatedAt.secondsSince1970 && lastModified.seconds <= (serviceDate ?? Int64.max)
            && servedUpdatedAt.secondsSince1970 > (serviceDate ?? Int64(Date().timeIntervalSince1970)) - 3
    }

    /// The date a client holding the served version sends as If-Modified-Since: the service's
    /// Last-Modified, or when that is no HTTP-date, the order's updatedAt as one (rounded up to
    /// its second), as Wallet's is always an HTTP-date.
    var conditionalDate: (text: String, seconds: Int64)? {
        if let lastModified { return lastModified }
        guard let servedUpdatedAt else { return nil }
        let seconds = servedUpdatedAt.secondsSince1970 + (servedUpdatedAt.nanoseconds == 0 ? 0 : 1)
        return (HTTPDate.format(secondsSince1970: seconds), seconds)
    }

    /// A finding about the order: its updatedAt ahead of the service's clock (the answer's
    /// `Date`, else this machine's), past the second or two a fresh save and `Date`'s rounding
    /// account for.
    private func checkUpdatedAt(_ response: ServiceResponse, _ request: Request) {
        let name = Self.updatedAtName
        guard let servedUpdatedAt else {
            skip(.updatedAtAhead, name, "the archive's order.json has no readable updatedAt")
            return
        }
        let clock = serviceDate ?? Int64(Date().timeIntervalSince1970)
        let ahead = servedUpdatedAt.secondsSince1970 - clock
        guard ahead > 2 else {
            record(.updatedAtAhead, name, [])
            return
        }
        let clockText = serviceDate.map { "Date: \(HTTPDate.format(secondsSince1970: $0))" } ?? "this machine's clock (no Date)"
        record(
            .updatedAtAhead, name,
            [
                finding(
                    .updatedAtAhead, .warning,
                    "The order's updatedAt (\(servedUpdatedAt)) is \(ahead) s ahead of the service's clock: until the clock passes it, Wallet is sent the whole archive again at every check.",
                    request, expected: "updatedAt no later than the service's clock", actual: "updatedAt \(servedUpdatedAt), \(clockText)",
                    hint: "A finding about the order: set updatedAt from the clock of the system that saves it, kept synchronized (NTP).")
            ])
    }

    private func mediaType(_ response: ServiceResponse, _ request: Request) {
        let value = response.header("Content-Type")
        let bare = value?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard bare != Self.orderMediaType else {
            record(.mediaType, Self.mediaTypeName, [])
            return
        }
        let message = value.map { "The archive is served as \($0)." } ?? "The archive is served without a Content-Type."
        record(
            .mediaType, Self.mediaTypeName,
            [
                finding(
                    .mediaType, .error, message, request, expected: "Content-Type: \(Self.orderMediaType)",
                    actual: value.map { "Content-Type: \($0)" } ?? "no Content-Type")
            ])
    }

    private func readLastModified(_ response: ServiceResponse, _ request: Request) {
        let name = Self.lastModifiedName
        let example = HTTPDate.format(servedUpdatedAt ?? Timestamp(secondsSince1970: 784_111_777))
        guard let value = response.header("Last-Modified") else {
            record(
                .lastModified, name,
                [
                    finding(
                        .lastModified, .warning, "The archive has no Last-Modified: Wallet has no date to send back as If-Modified-Since.",
                        request, expected: "Last-Modified: \(example)", actual: "no Last-Modified")
                ])
            return
        }
        guard let seconds = HTTPDate.parse(value) else {
            let kind =
                value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
                ? " (epoch seconds)"
                : value.contains("T") && value.contains("-") ? " (ISO 8601)" : ""
            record(
                .lastModified, name,
                [
                    finding(
                        .lastModified, .error, "Last-Modified is not an RFC 9110 HTTP-date\(kind).", request,
                        expected: "Last-Modified: an HTTP-date such as \(example)", actual: "Last-Modified: \(value)",
                        hint: "Wallet sends Last-Modified back as If-Modified-Since, an HTTP-date; write updatedAt as an IMF-fixdate.")
                ])
            return
        }
        lastModified = (value, seconds)
        var findings: [ServiceFinding] = []
        if HTTPDate.format(secondsSince1970: seconds) != value {
            findings.append(
                finding(
                    .lastModified, .warning, "Last-Modified is an obsolete HTTP-date form.", request,
                    expected: "an IMF-fixdate: \(HTTPDate.format(secondsSince1970: seconds))", actual: "Last-Modified: \(value)"))
        }
        if let servedUpdatedAt, servedUpdatedAt.secondsSince1970 != seconds, !lastModifiedHeldBack {
            findings.append(
                finding(
                    .lastModified, .warning, "Last-Modified is not the order's updatedAt (\(servedUpdatedAt)).", request,
                    expected: "Last-Modified: \(HTTPDate.format(servedUpdatedAt))", actual: "Last-Modified: \(value)"))
        }
        record(.lastModified, name, findings)
    }

    /// 304 for the version the client has (by date and by ETag), 200 for an older date.
    private func caching() async throws {
        let notServed = "the order was not served (service.order)"
        let sinceName = "GET with If-Modified-Since: its Last-Modified"
        let matchName = "GET with If-None-Match: its ETag"
        let olderName = "GET with If-Modified-Since a day before Last-Modified"
        guard served != nil else {
            let skipped: [(ServiceCheckRule, String)] = [(.notModified, sinceName), (.notModified, matchName), (.modifiedSince, olderName)]
            for (rule, name) in skipped {
                skip(rule, name, notServed)
            }
            return
        }
        if lastModifiedHeldBack {
            skip(
                .notModified, sinceName,
                "the order's updatedAt is ahead of the service's clock, so its Last-Modified is rightly earlier and the archive is sent again (service.updated-at-ahead)"
            )
        } else if let since = conditionalDate {
            // An updatedAt with a fraction of a second is later than its own whole second: another
            // version may have been saved within it, so sending the archive again is right too.
            let fraction = lastModified != nil && (servedUpdatedAt?.nanoseconds ?? 0) != 0
            let own =
                lastModified != nil
                ? "the service's own Last-Modified" : "the order's updatedAt as an HTTP-date (the service's Last-Modified is none)"
            try await expect(
                .notModified, lastModified != nil ? sinceName : "GET with If-Modified-Since: its updatedAt",
                Request(
                    method: .GET, path: orderPath, detail: "If-Modified-Since: \(since.text)",
                    headers: [authorization, ("If-Modified-Since", since.text)]), status: fraction ? [200, 304] : [304],
                "If-Modified-Since with \(own) did not give 304.",
                hint: "Read If-Modified-Since as an HTTP-date (Wallet sends one, never a number) and answer 304 when updatedAt is not later than it.")
        } else {
            skip(.notModified, sinceName, "the service sent no Last-Modified that is an HTTP-date, and the order has no readable updatedAt")
        }
        if let entityTag {
            try await expect(
                .notModified, matchName,
                Request(
                    method: .GET, path: orderPath, detail: "If-None-Match: \(entityTag)", headers: [authorization, ("If-None-Match", entityTag)]),
                status: [304], "If-None-Match with the service's own ETag did not give 304.")
        } else {
            skip(.notModified, matchName, "the service sent no ETag (optional)")
        }
        if let since = conditionalDate {
            let older = HTTPDate.format(secondsSince1970: since.seconds - 86_400)
            try await expect(
                .modifiedSince, olderName,
                Request(
                    method: .GET, path: orderPath, detail: "If-Modified-Since: \(older)", headers: [authorization, ("If-Modified-Since", older)]),
                status: [200], "A client with an older version did not get the order.")
        } else {
            skip(.modifiedSince, olderName, "the service sent no Last-Modified that is an HTTP-date, and the order has no readable updatedAt")
        }
    }

    /// 201 for a new registration, 200 again, 401 with a wrong token.
    private func registration() async throws {
        let body = Array(#"{"pushToken": "\#(pushToken)"}"#.utf8)
        let json = ("Content-Type", "application/json")
        let first = try await expect(
            .register, "POST a new registration",
            Request(method: .POST, path: registrationPath, detail: "a new device", headers: [authorization, json], body: body), status: [201],
            "Registering a new device did not answer 201.")
        if let first, (200..<300).contains(first.status) { registered = true }
        try await expect(
            .register, "POST the same registration again",
            Request(method: .POST, path: registrationPath, detail: "the same device again", headers: [authorization, json], body: body),
            status: [200], "Registering the same device again did not answer 200.")
        try await expect(
            .unauthorized, "POST a registration with a wrong token",
            Request(method: .POST, path: registrationPath, detail: "a wrong token", headers: [wrongAuthorization, json], body: body),
            status: [401], "A registration with a wrong token was not refused.")
    }

    /// The list names the order with a tag; its own tag gives 204.
    private func changedOrders() async throws {
        let listName = "GET the device's changed orders"
        let tagName = "The tag is opaque and exact"
        let sinceName = "GET the changed orders since the service's own tag"
        guard registered else {
            let skipped: [(ServiceCheckRule, String)] = [(.changedOrders, listName), (.tag, tagName), (.tag, sinceName)]
            for (rule, name) in skipped {
                skip(rule, name, "the test device could not be registered (service.register)")
            }
            return
        }
        let request = Request(method: .GET, path: listPath, detail: "no tag")
        guard let list = try await fetchList(.changedOrders, listName, request) else {
            skip(.tag, tagName, "there is no tag (service.changed-orders)")
            skip(.tag, sinceName, "there is no tag (service.changed-orders)")
            return
        }
        if list.identifiers.contains(id) {
            record(.changedOrders, listName, list.findings)
        } else {
            record(
                .changedOrders, listName,
                list.findings + [
                    finding(
                        .changedOrders, .error, "The list does not name the registered order.", request,
                        expected: #"200 with "orderIdentifiers" naming \#(id)"#, actual: list.summary)
                ])
        }
        guard let tag = list.tag else {
            skip(.tag, tagName, "the list has no lastModified (service.changed-orders)")
            skip(.tag, sinceName, "the list has no lastModified (service.changed-orders)")
            return
        }
        self.tag = tag
        var tagFindings: [ServiceFinding] = []
        if tag.isEmpty {
            tagFindings.append(
                finding(
                    .tag, .error, "The tag is empty: the device can't tell it from no tag.", request, expected: "a non-empty lastModified",
                    actual: #""""#))
        } else if tag.wholeMatch(of: /[0-9]+\.[0-9]+/) != nil {
            tagFindings.append(
                finding(
                    .tag, .warning, "The tag is a floating-point epoch string: compared as a time, it loses changes within its rounding.",
                    request, expected: "an opaque tag compared exactly (a change sequence number, or updatedAt at full precision)",
                    actual: "lastModified: \"\(tag)\"",
                    hint: "A Double holds about a microsecond at today's epoch; two changes closer than that, or a tag rounded "
                        + "to the second, make the device miss the second change."))
        }
        record(.tag, tagName, tagFindings)
        let since = Request(method: .GET, path: listPath + "?ordersModifiedSince=" + Self.queryValue(tag), detail: "its own tag")
        switch try await send(since) {
        case .notSent(let reason): skip(.tag, sinceName, reason)
        case .failed(let failure): record(.tag, sinceName, [finding(.tag, .error, "No answer.", since, expected: "204", actual: failure)])
        case .response(let response) where response.status == 204: record(.tag, sinceName, [])
        case .response(let response) where response.status == 200:
            let identifiers = Self.parseList(response.body)?.identifiers ?? []
            if identifiers.contains(id) {
                record(
                    .tag, sinceName,
                    [
                        finding(
                            .tag, .error, "The service's own tag lists the unchanged order again: the tag never moves or isn't honoured.",
                            since, expected: "204 (nothing changed since the tag)", actual: "\(response.summary), \(Self.excerpt(response.body))")
                    ])
            } else {
                record(
                    .tag, sinceName,
                    [
                        finding(
                            .tag, .warning, "Nothing changed, but the answer is 200 rather than 204.", since, expected: "204",
                            actual: "\(response.summary), \(Self.excerpt(response.body))")
                    ])
            }
        case .response(let response):
            record(
                .tag, sinceName, [finding(.tag, .error, "The service's own tag was not accepted.", since, expected: "204", actual: response.summary)])
        }
    }

    /// The device log is accepted.
    private func deviceLog() async throws {
        try await expect(
            .log, "POST a device log",
            Request(
                method: .POST, path: "/v1/log", headers: [("Content-Type", "application/json")],
                body: Array(#"{"logs": ["wallet-orders check-service"]}"#.utf8)), status: [200], "The device log was not accepted.")
    }

    /// With a merchant key: a later version reaches the device's list and the order endpoint.
    private func change() async throws {
        let movesName = "GET the changed orders since the old tag, after a change"
        let sinceName = "GET with the old If-Modified-Since, after a change"
        let matchName = "GET with the old If-None-Match, after a change"
        let names: [(ServiceCheckRule, String)] = [(.changeMovesTag, movesName), (.changeServed, sinceName), (.changeServed, matchName)]
        if let stopped {
            for (rule, name) in names { skip(rule, name, stopped) }
            return
        }
        let changed: Timestamp
        switch await OrderChange(run: self).make() {
        case .failure(let notMade):
            for (rule, name) in names { skip(rule, name, "the order was not changed: \(redact(notMade.reason))") }
            return
        case .success(let updatedAt):
            changed = updatedAt
        }
        // The list since the old tag names the order again, with a new tag.
        if registered, let oldTag = tag {
            let request = Request(method: .GET, path: listPath + "?ordersModifiedSince=" + Self.queryValue(oldTag), detail: "the old tag")
            if let list = try await fetchList(.changeMovesTag, movesName, request, expected: "200 naming \(id) with a new lastModified") {
                var findings = list.findings
                if !list.identifiers.contains(id) {
                    findings.append(
                        finding(
                            .changeMovesTag, .error, "The changed order is not listed since the old tag.", request,
                            expected: "200 naming \(id)", actual: list.summary))
                } else if list.tag == oldTag {
                    findings.append(
                        finding(
                            .changeMovesTag, .error, "The tag did not move with the change.", request,
                            expected: "a lastModified other than \"\(oldTag)\"",
                            actual: "lastModified: \"\(list.tag ?? "")\""))
                }
                record(.changeMovesTag, movesName, findings)
            }
        } else {
            skip(.changeMovesTag, movesName, "there is no old tag (service.changed-orders)")
        }
        // The order endpoint serves the new version to a client holding the old one.
        let expected = "200 with the new version (updatedAt \(changed))"
        for (name, header, value) in [
            (sinceName, "If-Modified-Since", conditionalDate?.text), (matchName, "If-None-Match", entityTag),
        ] {
            guard let value else {
                skip(.changeServed, name, "the service sent no \(header == "If-None-Match" ? "ETag" : "Last-Modified") for the old version")
                continue
            }
            let request = Request(method: .GET, path: orderPath, detail: "\(header): \(value) (old)", headers: [authorization, (header, value)])
            switch try await send(request) {
            case .notSent(let reason): skip(.changeServed, name, reason)
            case .failed(let failure):
                record(.changeServed, name, [finding(.changeServed, .error, "No answer.", request, expected: expected, actual: failure)])
            case .response(let response):
                let updatedAt = (try? OrderArchive(bytes: response.body))?.contents(of: OrderArchive.orderPath)
                    .flatMap { JSONParser.parse($0, maxDepth: 64, allowingTrailingCommas: true).root?["updatedAt"]?.stringValue }.flatMap {
                        try? Timestamp(rfc3339: $0)
                    }
                if response.status == 200, updatedAt == changed {
                    record(.changeServed, name, [])
                } else {
                    let message = response.status == 304 ? "The old version's \(header) still gets 304." : "The new version was not served."
                    let actual = response.status == 200 ? "200 with updatedAt \(updatedAt?.text ?? "unreadable")" : response.summary
                    record(.changeServed, name, [finding(.changeServed, .error, message, request, expected: expected, actual: actual)])
                }
            }
        }
    }

    /// 200 for unregistering; the list no longer names the order.
    private func unregistration() async throws {
        let deleteName = "DELETE the registration"
        let listName = "GET the device's changed orders after unregistering"
        guard registered else {
            skip(.unregister, deleteName, "the test device could not be registered (service.register)")
            skip(.unregister, listName, "the test device could not be registered (service.register)")
            return
        }
        let response = try await expect(
            .unregister, deleteName, Request(method: .DELETE, path: registrationPath, headers: [authorization]), status: [200],
            "Unregistering did not answer 200.")
        if let response, (200..<300).contains(response.status) { registered = false }
        let request = Request(method: .GET, path: listPath, detail: "after unregistering")
        switch try await send(request) {
        case .notSent(let reason): skip(.unregister, listName, reason)
        case .failed(let failure):
            record(.unregister, listName, [finding(.unregister, .error, "No answer.", request, expected: "204", actual: failure)])
        case .response(let response) where response.status == 204: record(.unregister, listName, [])
        case .response(let response):
            let identifiers = response.status == 200 ? Self.parseList(response.body)?.identifiers : nil
            if let identifiers, !identifiers.contains(id) {
                record(.unregister, listName, [])
            } else {
                record(
                    .unregister, listName,
                    [
                        finding(
                            .unregister, .error, "The unregistered device's list still names the order.", request,
                            expected: "204, or 200 without \(id)", actual: "\(response.summary), \(Self.excerpt(response.body))")
                    ])
            }
        }
    }

    /// Unregisters the test device if it is still registered; never records anything.
    func cleanUp() async {
        guard registered else { return }
        _ = await http.send(.DELETE, registrationPath, headers: [authorization])
        registered = false
    }
}
