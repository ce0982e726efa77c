import Foundation
import NIOHTTP1
import WalletOrders
import WalletOrdersInterop
import WalletOrdersJSON

// The run's requests: the changed-orders list, sending and recording findings, and the text of
// what came back.

extension ServiceCheckRun {
    // MARK: - The changed-orders list

    struct ChangedOrdersList {
        var identifiers: [String]
        var tag: String?
        var findings: [ServiceFinding]
        var summary: String
    }

    /// `{"orderIdentifiers": [...], "lastModified": "..."}`, or nil when the body is not that.
    static func parseList(_ body: [UInt8]) -> (identifiers: [String], tag: String?)? {
        guard let root = JSONParser.parse(body, maxDepth: 8).root, let elements = root["orderIdentifiers"]?.elements else { return nil }
        return (elements.compactMap(\.stringValue), root["lastModified"]?.stringValue)
    }

    /// Sends a list request expecting 200 and reads it; records the check itself (and returns nil)
    /// unless the body is a list, whose findings the caller records.
    func fetchList(
        _ rule: ServiceCheckRule, _ name: String, _ request: Request,
        expected: String = #"200 with {"orderIdentifiers": [...], "lastModified": "..."}"#
    ) async throws -> ChangedOrdersList? {
        switch try await send(request) {
        case .notSent(let reason):
            skip(rule, name, reason)
            return nil
        case .failed(let failure):
            record(rule, name, [finding(rule, .error, "No answer.", request, expected: expected, actual: failure)])
            return nil
        case .response(let response):
            guard response.status == 200 else {
                let sentAuthorization = request.headers.contains { $0.0.lowercased() == "authorization" }
                if (response.status == 401 || response.status == 403) && !sentAuthorization {
                    // Seen: a service that asks for the order's token here answers Wallet 401 for ever.
                    record(
                        rule, name,
                        [
                            finding(
                                rule, .error, "The changed-orders list demands Authorization, which Wallet doesn't send for it.", request,
                                expected: expected, actual: response.summary,
                                hint:
                                    "Apple documents no Authorization for GET /v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier}: answer it by the device's registrations."
                            )
                        ])
                } else {
                    let message =
                        response.status == 204
                        ? "The registered order is not listed: 204, nothing changed, for a device that has never asked."
                        : "The registered order is not listed."
                    record(rule, name, [finding(rule, .error, message, request, expected: expected, actual: response.summary)])
                }
                return nil
            }
            let parsed = JSONParser.parse(response.body, maxDepth: 8)
            let root = parsed.root
            let elements = root?["orderIdentifiers"]?.elements
            guard let root, let elements, elements.allSatisfy({ $0.stringValue != nil }) else {
                let what = root == nil ? "The body is not JSON." : #"The body is not {"orderIdentifiers": [strings], "lastModified": string}."#
                record(
                    rule, name,
                    [finding(rule, .error, what, request, expected: expected, actual: "\(response.summary), \(Self.excerpt(response.body))")])
                return nil
            }
            var findings: [ServiceFinding] = []
            let tag = root["lastModified"]?.stringValue
            if tag == nil {
                findings.append(
                    finding(
                        rule, .error, "The list has no lastModified string: the device has no tag to send next time.", request, expected: expected,
                        actual: "\(response.summary), \(Self.excerpt(response.body))"))
            }
            let contentType = response.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            if contentType != "application/json" {
                findings.append(
                    finding(
                        rule, .warning, "The list is not served as application/json.", request, expected: "Content-Type: application/json",
                        actual: response.header("Content-Type").map { "Content-Type: \($0)" } ?? "no Content-Type"))
            }
            return ChangedOrdersList(
                identifiers: elements.compactMap(\.stringValue), tag: tag, findings: findings,
                summary: "\(response.summary), \(Self.excerpt(response.body))")
        }
    }

    // MARK: - Sending and recording

    var authorization: (String, String) { ("Authorization", "AppleOrder \(configuration.authenticationToken)") }
    var wrongAuthorization: (String, String) { ("Authorization", "AppleOrder wrong-\(Self.randomHex(bytes: 16))") }

