package import ArgumentParser
import Foundation
import WalletOrders
import WalletPasses

/// `wallet-orders inspect PATH…`
package struct InspectCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what an archive holds: entries, order or pass, manifest and signature facts.",
        discussion: """
            Inspecting judges nothing (use verify for that); it reads what it can. Paths are read \
            as validate reads them: .order and .pkpass archives, .pkpasses bundles (each pass \
            inside shown on its own, as BUNDLE/NAME.pkpass), folders searched for them, quoted \
            globs. Each says which kind it is. Exit code 1 when a path can't be opened.

            Examples:
              wallet-orders inspect order.order
              wallet-orders inspect tickets.pkpasses
              wallet-orders inspect 'out/*.order' --json | jq '.archives[].signature.signer'
            """
    )

    @Argument(help: ArgumentHelp("Archives, folders of archives, or quoted globs (as validate takes them).", valueName: "path"))
    package var paths: [String]

    @Flag(help: "Print as JSON: {version, tool, archives: [one object per archive]}.")
    package var json = false

    struct Inspection: Encodable {
        var path: String
        /// `order` or `pass`, once the archive is open.
        var kind: ArchiveKind?
        var bytes: Int?
        var entries: [OrderArchive.Entry]?
        var order: Order?
        var orderError: String?
        var pass: PassFacts?
        var passError: String?
        var manifest: [String: String]?
        var manifestError: String?
        var signature: SignatureInfo?
        var signatureError: String?
        /// Why the path could not be opened at all (then only `path`, `error` and `hint` are set).
        var error: String?
        var hint: String?
    }

    /// What `pass.json` says of the pass's identity.
    struct PassFacts: Encodable {
        var passTypeIdentifier: String?
        var serialNumber: String?
        var teamIdentifier: String?
        var organizationName: String?
        var description: String?
        var styles: [String]
        var hasNFC: Bool
    }

    /// What `--json` prints: the same `version` and `tool` as validate's and verify's reports.
    struct Document: Encodable {
        var version = 1
        var tool = ["name": "wallet-orders", "version": WalletOrdersCommand.configuration.version]
        var archives: [Inspection]
    }

    /// What `target` holds: one inspection, or one for each pass of a `.pkpasses` bundle
    /// (path `BUNDLE/NAME.pkpass`), after one for the bundle when it can't be read.
    static func inspect(_ target: PathArguments.Target) -> [Inspection] {
        switch target {
        case .missing(let path, let reason):
            return [Inspection(path: path, error: reason, hint: PathArguments.missingHint)]
        case .source(let path), .passSource(let path):
            let kind: ArchiveKind = if case .passSource = target { .pass } else { .order }
            let report = PathArguments.sourceFolderReport(path, command: "inspect", kind: kind)
            return [Inspection(path: path, error: report.diagnostics[0].message, hint: report.diagnostics[0].hint)]
        case .passBundle(let path):
            do {
                let bundle = try PassBundle(bytes: try BoundedFile.read(path, as: .passArchive))
                guard !bundle.members.isEmpty else {
                    return [
                        Inspection(
                            path: path, error: "'\(path)' holds no .pkpass file.", hint: "A .pkpasses bundle holds .pkpass files, at its root.")
                    ]
                }
                return bundle.members.map { member in
                    inspectPass("\(path)/\(member.name)") { try PassArchive(bytes: member.bytes) }
                }
            } catch {
                let failure = WalletOrdersError.wrapping(error)
                let hint = failure.code == .archiveUnreadable ? PassBundle.unreadableHint : failure.hint
                return [Inspection(path: path, error: failure.message, hint: hint)]
            }
        case .pass(let path):
            return [inspectPass(path) { try PassArchive(contentsOf: URL(fileURLWithPath: path)) }]
        case .archive(let path):
            return [inspectOrder(path)]
        }
    }

    /// A pass's entries, identity, manifest and signature, each read as far as it can be.
    static func inspectPass(_ path: String, opening open: () throws -> PassArchive) -> Inspection {
        do {
            let opened = try open()
            var inspection = Inspection(path: path, kind: .pass, bytes: opened.byteCount, entries: opened.entries)
            do {
                let identity = try opened.identity()
                inspection.pass = PassFacts(
                    passTypeIdentifier: identity.passTypeIdentifier, serialNumber: identity.serialNumber,
                    teamIdentifier: identity.teamIdentifier, organizationName: identity.organizationName,
                    description: identity.description, styles: identity.styles, hasNFC: identity.hasNFC)
            } catch { inspection.passError = "\(error)" }
            do { inspection.manifest = try opened.manifest().hashes } catch { inspection.manifestError = "\(error)" }
            do { inspection.signature = try opened.signatureInfo() } catch { inspection.signatureError = "\(error)" }
            return inspection
        } catch {
            let failure = error as? WalletOrdersError
            return Inspection(path: path, error: failure?.message ?? "\(error)", hint: failure?.hint)
        }
    }

    /// An order archive's entries, order, manifest and signature, each read as far as it can be.
    static func inspectOrder(_ path: String) -> Inspection {
        do {
            let opened = try OrderArchive(contentsOf: URL(fileURLWithPath: path))
            var inspection = Inspection(path: path, kind: .order, bytes: opened.byteCount, entries: opened.entries)
            do { inspection.order = try opened.order() } catch { inspection.orderError = "\(error)" }
            do { inspection.manifest = try opened.manifest().hashes } catch { inspection.manifestError = "\(error)" }
            do { inspection.signature = try opened.signatureInfo() } catch { inspection.signatureError = "\(error)" }
            return inspection
        } catch {
            let failure = error as? WalletOrdersError
            return Inspection(path: path, error: failure?.message ?? "\(error)", hint: failure?.hint)
        }
    }

    package func run() throws {
        let inspections = PathArguments.expand(paths).flatMap(Self.inspect)
        if json {
            try JSONOutput.print(Document(archives: inspections))
        } else {
            for inspection in inspections {
                if let error = inspection.error {
                    Terminal.reportError(error, hint: inspection.hint)
                } else {
                    Self.print(inspection)
                }
            }
        }
        if inspections.contains(where: { $0.error != nil }) { throw ExitCode.failure }
    }

    static func print(_ inspection: Inspection) {
        let archive = inspection.path
        let entries = inspection.entries ?? []
        let bold = { (text: String) in Terminal.styled(text, .bold) }
        Terminal.write("\(bold(archive)): \(inspection.bytes ?? 0) bytes, \(entries.count) entries")
        for entry in entries {
            let size = entry.isDirectory ? "dir" : "\(entry.uncompressedSize) B"
            Terminal.write(
                "  \(entry.path.padding(toLength: max(36, entry.path.count), withPad: " ", startingAt: 0)) \(size.padding(toLength: 10, withPad: " ", startingAt: 0)) \(entry.compression)"
            )
        }
        if inspection.kind == .pass {
            Terminal.write(bold("pass"))
            if let pass = inspection.pass {
                Terminal.write("  type:        \(pass.passTypeIdentifier ?? "(none)")")
                Terminal.write("  serial:      \(pass.serialNumber ?? "(none)")")
                Terminal.write("  team:        \(pass.teamIdentifier ?? "(none)")")
                Terminal.write("  organization: \(pass.organizationName ?? "(none)")")
                Terminal.write(
                    "  style:       \(pass.styles.isEmpty ? "(none)" : pass.styles.joined(separator: ", "))\(pass.hasNFC ? ", with nfc" : "")")
            } else {
                Terminal.write("  unreadable: \(inspection.passError ?? "")")
            }
        }
        if inspection.kind != .pass, let order = inspection.order {
            Terminal.write(bold("order"))
            Terminal.write("  identifier:  \(order.fullyQualifiedIdentifier)")
            Terminal.write("  status:      \(order.status)")
            Terminal.write("  merchant:    \(order.merchant.displayName) (\(order.merchant.merchantIdentifier))")
            Terminal.write("  created:     \(order.createdAt)")
            Terminal.write("  updated:     \(order.updatedAt)")
            if let total = order.payment?.total {
                Terminal.write("  total:       \(total.amount.text) \(total.currency)")
            }
            Terminal.write("  line items:  \(order.lineItems?.count ?? 0), fulfillments: \(order.fulfillments?.count ?? 0)")
        } else if inspection.kind != .pass {
            Terminal.write(bold("order"))
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
            Terminal.write(
                "  detached:    \(signature.isDetached ? "yes" : "no"), signers: \(signature.signerCount), certificates: \(signature.certificates.count)"
            )
        } else {
            Terminal.write("  unreadable: \(inspection.signatureError ?? "")")
        }
    }
}
