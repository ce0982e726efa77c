package import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletPasses

/// `wallet-orders build SOURCE --out FILE.order …` and
/// `wallet-orders build --batch INPUT --template DIR --out DIR …` (BatchBuild.swift).
package struct BuildCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Package and sign an order or pass source folder into a .order or .pkpass archive, or many orders at once.",
        discussion: """
            SOURCE holds order.json, its images and its .lproj folders. Junk (.DS_Store, __MACOSX/, \
            dotfiles, an old manifest.json or signature) is skipped and listed. The source is \
            validated first (as `wallet-orders validate SOURCE` does); errors stop the build unless \
            --no-validate.

            A SOURCE holding pass.json (a pass folder, or a Pass Designer .pkpasstemplate) builds \
            a .pkpass: a SHA-1 manifest, as Wallet requires, signed with a Pass Type ID \
            certificate whose pass-type marker names passTypeIdentifier and whose OU is \
            teamIdentifier (anything else is refused before signing). Check the result with \
            `wallet-orders verify`.

            The output is reproducible: the same files, identity and signing time give a \
            byte-identical archive. The signing time is --signing-time, else SOURCE_DATE_EPOCH, \
            else now.

            Examples:
              wallet-orders build Samples/store-pickup --out pickup.order \\
                  --cert order-type.pem --key order-type.key.pem --wwdr AppleWWDRCAG4.cer
              wallet-orders build my-pass --out my.pkpass \\
                  --cert pass-type.pem --key pass-type.key.pem --wwdr AppleWWDRCAG4.cer
              ORDER_P12_PASS=… wallet-orders build my-order --out my.order \\
                  --p12 OrderTypeID.p12 --passphrase-env ORDER_P12_PASS \\
                  --wwdr AppleWWDRCAG4.cer

            Batch: --batch INPUT builds many orders that share the files of \
            --template DIR (images, .lproj folders; an order.json there is ignored) \
            into the folder --out, on every core (--jobs). INPUT is a JSON Lines \
            file (one order.json document per line; blank lines ignored; '-' reads \
            standard input) or a folder of *.json order files. Each archive is \
            named from its orderIdentifier: letters, digits, '-', '_' and '.' are \
            kept, any other byte becomes %XX, a leading '.' becomes %2E, '.order' \
            is appended ('../../etc/passwd' -> '%2E.%2F..%2Fetc%2Fpasswd.order'). \
            When two orders get the same name (compared without case), the one \
            earlier in INPUT is written and the later one fails. Each archive is \
            written as --out FILE is (below). A bad order is \
            reported with its line number (or file name) and the others still \
            build; the exit code is 1 if any failed. Progress goes to stderr: a \
            bar on a terminal, a line every 5 seconds otherwise, nothing with \
            --quiet; the summary line is printed either way. --skip-existing leaves an \
            archive already in --out untouched (a nightly re-run writes only new orders). A \
            validation error in a JSON Lines order is placed in INPUT at the order's line \
            (orders.jsonl:4:247).

              wallet-orders build --batch orders.jsonl --out out/ \\
                  --template Samples/shipped-ecommerce \\
                  --cert order-type.pem --key order-type.key.pem --wwdr wwdr.pem

            With a --template holding pass.json, the batch builds passes: each line (or file) \
            is a JSON object of the fields of one pass, merged into the template's pass.json as \
            a JSON Merge Patch (RFC 7396: objects merge, other values replace, null removes), \
            such as {"serialNumber": "T-42", "barcodes": [{"format": "PKBarcodeFormatQR", \
            "message": "T-42", "messageEncoding": "iso-8859-1"}]}. Each pass is validated, \
            signed with the Pass Type ID certificate, and named from its serialNumber \
            (the rule above, '.pkpass' appended).

              wallet-orders build --batch tickets.jsonl --out tickets/ \\
                  --template ticket-template \\
                  --cert pass-type.pem --key pass-type.key.pem --wwdr wwdr.pem

            \(OutputTarget.policy) \
            --out may not be inside SOURCE (nor, with --batch, inside --template); \
            real paths are compared, so symbolic links and '..' don't get around it.
            """
    )

    @Argument(help: ArgumentHelp("The order or pass source folder (not with --batch).", valueName: "source"))
    package var source: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Where to write the archive, '-' for standard output (with --batch: the output folder).", valueName: "file.order"))
    package var out: String

    @Option(help: ArgumentHelp("Build many orders: a JSON Lines file, '-' for standard input, or a folder of *.json files.", valueName: "input"))
    var batch: String?

    @Option(help: ArgumentHelp("With --batch: the folder of files every order shares (images, .lproj folders).", valueName: "dir"))
    var template: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --batch: orders built at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "With --batch: no progress, notes or warnings; failures and the summary line are still printed.")
    var quiet = false

    @Flag(
        name: .customLong("skip-existing"),
        help: "With --batch: leave an archive already in --out as it is (counted as skipped) instead of replacing it.")
    var skipExisting = false

    @Option(help: .hidden)
    var progressInterval: Double = 5

    @OptionGroup package var signing: SigningOptions

    @Option(help: ArgumentHelp("Signing time: RFC 3339 (2026-01-31T12:00:00Z) or Unix seconds.", valueName: "time"))
    package var signingTime: String?

    @Option(
        help: ArgumentHelp("deflate (smaller archives) or store (fastest build); images and the signature are always stored.", valueName: "method"))
    package var compression: CompressionArgument = .deflate

    @Flag(help: "Sign even when validation finds errors (not recommended: Wallet will refuse the order).")
    var noValidate = false

    @Flag(help: "Print the result as JSON.")
    package var json = false

    @Flag(help: "Print underlying OpenSSL/libzip errors.")
    package var verbose = false

    package func validate() throws {
        _ = try SigningTime.resolve(signingTime)  // a bad --signing-time or SOURCE_DATE_EPOCH is a usage error
        switch (source, batch) {
        case (nil, nil): throw ValidationError("Give a source folder, or --batch INPUT for many orders.")
        case (.some, .some): throw ValidationError("Give a source folder or --batch INPUT, not both.")
        case (.some, nil):
            if template != nil || jobs != nil || quiet || skipExisting {
                throw ValidationError("--template, --jobs, --quiet and --skip-existing go with --batch.")
            }
            if json && out == "-" {
                throw ValidationError("--json and --out - both write to standard output; give --out a file name, or drop --json.")
            }
        case (nil, .some):
            if json { throw ValidationError("--json is not available with --batch.") }
            if out == "-" { throw ValidationError("With --batch, --out is a folder; '-' (standard output) can't hold many archives.") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        }
    }

    package func run() async throws {
        if let batch {
            try await BatchBuild(command: self, input: batch).run()
            return
        }
        let source = self.source ?? ""
        let time = try SigningTime.resolve(signingTime)
        let output = OutputTarget(out)
        if FileManager.default.fileExists(atPath: source + "/pass.json") && !FileManager.default.fileExists(atPath: source + "/order.json") {
            try buildPass(source, time: time, output: output)
            return
        }
        try await reportingFailuresAsync(verbose: verbose) {
            try output.check(notInside: source)
            let identity = try signing.loadIdentity(validAt: time)
            let orderSource = try OrderSource(directory: URL(fileURLWithPath: source))
            let builder = OrderArchiveBuilder(identity: identity, compression: compression.compression)
            let built: BuiltOrderArchive
            if noValidate {
                built = try builder.build(orderSource, signingTime: time)
            } else {
                // The intake validates before signing (nothing is signed when there are errors);
                // without a store, the archive is ours to write.
                let result = try OrderIntake(validator: OrderValidator()).prepare(
                    source: orderSource, builder: builder, signingTime: time, subject: source)
                let report = result.report
                switch result.outcome {
                case .taken(let signed):
                    for warning in report.warnings {
                        Terminal.reportWarning("\(ReportRenderer.path(of: warning, in: report)): [\(warning.ruleID)] \(warning.message)")
                    }
                    built = signed.built
                case .refused(let refusal, _):
                    guard !report.isValid else { throw refusal }  // a build error: bundle too large, a certificate not valid then
                    Terminal.write(ReportRenderer(colors: Terminal.colorsEnabled(on: .standardError)).render([report], as: .text), to: .standardError)
                    throw WalletOrdersError(
                        .validationFailed,
                        "'\(source)' has \(report.errors.count) error\(report.errors.count == 1 ? "" : "s"); the order was not signed.",
                        hint: "Fix them: Wallet would refuse the order.")
                }
            }
            try output.write(built.bytes)
            if json {
                try JSONOutput.print(BuildSummary(built, path: out, fileCount: orderSource.files.count))
                return
            }
            for diagnostic in built.diagnostics where diagnostic.severity != .info {
                Terminal.reportWarning("\(diagnostic.message)\(diagnostic.hint.map { " (\($0))" } ?? "")")
            }
            for diagnostic in built.diagnostics where diagnostic.severity == .info {
                Terminal.write(Terminal.styled("note:", .dim, on: .standardError) + " " + diagnostic.message, to: .standardError)
            }
            Terminal.write(
                "\(Terminal.styled("built", .green, on: output.messages)) \(output): \(built.bytes.count) bytes, \(orderSource.files.count + 2) files, order \(built.orderIdentifier), signed by \(identity.certificateSummary.commonName ?? identity.certificateSummary.subject)",
                to: output.messages)
        }
    }
}