    /// Sends a request, unless the service stopped answering. The first request's failure means
    /// the service can't be reached: that throws.
    func send(_ request: Request) async throws -> Answer {
        if let stopped { return .notSent(stopped) }
        let result = await http.send(request.method, request.path, headers: request.headers, body: request.body)
        sent += 1
        switch result {
        case .success(let response):
            return .response(response)
        case .failure(.noAnswer(let reason)):
            if sent == 1 {
                throw WalletOrdersError(
                    .serviceUnreachable, "The service at \(configuration.serviceURL) can't be reached: \(redact(reason)).",
                    hint: "Check the URL (the order's webServiceURL), that the service is running, and its TLS certificate.")
            }
            stopped = "the service stopped answering (\(redact(reason)))"
            return .failed(.noAnswer(reason))
        case .failure(let failure):
            return .failed(failure)
        }
    }

    /// Sends `request` and records a check that passes when the status is one of `status`.
    /// Returns the response, whatever its status, when there was one.
    @discardableResult
    func expect(
        _ rule: ServiceCheckRule, _ name: String, _ request: Request, status: Set<Int>, _ message: String, hint: String? = nil
    ) async throws -> ServiceResponse? {
        let expected = status.sorted().map(String.init).joined(separator: " or ")
        switch try await send(request) {
        case .notSent(let reason):
            skip(rule, name, reason)
            return nil
        case .failed(let failure):
            record(rule, name, [finding(rule, .error, message, request, expected: expected, actual: failure)])
            return nil
        case .response(let response):
            record(
                rule, name,
                status.contains(response.status)
                    ? [] : [finding(rule, .error, message, request, expected: expected, actual: response.summary, hint: hint)])
            return response
        }
    }

    func record(_ rule: ServiceCheckRule, _ name: String, _ findings: [ServiceFinding]) {
        report.checks.append(ServiceCheck(ruleID: rule.id, name: name, findings: findings))
    }

    func skip(_ rule: ServiceCheckRule, _ name: String, _ reason: String) {
        report.checks.append(ServiceCheck(ruleID: rule.id, name: name, skipReason: reason))
    }

    func finding(
        _ rule: ServiceCheckRule, _ severity: Diagnostic.Severity, _ message: String, _ request: Request, expected: String,
        actual: ServiceExchangeFailure, hint: String? = nil
    ) -> ServiceFinding {
        finding(rule, severity, message, request, expected: expected, actual: actual.description, hint: hint)
    }

    /// A finding with the token and the merchant key taken out of every text that came from the service.
    func finding(
        _ rule: ServiceCheckRule, _ severity: Diagnostic.Severity, _ message: String, _ request: Request, expected: String, actual: String,
        hint: String? = nil
    ) -> ServiceFinding {
        var summary = request.summary
        summary.path = redact(summary.path)
        summary.detail = summary.detail.map(redact)
        return ServiceFinding(
            ruleID: rule.id, severity: severity, message: redact(message), request: summary, expected: redact(expected),
            actual: redact(Self.bounded(actual)), hint: hint)
    }

    /// `text` with the token and the merchant key replaced. Secrets shorter than 8 characters
    /// are left alone: replacing them would garble every text (Wallet's tokens have at least 16).
    func redact(_ text: String) -> String {
        var text = text
        if configuration.authenticationToken.count >= 8 {
            text = text.replacingOccurrences(of: configuration.authenticationToken, with: "[token]")
        }
        if let key = configuration.merchantAPIKey, key.count >= 8 {
            text = text.replacingOccurrences(of: key, with: "[merchant key]")
        }
        return text
    }

    // MARK: - Text

    /// `body "…"`: the start of a body, printable, for a finding.
    static func excerpt(_ body: [UInt8]) -> String {
        guard !body.isEmpty else { return "empty body" }
        let text = String(decoding: body.prefix(120), as: UTF8.self).unicodeScalars.map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFD ? "." : String(scalar)
        }.joined()
        return "body \"\(text)\"" + (body.count > 120 ? "… (\(body.count) bytes)" : "")
    }

    static func bounded(_ text: String) -> String {
        text.count > 600 ? String(text.prefix(600)) + "…" : text
    }

    static func randomHex(bytes count: Int) -> String { RandomSecret.hex(bytes: count) }

    func segment(_ text: String) -> String { Self.segment(text) }

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A query value, percent-encoded.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&+=#;")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
