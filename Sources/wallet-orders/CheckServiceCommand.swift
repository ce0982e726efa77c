import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersServiceCheck

/// `wallet-orders check-service URL --order TYPE/ID --token TOKEN`
struct CheckServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-service",
        abstract: "Play Wallet against an order web service and report each deviation from Apple's protocol.",
        discussion: """
            URL is the order's webServiceURL; any implementation of Apple's order web service \
            protocol can be checked. The checker asks what Wallet asks: the order with and without \
            the token (401 for a wrong token and for an unknown order), its media type and \
            Last-Modified, conditional GETs (304), registering a test device (201, then 200), the \
            device's changed orders and their tag (204 for the service's own tag), a device log, \
            and unregistering. The test device is unregistered at the end, also after failures.

            With --merchant-key (this tool's merchant API, `wallet-orders serve`), the order is \
            changed too: rebuilt with a later updatedAt through POST /merchant/v1/orders/build, \
            then the old tag must list it with a new tag, and the old If-Modified-Since and \
            If-None-Match must get the new version. This changes the stored order and notifies \
            its registered devices.

            Each finding names its rule (service.*), the request, what was expected and what came \
            back; never the token. Rules: service.unauthorized, service.unknown-order, \
            service.order, service.media-type, service.last-modified, service.not-modified, \
            service.modified-since, service.register, service.changed-orders, service.tag, \
            service.log, service.change-moves-tag, service.change-served, service.unregister.

            Every request has a deadline (--timeout, its body included) and bodies are read up \
            to 8 MiB; TLS certificates are verified.

            Exit codes: 0 no errors (warnings allowed), 1 errors, 2 the service can't be \
            reached, 64 usage error.

            Examples:
              wallet-orders check-service https://orders.example.com/wallet \\
                  --order order.com.example.shop/1234 --token-env ORDER_TOKEN
              wallet-orders check-service http://127.0.0.1:8080 \\
                  --order order.com.example.shop/1234 --token-env ORDER_TOKEN \\
                  --merchant-key-env MERCHANT_KEY --format junit --out service.xml
            """
    )

    @Argument(help: ArgumentHelp("The service's base URL (the order's webServiceURL).", valueName: "url"))
    var url: String

    @Option(help: ArgumentHelp("The order to check with: orderTypeIdentifier/orderIdentifier.", valueName: "type/id"))
    var order: String

    @Option(help: ArgumentHelp("The order's authenticationToken (visible in the process list: prefer --token-env).", valueName: "token"))
    var token: String?

    @Option(name: .customLong("token-env"), help: ArgumentHelp("Environment variable holding the order's authenticationToken.", valueName: "name"))
    var tokenEnvironment: String?

    @Option(name: .customLong("merchant-key"), help: ArgumentHelp("A merchant API key, to change the order and check the change.", valueName: "key"))
    var merchantKey: String?

    @Option(name: .customLong("merchant-key-env"), help: ArgumentHelp("Environment variable holding a merchant API key.", valueName: "name"))
    var merchantKeyEnvironment: String?

    @Option(help: ArgumentHelp("Output format: text, json or junit.", valueName: "format"))
    var format: CheckServiceFormat = .text

    @Option(help: ArgumentHelp("Write the report to this file instead of standard output ('-': standard output).", valueName: "file"))
    var out: String?

    @Option(help: ArgumentHelp("Seconds one request may take, its body included.", valueName: "seconds"))
    var timeout: Double = 10

    /// `--format`: the checker's report formats.
    enum CheckServiceFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit
        var format: ServiceCheckReport.Format { ServiceCheckReport.Format(rawValue: rawValue) ?? .text }
    }

    /// `TYPE/ID`, split at the first slash.
    var orderIdentifier: FullyQualifiedOrderIdentifier? {
        guard let slash = order.firstIndex(of: "/") else { return nil }
        let type = String(order[..<slash])
        let id = String(order[order.index(after: slash)...])
        guard !type.isEmpty, !id.isEmpty else { return nil }
        return FullyQualifiedOrderIdentifier(orderTypeIdentifier: type, orderIdentifier: id)
    }

    func validate() throws {
        guard orderIdentifier != nil else {
            throw ValidationError("--order takes orderTypeIdentifier/orderIdentifier, such as order.com.example.shop/1234.")
        }
        if (token == nil) == (tokenEnvironment == nil) { throw ValidationError("Give the order's token with --token or --token-env (one of them).") }
        if merchantKey != nil && merchantKeyEnvironment != nil {
            throw ValidationError("Give the merchant key with --merchant-key or --merchant-key-env, not both.")
        }
        guard timeout.isFinite, timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be more than 0 and at most 600 seconds.") }
    }

    static func environment(_ name: String, option: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw ValidationError("\(option) \(name): the environment variable is not set or empty.")
        }
        return value
    }

    func run() async throws {
        let token = try self.token ?? Self.environment(tokenEnvironment ?? "", option: "--token-env")
        let merchantKey = try self.merchantKey ?? merchantKeyEnvironment.map { try Self.environment($0, option: "--merchant-key-env") }
        guard let order = orderIdentifier else { throw ValidationError("--order takes orderTypeIdentifier/orderIdentifier.") }
        let checker: ServiceChecker
        do {
            checker = try ServiceChecker(
                .init(
                    serviceURL: url, order: order, authenticationToken: token, merchantAPIKey: merchantKey,
                    timeout: .milliseconds(Int64((timeout * 1000).rounded()))))
        } catch let error as WalletOrdersError {
            throw ValidationError(error.message + (error.hint.map { " \($0)" } ?? ""))
        }
        let target = out.flatMap { $0 == "-" ? nil : OutputTarget.path($0) }
        try reportingFailures { try target?.check() }
        let report: ServiceCheckReport
        do {
            report = try await checker.check()
        } catch let error as WalletOrdersError where error.code == .serviceUnreachable {
            Terminal.reportError(error.message, hint: error.hint)
            throw ExitCode(2)
        }
        let colors = target == nil && format == .text && Terminal.colorsEnabled(on: .standardOutput)
        let text = report.rendered(as: format.format, colors: colors, toolVersion: VersionInformation.version)
        if let target {
            try reportingFailures { try target.write(Array(text.utf8)) }
            let errors = report.errors.count
            let warnings = report.warnings.count
            Terminal.write(
                "\(report.passed ? "OK" : "FAILED") (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")); "
                    + "report written to \(target)")
        } else {
            Terminal.write(text.trimmingCharacters(in: .newlines))
        }
        if !report.passed { throw ExitCode.failure }
    }
}