extension BuildCommand {
    /// Builds the pass source folder `source`: the builder checks that the certificate is a
    /// Pass Type ID certificate for the pass's type and team before it signs.
    func buildPass(_ source: String, time: Date, output: OutputTarget) throws {
        try reportingFailures(verbose: verbose) {
            try output.check(notInside: source)
            let identity = try signing.loadIdentity(validAt: time, for: .pass)
            let passSource = try PassSource(directory: URL(fileURLWithPath: source))
            let built = try PassArchiveBuilder(identity: identity, compression: compression.compression).build(passSource, signingTime: time)
            try output.write(built.bytes)
            if json {
                try JSONOutput.print(BuildSummary(built, path: out, fileCount: passSource.files.count))
                return
            }
            for diagnostic in built.diagnostics {
                Terminal.write(Terminal.styled("note:", .dim, on: .standardError) + " " + diagnostic.message, to: .standardError)
            }
            Terminal.write(
                "\(Terminal.styled("built", .green, on: output.messages)) \(output): \(built.bytes.count) bytes, \(passSource.files.count + 2) files, pass \(built.passTypeIdentifier)/\(built.serialNumber ?? "(no serial)"), signed by \(identity.certificateSummary.commonName ?? identity.certificateSummary.subject)",
                to: output.messages)
        }
    }
}

