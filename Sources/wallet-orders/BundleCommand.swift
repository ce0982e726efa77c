import ArgumentParser
import Foundation
import WalletOrders
import WalletPasses

/// `wallet-orders bundle PASS… --out FILE.pkpasses`
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Put several passes into one .pkpasses bundle, which Safari and Mail add to Wallet at once.",
        discussion: """
            Each PASS is a .pkpass file (such as build writes), put into the bundle as it is, under \
            its file name, in the order given; a bundle holds 1 to 10 passes and 150 MB at most \
            (Apple's limits). Each pass is verified first (as verify does, with --trust-root for \
            development certificates), and the bundle is not written when one has an error: Wallet \
            adds each pass of a bundle on its own merits. Serve the bundle as \
            application/vnd.apple.pkpasses.

            \(OutputTarget.policy)

            Examples:
              wallet-orders bundle outbound.pkpass return.pkpass --out trip.pkpasses
              wallet-orders bundle 'tickets/*.pkpass' --out tickets.pkpasses \\
                  --trust-root certs/root-ca.pem
            """
    )

    @Argument(help: ArgumentHelp("The .pkpass files, or quoted globs.", valueName: "pass"))
    var passes: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the bundle, '-' for standard output.", valueName: "file.pkpasses"))
    var out: String

    @Option(
        name: .customLong("trust-root"),
        help: ArgumentHelp("Another trusted root certificate (PEM or DER); repeatable. Apple Root CA is always trusted.", valueName: "file"))
    var trustRoots: [String] = []

    func run() throws {
        let verifier = try reportingFailures { try PassArchiveVerifier(additionalTrustAnchors: try TrustRoots.read(trustRoots)) }
        var members: [PassBundle.Member] = []
        var failed: [ValidationReport] = []
        for target in PathArguments.expand(passes) {
            if case .missing(let path, let reason) = target {
                failed.append(PathArguments.missingReport(path, reason: reason))
                continue
            }
            guard case .pass(let path) = target else {
                failed.append(
                    .unreadable(
                        target.path,
                        WalletOrdersError(.fileAccess, "'\(target.path)' is not a .pkpass file.", hint: "Give the .pkpass files to bundle.")))
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try BoundedFile.read(path, as: .passArchive)
            } catch {
                failed.append(.unreadable(path, error))
                continue
            }
            let report = verifier.verify(archiveBytes: bytes, subject: path)
            if !report.isValid { failed.append(report) }
            members.append(PassBundle.Member(name: URL(fileURLWithPath: path).lastPathComponent, bytes: bytes))
        }
        if !failed.isEmpty {
            for report in failed { ReportPrinter.print(report) }
            Terminal.reportError(
                "\(failed.count) pass\(failed.count == 1 ? "" : "es") can't go into the bundle; nothing was written.",
                hint: "Fix them (Wallet would refuse them), or leave them out.")
            throw ExitCode.failure
        }
        try reportingFailures {
            let output = OutputTarget(out)
            let bundle = try PassBundle.make(members)
            try output.write(bundle)
            Terminal.write(
                "\(Terminal.styled("bundled", .green, on: output.messages)) \(members.count) pass\(members.count == 1 ? "" : "es") into \(output): \(bundle.count) bytes",
                to: output.messages)
        }
    }
}
