package import ArgumentParser
import Foundation
import WalletOrders

/// `wallet-orders verify FILE.order…`
package struct VerifyCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify archives: zip safety, manifest, signature and certificate chain.",
        discussion: """
            Paths are read as validate reads them: archives, folders searched for *.order, and \
            quoted globs ('out/*.order'). Every finding is listed with its rule id, the file it \
            concerns and a hint. --json prints the document validate --format json prints. \
            Exit code 0 when every archive verifies without errors, 1 otherwise.

            Examples:
              wallet-orders verify order.order
              wallet-orders verify 'out/*.order' --trust-root certs/root-ca.pem --json
            """
    )

    @Argument(help: ArgumentHelp("Archives, folders of archives, or quoted globs (as validate takes them).", valueName: "path"))
    package var archives: [String]

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp("Another trusted root certificate (PEM or DER); repeatable. Apple Root CA is always trusted.", valueName: "file"))
    package var trustRoots: [String] = []

    @Flag(help: "Print the reports as JSON, the document `validate --format json` prints (Schemas/validation-report.schema.json).")
    package var json = false

    package func run() throws {
        let verifier = try reportingFailures {
            let anchors = try TrustRoots.read(trustRoots)
            return try OrderArchiveVerifier(additionalTrustAnchors: anchors)
        }
        let reports = PathArguments.expand(archives).map { target -> ValidationReport in
            switch target {
            case .archive(let path): CLIHints.annotated(verifier.verify(archiveAt: path))
            case .source(let path): PathArguments.sourceFolderReport(path, command: "verify")
            case .missing(let path, let reason): PathArguments.missingReport(path, reason: reason)
            }
        }
        if json {
            Terminal.write(ReportRenderer().render(reports, as: .json).trimmingCharacters(in: .newlines))
        } else {
            for report in reports { ReportPrinter.print(report) }
        }
        if reports.contains(where: { !$0.isValid }) { throw ExitCode.failure }
    }
}

/// Prints a report for people.
enum ReportPrinter {
    static func print(_ report: ValidationReport) {
        let errors = report.errors.count
        let warnings = report.warnings.count
        let verdict =
            errors > 0
            ? Terminal.styled("FAILED", .red) : Terminal.styled(warnings > 0 ? "OK with warnings" : "OK", .green)
        Terminal.write("\(report.subject): \(verdict) (\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"))")
        for diagnostic in report.diagnostics {
            let style: Terminal.Style = diagnostic.severity == .error ? .red : diagnostic.severity == .warning ? .yellow : .dim
            Terminal.write(
                "  \(diagnostic.location): \(Terminal.styled("\(diagnostic.severity)[\(diagnostic.ruleID)]", style)): \(diagnostic.message)")
            if let hint = diagnostic.hint { Terminal.write("    \(Terminal.styled("hint:", .cyan)) \(hint)") }
        }
    }
}
