import ArgumentParser
import Foundation
import WalletOrders

extension OrderSourceTemplate.Kind: ExpressibleByArgument {}
extension PassSourceTemplate.Style: ExpressibleByArgument {}

/// `wallet-orders init DIR --order-type-id ID [--type ecommerce|pickup]` and
/// `wallet-orders init DIR --pass STYLE --pass-type-id ID --team-id TEAM`
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start an order or pass source folder: the JSON and placeholder images, which validate clean.",
        discussion: """
            Writes into DIR (made when missing; an existing folder must be empty):
              order.json  the keys the schema requires, a line item, a fulfillment
              logo.png    the merchant's logo, a 300×300 px placeholder
              item.png    the line item's image, a 300×300 px placeholder

            --type ecommerce (the default) starts with a shipping fulfillment, --type \
            pickup with a pickup. The order is ORDER-1 of the order type --order-type-id, \
            created and updated now. Edit order.json (the merchant, line items, status) \
            and replace the images; then validate it, make certificates for the order type \
            and build it.

            So that the order can be updated, order.json names a web service: \
            webServiceURL is --web-service-url (https://orders.example.com when it is not \
            given: replace it with your service's base URL before the order ships) and \
            authenticationToken is 32 random characters, new each time. Wallet asks that \
            service for every later version; without one, a change reaches the customer only \
            as a new archive.

            With --pass STYLE (boardingPass, coupon, eventTicket, generic or storeCard), \
            a pass source instead: pass.json with fields for the style, a QR code, \
            webServiceURL (--web-service-url, https://passes.example.com when not given) and a \
            random authenticationToken, and the icon and logo at @1x, @2x and @3x. \
            --pass-type-id and --team-id name the Pass Type ID certificate that will sign it.

            Examples:
              wallet-orders init my-order --order-type-id order.com.example.shop
              wallet-orders init my-ticket --pass eventTicket \\
                  --pass-type-id pass.com.example.ticket --team-id ABCDE12345
              wallet-orders init pickup-order --order-type-id order.com.example.shop \\
                  --type pickup
              wallet-orders init my-order --order-type-id order.com.example.shop \\
                  --web-service-url https://orders.example.net
            """
    )

    @Argument(help: ArgumentHelp("The folder to make (or an empty one).", valueName: "dir"))
    var directory: String

    @Option(
        name: .customLong("order-type-id"),
        help: ArgumentHelp("The order type identifier (order.com.example.shop): the certificate that signs the order names it.", valueName: "id"))
    var orderTypeIdentifier: String?

    @Option(help: ArgumentHelp("Start a pass of this style instead of an order.", valueName: "style"))
    var pass: PassSourceTemplate.Style?

    @Option(
        name: .customLong("pass-type-id"),
        help: ArgumentHelp("With --pass: the pass type identifier (pass.com.example.ticket) its certificate names.", valueName: "id"))
    var passTypeIdentifier: String?

    @Option(name: .customLong("team-id"), help: ArgumentHelp("With --pass: the Team ID (the certificate's OU).", valueName: "team"))
    var teamIdentifier: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("How the order reaches the customer: ecommerce (shipped) or pickup.", valueName: "type"))
    var kind: OrderSourceTemplate.Kind = .ecommerce

    @Option(
        name: .customLong("web-service-url"),
        help: ArgumentHelp(
            "The order's webServiceURL: the https:// base URL of the service Wallet asks for updates (default: a placeholder to replace).",
            valueName: "url"))
    var webServiceURL: String?

    func validate() throws {
        if let webServiceURL { try Self.checkWebServiceURL(webServiceURL) }
        if pass != nil {
            if orderTypeIdentifier != nil { throw ValidationError("Give --order-type-id for an order or --pass for a pass, not both.") }
            guard let passTypeIdentifier, !passTypeIdentifier.isEmpty else {
                throw ValidationError("Missing --pass-type-id (the pass type identifier, such as pass.com.example.ticket).")
            }
            guard let teamIdentifier, !teamIdentifier.isEmpty else { throw ValidationError("Missing --team-id (the Team ID).") }
            for (option, value) in [("--pass-type-id", passTypeIdentifier), ("--team-id", teamIdentifier)]
            where value.contains(where: { $0 == "\"" || $0 == "\\" || $0 == "/" || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) {
                throw ValidationError("\(option) '\(LogText.printable(value))' holds a character an identifier can't have.")
            }
            return
        }
        if passTypeIdentifier != nil || teamIdentifier != nil {
            throw ValidationError("--pass-type-id and --team-id go with --pass STYLE.")
        }
        guard let orderTypeIdentifier else {
            throw ValidationError(
                "Missing --order-type-id (an order type identifier such as order.com.example.shop), or --pass STYLE for a pass.")
        }
        if orderTypeIdentifier.isEmpty { throw ValidationError("--order-type-id must not be empty.") }
        if orderTypeIdentifier.contains(where: { $0 == "/" || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) {
            throw ValidationError(
                "--order-type-id '\(orderTypeIdentifier)' is not an order type identifier; give a reverse-DNS name such as order.com.example.shop.")
        }
    }

    /// Refuses what Wallet won't call: anything but an absolute `https://` URL (the schema's
    /// pattern is case-sensitive), one with a query or fragment (the device appends `/v1/…`).
    static func checkWebServiceURL(_ text: String) throws {
        let shown = LogText.printable(text)
        guard text.hasPrefix("https://"), let url = URLComponents(string: text), let host = url.host, !host.isEmpty else {
            throw ValidationError(
                "--web-service-url '\(shown)' is not an https:// URL; Wallet calls only https:// services (give one such as https://orders.example.com)."
            )
        }
        if url.query != nil || url.fragment != nil {
            throw ValidationError(
                "--web-service-url '\(shown)' has a query or fragment; Wallet appends /v1/… to the base URL, so give the base alone.")
        }
    }

    func run() throws {
        if let pass, let passTypeIdentifier, let teamIdentifier {
            try runPass(pass, passTypeIdentifier: passTypeIdentifier, teamIdentifier: teamIdentifier)
            return
        }
        let orderTypeIdentifier = orderTypeIdentifier ?? ""
        try reportingFailures {
            try Self.prepareFolder(directory)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            var template = OrderSourceTemplate(orderTypeIdentifier: orderTypeIdentifier, kind: kind, date: now)
            if let webServiceURL {
                // Published without a trailing slash: the device appends "/v1/…".
                template.webServiceURL = webServiceURL.hasSuffix("/") ? String(webServiceURL.dropLast()) : webServiceURL
            }
            try write(
                template.files,
                what: "an order source (\(kind.rawValue)) for \(orderTypeIdentifier)/\(OrderSourceTemplate.orderIdentifier)",
                placeholder: OrderSourceTemplate.placeholderWebServiceURL, noun: "order")
            if webServiceURL != nil {
                Terminal.write("webServiceURL is \(template.webServiceURL); authenticationToken is new and random.")
            }
            Terminal.write("Next: edit \(directory)/order.json, then `wallet-orders validate \(directory)`.")
        }
    }

    /// `init --pass STYLE`: the pass source of ``PassSourceTemplate``.
    func runPass(_ style: PassSourceTemplate.Style, passTypeIdentifier: String, teamIdentifier: String) throws {
        try reportingFailures {
            try Self.prepareFolder(directory)
            var template = PassSourceTemplate(passTypeIdentifier: passTypeIdentifier, teamIdentifier: teamIdentifier, style: style)
            if let webServiceURL {
                template.webServiceURL = webServiceURL.hasSuffix("/") ? String(webServiceURL.dropLast()) : webServiceURL
            }
            try write(
                template.files, what: "a pass source (\(style.rawValue)) for \(passTypeIdentifier)/\(PassSourceTemplate.serialNumber)",
                placeholder: PassSourceTemplate.placeholderWebServiceURL, noun: "pass")
            Terminal.write("Next: edit \(directory)/pass.json, then `wallet-orders validate \(directory)`.")
        }
    }

    /// Writes a template's files into the folder and says what was written, and that the
    /// `webServiceURL` is a placeholder when `--web-service-url` wasn't given.
    func write(_ files: [(name: String, bytes: [UInt8])], what: String, placeholder: String, noun: String) throws {
        let folder = URL(fileURLWithPath: directory)
        for file in files {
            try OutputTarget.path(folder.appendingPathComponent(file.name).path).write(file.bytes)
        }
        Terminal.write("wrote \(what) to \(directory)/:")
        for file in files { Terminal.write("  \(file.name)") }
        if webServiceURL == nil {
            Terminal.write(
                "webServiceURL is the placeholder \(placeholder): set it to your service's base URL before the \(noun) ships (or run init with --web-service-url)."
            )
        }
    }

    /// Makes `path` (and the folders on the way) when missing; refuses anything but an empty folder.
    static func prepareFolder(_ path: String) throws {
        let hint = "Give init a new folder (it is made), or an empty one."
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw WalletOrdersError(
                    .fileAccess, "Cannot make the folder '\(path)': \(error.localizedDescription)", hint: "Check the path and its permissions.")
            }
            return
        }
        guard isFolder.boolValue else { throw WalletOrdersError(.fileAccess, "'\(path)' exists and is not a folder.", hint: hint) }
        let contents: [String]
        do {
            contents = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw WalletOrdersError(.fileAccess, "Cannot read the folder '\(path)': \(error.localizedDescription)", hint: "Check its permissions.")
        }
        if !contents.isEmpty {
            let shown = contents.sorted().prefix(3).joined(separator: ", ") + (contents.count > 3 ? ", …" : "")
            throw WalletOrdersError(
                .fileAccess, "'\(path)' is not empty (it holds \(shown)); init writes only into a new or empty folder.", hint: hint)
        }
    }
}
