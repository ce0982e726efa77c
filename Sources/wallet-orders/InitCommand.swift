import ArgumentParser
import Foundation
import WalletOrders

extension OrderSourceTemplate.Kind: ExpressibleByArgument {}

/// `wallet-orders init DIR --order-type-id ID [--type ecommerce|pickup]`
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start an order source folder: an order.json and placeholder images that validate clean.",
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

            Examples:
              wallet-orders init my-order --order-type-id order.com.example.shop
              wallet-orders init pickup-order --order-type-id order.com.example.shop \\
                  --type pickup
            """
    )

    @Argument(help: ArgumentHelp("The folder to make (or an empty one).", valueName: "dir"))
    var directory: String

    @Option(
        name: .customLong("order-type-id"),
        help: ArgumentHelp("The order type identifier (order.com.example.shop): the certificate that signs the order names it.", valueName: "id"))
    var orderTypeIdentifier: String

    @Option(name: .customLong("type"), help: ArgumentHelp("How the order reaches the customer: ecommerce (shipped) or pickup.", valueName: "type"))
    var kind: OrderSourceTemplate.Kind = .ecommerce

    func validate() throws {
        if orderTypeIdentifier.isEmpty { throw ValidationError("--order-type-id must not be empty.") }
        if orderTypeIdentifier.contains(where: { $0 == "/" || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) {
            throw ValidationError(
                "--order-type-id '\(orderTypeIdentifier)' is not an order type identifier; give a reverse-DNS name such as order.com.example.shop.")
        }
    }

    func run() throws {
        try reportingFailures {
            try Self.prepareFolder(directory)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let template = OrderSourceTemplate(orderTypeIdentifier: orderTypeIdentifier, kind: kind, date: now)
            let folder = URL(fileURLWithPath: directory)
            for file in template.files {
                try OutputTarget.path(folder.appendingPathComponent(file.name).path).write(file.bytes)
            }
            Terminal.write(
                "wrote an order source (\(kind.rawValue)) for \(orderTypeIdentifier)/\(OrderSourceTemplate.orderIdentifier) to \(directory)/:")
            for file in template.files { Terminal.write("  \(file.name)") }
            Terminal.write("Next: edit \(directory)/order.json, then `wallet-orders validate \(directory)`.")
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
