package import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore

/// `wallet-orders demo`: the whole pipeline on the samples, with test certificates.
package struct DemoCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build, sign and verify every sample with freshly made TEST-ONLY certificates.",
        discussion: """
            Makes a development certificate chain in the output folder, issues an Order Type ID \
            certificate for each sample's orderTypeIdentifier, and takes every sample in the way \
            `build` and the service do: validated, signed, and saved into a fresh order store \
            (orders.sqlite in the output folder). Verifies each archive it wrote and prints a \
            table, then asks the store `contains` each of the four ways FinanceKit answers.

            Example:
              wallet-orders demo --samples Samples --out /tmp/wallet-orders-demo
            """
    )

    @Option(help: ArgumentHelp("The folder of sample sources (one subfolder per order).", valueName: "dir"))
    package var samples = "Samples"

    @Option(help: ArgumentHelp("Where to write certificates and archives (default: a new temporary folder).", valueName: "dir"))
    package var out: String?

    struct Row {
        var sample: String
        var bytes: Int
        var entries: Int
        var signedBy: String
        var saved: String
        var verdict: String
        var isValid: Bool
    }

    package func run() async throws {
        let demo = try await reportingFailuresAsync { try await runDemo() }
        defer { try? demo.store.close() }
        if demo.rows.contains(where: { !$0.isValid }) { throw ExitCode.failure }
        try await reportingFailuresAsync { try await askStore(demo) }
    }

    /// What the first part of the demo made.
    private struct Made {
        var rows: [Row]
        var receipts: [OrderSaveReceipt]
        var archives: [[UInt8]]
        var intake: OrderIntake
        var store: SQLiteOrderStore
        var storeURL: URL
    }

    /// Makes the certificates, then takes every sample in through the intake (validate → sign →
    /// save, as `build` and the service do) and verifies each archive it wrote on its own.
    private func runDemo() async throws -> Made {
        let samplesURL = URL(fileURLWithPath: samples)
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: samplesURL.path)) ?? []).sorted().filter {
            FileManager.default.fileExists(atPath: samplesURL.appendingPathComponent($0).appendingPathComponent("order.json").path)
        }
        guard !folders.isEmpty else {
            throw WalletOrdersError(
                .invalidSource, "No sample folders with an order.json in '\(samples)'.",
                hint: "Run from the repository root, or pass --samples DIR.")
        }
        let outURL = URL(
            fileURLWithPath: out
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("wallet-orders-demo-\(UUID().uuidString.prefix(8))").path)
        try OutputTarget.makeFolder(outURL.path)

        Terminal.write("Making a TEST-ONLY certificate chain in \(outURL.path) …")
        let authority = try DevelopmentCertificateAuthority()
        let rootPath = outURL.appendingPathComponent("root-ca.pem")
        try OutputTarget.path(rootPath.path).write(Array(authority.rootCertificatePEM.utf8))
        let verifier = try OrderArchiveVerifier(additionalTrustAnchors: [Array(authority.rootCertificatePEM.utf8)])

        let storeURL = outURL.appendingPathComponent("orders.sqlite")
        try? FileManager.default.removeItem(at: storeURL)
        let store = try SQLiteOrderStore(url: storeURL)
        let intake = OrderIntake(validator: try OrderValidator(verifier: verifier), store: store)
        Terminal.write("Validating, signing and saving every sample through the intake into a fresh order store, \(storeURL.path) …")

        var identities: [String: SigningIdentity] = [:]
        var made = Made(rows: [], receipts: [], archives: [], intake: intake, store: store, storeURL: storeURL)
        let signingTime = Date()
        for folder in folders {
            let source = try OrderSource(directory: samplesURL.appendingPathComponent(folder))
            let result = try await intake.submit(
                source: source,
                signer: { typeIdentifier in
                    if let known = identities[typeIdentifier] { return OrderIntake.Signer(builder: OrderArchiveBuilder(identity: known)) }
                    let identity = try authority.issueOrderTypeCertificate(orderTypeIdentifier: typeIdentifier, teamIdentifier: "DEMOTEAM01")
                        .signingIdentity()
                    identities[typeIdentifier] = identity
                    return OrderIntake.Signer(builder: OrderArchiveBuilder(identity: identity))
                }, signingTime: signingTime, subject: folder)
            switch result.outcome {
            case .refused(let refusal, _):
                made.rows.append(
                    Row(
                        sample: folder, bytes: 0, entries: 0, signedBy: "-", saved: "-",
                        verdict:
                            "REFUSED: \(result.report.errors.isEmpty ? refusal.code.rawValue : result.report.errors.map(\.ruleID).joined(separator: ", "))",
                        isValid: false))
                if result.report.errors.isEmpty {
                    Terminal.write("\(folder): \(refusal.message)", to: .standardError)
                } else {
                    ReportPrinter.print(result.report)
                }
            case .taken(let saved):
                let bytes = saved.archive.bytes
                let archiveURL = outURL.appendingPathComponent("\(folder).order")
                try OutputTarget.path(archiveURL.path).write(bytes)
                // Verified again from the bytes on disk, by the verifier alone: what anyone can check.
                let report = verifier.verify(archiveBytes: bytes, subject: archiveURL.path)
                let verdict =
                    report.isValid
                    ? (report.warnings.isEmpty ? "verified" : "verified, \(report.warnings.count) warning(s)")
                    : "FAILED: \(report.errors.map(\.ruleID).joined(separator: ", "))"
                made.rows.append(
                    Row(
                        sample: folder, bytes: bytes.count, entries: (try? OrderArchive(bytes: bytes).entries.count) ?? 0,
                        signedBy: saved.receipt.identifier.orderTypeIdentifier, saved: saved.receipt.result.rawValue,
                        verdict: verdict, isValid: report.isValid))
                made.receipts.append(saved.receipt)
                made.archives.append(bytes)
                if !report.isValid { ReportPrinter.print(report) }
            }
        }
        printTable(made.rows)
        Terminal.write("\nArchives and root-ca.pem are in \(outURL.path). Check them yourself:")
        Terminal.write("  wallet-orders verify \(outURL.path)/*.order --trust-root \(rootPath.path)")
        if let taken = made.rows.first(where: \.isValid) {
            Terminal.write("  wallet-orders inspect \(outURL.path)/\(taken.sample).order")
        }
        return made
    }

    /// Saves the first archive again, then asks the store `contains` the four ways.
    private func askStore(_ made: Made) async throws {
        guard let first = made.receipts.first, let bytes = made.archives.first else { return }
        let again = try await made.intake.save(signedArchive: bytes)
        Terminal.write("\nSaving \(made.rows[0].sample) again: \(again.rawValue) (idempotent)")

        let at = first.updatedAt
        let earlier = Timestamp(secondsSince1970: at.secondsSince1970 - 86_400, nanoseconds: at.nanoseconds)
        let later = Timestamp(secondsSince1970: at.secondsSince1970 + 1, nanoseconds: at.nanoseconds)
        let unknown = FullyQualifiedOrderIdentifier(orderTypeIdentifier: first.identifier.orderTypeIdentifier, orderIdentifier: "no-such-order")
        let questions: [(FullyQualifiedOrderIdentifier, Timestamp?, String)] = [
            (first.identifier, at, "its own updatedAt"),
            (first.identifier, earlier, "a day earlier"),
            (first.identifier, later, "a second later"),
            (unknown, nil, "an order never saved"),
        ]
        Terminal.write("\nAsking the store what FinanceKit's contains(matching:updatedDate:) would answer:")
        for (identifier, date, label) in questions {
            let answer = try await made.store.contains(matching: identifier, updatedDate: date)
            Terminal.write(
                "  \(answer.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(identifier) at \(date.map(\.text) ?? "any version") (\(label))"
            )
        }
        Terminal.write("\nTry: wallet-orders store list --store \(made.storeURL.path)")
    }

    private func printTable(_ rows: [Row]) {
        let header = ["sample", "size", "entries", "signed by", "store", "verdict"]
        let cells = rows.map { [$0.sample, "\($0.bytes) B", "\($0.entries)", $0.signedBy, $0.saved, $0.verdict] }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        Terminal.write("")
        Terminal.write(Terminal.styled(line(header), .bold))
        Terminal.write(line(widths.map { String(repeating: "-", count: $0) }))
        for (row, values) in zip(rows, cells) {
            let text = line(values)
            Terminal.write(row.isValid ? text : Terminal.styled(text, .red))
        }
    }
}
