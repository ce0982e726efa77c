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
            certificate for each sample's orderTypeIdentifier, builds every sample into a signed \
            archive, verifies each one, and prints a table. Then saves every archive into a fresh \
            order store (orders.sqlite in the output folder) and asks it `contains` each of the \
            four ways FinanceKit answers.

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
        var verdict: String
        var isValid: Bool
    }

    package func run() async throws {
        let (rows, outURL, verifier) = try reportingFailures { try runDemo() }
        if rows.contains(where: { !$0.isValid }) { throw ExitCode.failure }
        try await reportingFailuresAsync { try await storeDemo(rows, in: outURL, verifier: verifier) }
    }

    /// Saves every archive into a fresh store and asks `contains` the four ways.
    private func storeDemo(_ rows: [Row], in outURL: URL, verifier: OrderArchiveVerifier) async throws {
        let storeURL = outURL.appendingPathComponent("orders.sqlite")
        try? FileManager.default.removeItem(at: storeURL)
        let store = try SQLiteOrderStore(url: storeURL)
        defer { try? store.close() }
        let intake = OrderIntake(validator: try OrderValidator(verifier: verifier), store: store)
        let archives = try rows.map { row -> [UInt8] in
            Array(try Data(contentsOf: outURL.appendingPathComponent("\(row.sample).order")))
        }
        Terminal.write("\nSaving every archive into a fresh order store, \(storeURL.path):")
        let receipts = try await intake.save(signedArchives: archives)
        var first: OrderSaveReceipt?
        for (row, result) in zip(rows, receipts) {
            switch result {
            case .success(let receipt):
                first = first ?? receipt
                Terminal.write(
                    "  \(receipt.result.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \(receipt.identifier)  (\(row.sample))")
            case .failure(let error):
                throw error
            }
        }
        guard let first else { return }
        let again = try await intake.save(signedArchive: archives[0])
        Terminal.write("  saving \(rows[0].sample) again: \(again.rawValue) (idempotent)")

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
            let answer = try await store.contains(matching: identifier, updatedDate: date)
            Terminal.write(
                "  \(answer.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(identifier) at \(date.map(\.text) ?? "any version") (\(label))"
            )
        }
        Terminal.write("\nTry: wallet-orders store list --store \(storeURL.path)")
    }

    private func runDemo() throws -> ([Row], URL, OrderArchiveVerifier) {
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

        var identities: [String: SigningIdentity] = [:]
        var rows: [Row] = []
        let signingTime = Date()
        for folder in folders {
            let source = try OrderSource(directory: samplesURL.appendingPathComponent(folder))
            let typeIdentifier = try Order.decode(from: Data(source.orderJSON ?? [])).orderTypeIdentifier
            let identity: SigningIdentity
            if let known = identities[typeIdentifier] {
                identity = known
            } else {
                identity = try authority.issueOrderTypeCertificate(orderTypeIdentifier: typeIdentifier, teamIdentifier: "DEMOTEAM01")
                    .signingIdentity()
                identities[typeIdentifier] = identity
            }
            let built = try OrderArchiveBuilder(identity: identity).build(source, signingTime: signingTime)
            let archiveURL = outURL.appendingPathComponent("\(folder).order")
            try OutputTarget.path(archiveURL.path).write(built.bytes)
            let report = verifier.verify(archiveBytes: built.bytes, subject: archiveURL.path)
            let entries = (try? OrderArchive(bytes: built.bytes).entries.count) ?? 0
            let verdict =
                report.isValid
                ? (report.warnings.isEmpty ? "verified" : "verified, \(report.warnings.count) warning(s)")
                : "FAILED: \(report.errors.map(\.ruleID).joined(separator: ", "))"
            rows.append(
                Row(
                    sample: folder, bytes: built.bytes.count, entries: entries,
                    signedBy: identity.orderTypeIdentifier ?? "?", verdict: verdict, isValid: report.isValid))
            if !report.isValid { ReportPrinter.print(report) }
        }
        printTable(rows)
        Terminal.write("\nArchives and root-ca.pem are in \(outURL.path). Check them yourself:")
        Terminal.write("  wallet-orders verify \(outURL.path)/*.order --trust-root \(rootPath.path)")
        Terminal.write("  wallet-orders inspect \(outURL.path)/\(folders[0]).order")
        return (rows, outURL, verifier)
    }

    private func printTable(_ rows: [Row]) {
        let header = ["sample", "size", "entries", "signed by", "verdict"]
        let cells = rows.map { [$0.sample, "\($0.bytes) B", "\($0.entries)", $0.signedBy, $0.verdict] }
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
