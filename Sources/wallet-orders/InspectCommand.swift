import ArgumentParser
import Foundation
import WalletOrders

/// `wallet-orders inspect FILE.order`
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what an archive holds: entries, order, manifest and signature facts.",
        discussion: """
            Inspecting judges nothing (use verify for that); it reads what it can.

            Examples:
              wallet-orders inspect order.order
              wallet-orders inspect order.order --json | jq .signature.signer
            """
    )

    @Argument(help: ArgumentHelp("The archive to inspect.", valueName: "file.order"))
    var archive: String

    @Flag(help: "Print as JSON.")
    var json = false

    struct Inspection: Encodable {
        var path: String
        var bytes: Int
        var entries: [OrderArchive.Entry]
        var order: Order?
        var orderError: String?
        var manifest: [String: String]?
        var manifestError: String?
        var signature: SignatureInfo?
        var signatureError: String?
    }

    func run() throws {
        let inspection = try reportingFailures {
            let opened = try OrderArchive(contentsOf: URL(fileURLWithPath: archive))
            var inspection = Inspection(path: archive, bytes: opened.byteCount, entries: opened.entries)
            do { inspection.order = try opened.order() } catch { inspection.orderError = "\(error)" }
            do { inspection.manifest = try opened.manifest().hashes } catch { inspection.manifestError = "\(error)" }
            do { inspection.signature = try opened.signatureInfo() } catch { inspection.signatureError = "\(error)" }
            return inspection
        }
        if json {
            try JSONOutput.print(inspection)
            return
        }
        let bold = { (text: String) in Terminal.styled(text, .bold) }
        Terminal.write("\(bold(archive)): \(inspection.bytes) bytes, \(inspection.entries.count) entries")
        for entry in inspection.entries {
            let size = entry.isDirectory ? "dir" : "\(entry.uncompressedSize) B"
            Terminal.write("  \(entry.path.padding(toLength: max(36, entry.path.count), withPad: " ", startingAt: 0)) \(size.padding(toLength: 10, withPad: " ", startingAt: 0)) \(entry.compression)")
        }
        Terminal.write(bold("order"))
        if let order = inspection.order {
            Terminal.write("  identifier:  \(order.fullyQualifiedIdentifier)")
            Terminal.write("  status:      \(order.status)")
            Terminal.write("  merchant:    \(order.merchant.displayName) (\(order.merchant.merchantIdentifier))")
            Terminal.write("  created:     \(order.createdAt)")
            Terminal.write("  updated:     \(order.updatedAt)")
            if let total = order.payment?.total {
                Terminal.write("  total:       \(total.amount.text) \(total.currency)")
            }
            Terminal.write("  line items:  \(order.lineItems?.count ?? 0), fulfillments: \(order.fulfillments?.count ?? 0)")
        } else {
            Terminal.write("  unreadable: \(inspection.orderError ?? "")")
        }
        Terminal.write(bold("manifest"))
        if let manifest = inspection.manifest {
            for path in manifest.keys.sorted() { Terminal.write("  \(manifest[path] ?? "")  \(path)") }
        } else {
            Terminal.write("  unreadable: \(inspection.manifestError ?? "")")
        }
        Terminal.write(bold("signature"))
        if let signature = inspection.signature {
            let formatter = ISO8601DateFormatter()
            if let signer = signature.signer {
                Terminal.write("  signer:      \(signer.subject)")
                Terminal.write("  issuer:      \(signer.issuer)")
                Terminal.write("  serial:      \(signer.serialNumber)")
                Terminal.write("  valid:       \(formatter.string(from: signer.notBefore)) – \(formatter.string(from: signer.notAfter))")
            } else {
                Terminal.write("  signer:      (certificate not included)")
            }
            Terminal.write("  signed at:   \(signature.signingTime.map(formatter.string(from:)) ?? "(no signingTime attribute)")")
            Terminal.write("  digest:      \(signature.digestAlgorithm), signature: \(signature.signatureAlgorithm)")
            Terminal.write("  attributes:  \(signature.signedAttributes.joined(separator: ", "))")
            Terminal.write("  detached:    \(signature.isDetached ? "yes" : "no"), signers: \(signature.signerCount), certificates: \(signature.certificates.count)")
        } else {
            Terminal.write("  unreadable: \(inspection.signatureError ?? "")")
        }
    }
}
