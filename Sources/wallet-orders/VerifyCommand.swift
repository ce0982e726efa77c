package import ArgumentParser
import Foundation
import WalletOrders
import WalletPasses

/// `wallet-orders verify FILE.order…`
package struct VerifyCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify orders and passes: zip safety, manifest, signature and certificate chain.",
        discussion: """
            Paths are read as validate reads them: .order archives, .pkpass passes, .pkpasses \
            bundles (each pass inside reported on its own), folders searched for them, and \
            quoted globs ('out/*.order'). Each report says which kind it found. Passes are checked \
            against Apple's Pass Type ID profile: the certificate's pass-type marker must name \
            passTypeIdentifier, its subject OU teamIdentifier, and a pass with nfc needs the \
            NFC-enabled certificate. Every finding is listed with its rule id, the file it \
            concerns and a hint. --json prints the document validate --format json prints. \
            Exit code 0 when every archive verifies without errors, 1 otherwise.

            Examples:
              wallet-orders verify order.order
              wallet-orders verify ticket.pkpass tickets.pkpasses
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
        let (verifier, passVerifier) = try reportingFailures {
            let anchors = try TrustRoots.read(trustRoots)
            return (try OrderArchiveVerifier(additionalTrustAnchors: anchors), try PassArchiveVerifier(additionalTrustAnchors: anchors))
        }
        let reports = PathArguments.expand(archives).flatMap { target -> [ValidationReport] in
            switch target {
            case .archive(let path): [CLIHints.annotated(verifier.verify(archiveAt: path))]
            case .source(let path): [PathArguments.sourceFolderReport(path, command: "verify")]
            case .pass(let path): [passVerifier.verify(archiveAt: path)]
            case .passBundle(let path): PassBundleFile.verify(path, with: passVerifier)
            case .passSource(let path): [PathArguments.sourceFolderReport(path, command: "verify", kind: .pass)]
            case .missing(let path, let reason): [PathArguments.missingReport(path, reason: reason)]
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

/// A `.pkpasses` file read within its limit, then each pass checked on its own.
enum PassBundleFile {
    static func verify(_ path: String, with verifier: PassArchiveVerifier) -> [ValidationReport] {
        read(path) { PassBundle.verify(bytes: $0, subject: path, with: verifier) }
    }

    static func validate(_ path: String, with validator: PassValidator) -> [ValidationReport] {
        read(path) { PassBundle.validate(bytes: $0, subject: path, with: validator) }
    }

    private static func read(_ path: String, _ check: ([UInt8]) -> [ValidationReport]) -> [ValidationReport] {
        do {
            return check(try BoundedFile.read(path, as: .passArchive))
        } catch {
            return [.unreadable(path, error)]
        }
    }

    /// The bundle's reports as one report of `path`: each finding's file named inside its pass
    /// (`ticket.pkpass/pass.json`).
    static func merged(_ reports: [ValidationReport], path: String) -> ValidationReport {
        var merged = ValidationReport(subject: path, kind: .pass)
        for report in reports {
            let member = report.subject.hasPrefix(path + "/") ? String(report.subject.dropFirst(path.count + 1)) : nil
            for var diagnostic in report.diagnostics {
                if let member { diagnostic.location.file = member + (diagnostic.location.file.map { "/" + $0 } ?? "") }
                merged.diagnostics.append(diagnostic)
            }
        }
        return merged
    }
}