/// The `build --json` output.
struct BuildSummary: Encodable {
    var path: String
    /// `order` or `pass`.
    var kind: ArchiveKind
    var bytes: Int
    var files: Int
    var orderTypeIdentifier: String?
    var orderIdentifier: String?
    var passTypeIdentifier: String?
    var serialNumber: String?
    var signingTime: Date
    var manifest: [String: String]
    var diagnostics: [Diagnostic]

    init(_ built: BuiltOrderArchive, path: String, fileCount: Int) {
        self.path = path
        self.kind = .order
        self.bytes = built.bytes.count
        self.files = fileCount + 2
        self.orderTypeIdentifier = built.orderIdentifier.orderTypeIdentifier
        self.orderIdentifier = built.orderIdentifier.orderIdentifier
        self.signingTime = built.signingTime
        self.manifest = built.manifest.hashes
        self.diagnostics = built.diagnostics
    }

    init(_ built: BuiltPassArchive, path: String, fileCount: Int) {
        self.path = path
        self.kind = .pass
        self.bytes = built.bytes.count
        self.files = fileCount + 2
        self.passTypeIdentifier = built.passTypeIdentifier
        self.serialNumber = built.serialNumber
        self.signingTime = built.signingTime
        self.manifest = built.manifest.hashes
        self.diagnostics = built.diagnostics
    }
}

/// `--compression`: the library's ``ArchiveCompression`` as a command-line value.
package enum CompressionArgument: String, ExpressibleByArgument, CaseIterable {
    case deflate, store

    var compression: ArchiveCompression { self == .deflate ? .deflate : .store }
}
