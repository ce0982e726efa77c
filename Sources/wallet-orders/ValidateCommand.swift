import ArgumentParser
import Foundation
import WalletOrders
import WalletPasses

/// `--format`: the library's ``ReportFormat`` as a command-line value.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif, junit
    var reportFormat: ReportFormat { ReportFormat(rawValue: rawValue) ?? .text }
}

/// `wallet-orders validate PATH…`
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate archives or source folders the way Wallet would, and say exactly why.",
        discussion: """
            PATH is a .order archive, a .pkpass pass, a .pkpasses bundle (each pass inside reported \
            on its own), a source folder (holding order.json or pass.json), a folder of archives \
            (searched recursively), or a glob ('out/*.pkpass'). Each report says which kind it \
            found. Archives get the full check: zip, manifest, signature, chain and the certificate \
            profile of their kind, then order.json or pass.json against its schema in Schemas/ and \
            every rule (`wallet-orders rules` lists them). Source folders get the content checks.

            Items are checked on every core (--jobs); reports come out in the order the paths \
            were given (folders and globs sorted), and one summary line ends the run: on stdout \
            with --format text, on stderr otherwise.

            --quiet prints only items that fail or have findings at --min-severity (default with \
            --quiet: warning), then the summary line: 2,000 clean archives print one line.

            Exit codes: 0 valid, 1 errors (or warnings with --strict), 64 usage error.

            Examples:
              wallet-orders validate Samples/store-pickup
              wallet-orders validate Samples/event-ticket-pass ticket.pkpass
              wallet-orders validate 'out/*.order' --trust-root certs/root-ca.pem --quiet
              wallet-orders validate out --format sarif > wallet-orders.sarif
              wallet-orders validate out --format junit --strict > junit.xml
            """
    )

    @Argument(help: ArgumentHelp("Archives, source folders, folders of archives, or globs.", valueName: "path"))
    var paths: [String]

    @Option(help: ArgumentHelp("Output format: text, json, sarif or junit.", valueName: "format"))
    var format: OutputFormat = .text

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @Option(name: .customLong("trust-root"), help: ArgumentHelp("Another trusted root certificate (PEM or DER); repeatable.", valueName: "file"))
    var trustRoots: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Items checked at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(name: [.customShort("q"), .long], help: "Print only findings and failures (and the summary line); clean items print nothing.")
    var quiet = false

    @Option(
        name: .customLong("min-severity"),
        help: ArgumentHelp("The least severe finding listed: error, warning or info (default: info; warning with --quiet).", valueName: "severity"))
    var minimumSeverity: Severity?

    /// `--min-severity`: the library's ``Diagnostic/Severity`` as a command-line value.
    enum Severity: String, ExpressibleByArgument, CaseIterable {
        case error, warning, info
        var severity: Diagnostic.Severity { Diagnostic.Severity(rawValue: rawValue) ?? .info }
    }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    }

    func run() async throws {
        let validator = try reportingFailures {
            let anchors = try TrustRoots.read(trustRoots)
            return try OrderValidator(verifier: OrderArchiveVerifier(additionalTrustAnchors: anchors))
        }
        let passValidator = try reportingFailures {
            try PassValidator(verifier: PassArchiveVerifier(additionalTrustAnchors: try TrustRoots.read(trustRoots)))
        }
        let targets = PathArguments.expand(paths)
        if targets.count > 1 { AllocatorTuning.forBatch() }
        let renderer = ReportRenderer(
            strict: strict, colors: format == .text && Terminal.colorsEnabled(on: .standardOutput),
            minimumSeverity: minimumSeverity?.severity ?? (quiet ? .warning : .info))
        let start = ContinuousClock.now
        // Missing paths get their report at once; the others (orders and passes alike) are
        // checked in parallel, and every report is printed (text) or kept (other formats) in the
        // order of `targets`.
        var checked: [(index: Int, target: PathArguments.Target)] = []
        var pending: [Int: ValidationReport] = [:]
        for (index, target) in targets.enumerated() {
            if case .missing = target {
                pending[index] = Self.validate(target, with: validator, passes: passValidator)
            } else {
                checked.append((index, target))
            }
        }
        var summary = Summary()
        var collected: [ValidationReport] = []
        var nextToPrint = 0
        // Text goes out a report at a time to a terminal, and in blocks of about 64 kB to a file
        // or pipe: one write per report cost as much as validating it.
        var text = ""
        let interactive = isatty(Terminal.Stream.standardOutput.descriptor) == 1
        func flush(final: Bool = false) {
            while let report = pending.removeValue(forKey: nextToPrint) {
                nextToPrint += 1
                summary.add(report, failing: renderer.fails(report))
                if format == .text {
                    // --quiet: an item that passes with nothing listed prints nothing.
                    if quiet && !renderer.fails(report) && renderer.listed(report).isEmpty { continue }
                    text += renderer.render([report], as: .text)  // each report's text ends with a newline
                } else {
                    collected.append(report)
                }
            }
            if !text.isEmpty && (final || interactive || text.utf8.count >= 65_536) {
                Terminal.write(text)
                text = ""
            }
        }
        flush()
        let concurrency = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let batch = BatchSequence(
            base: BatchSynchronousInputs(checked), maximumConcurrency: concurrency,
            inputsPerTask: batchInputsPerTask(count: checked.count, maximumConcurrency: concurrency)
        ) { item, _ in (item.index, CLIHints.annotated(Self.validate(item.target, with: validator, passes: passValidator))) }
        for try await (index, report) in batch {
            pending[index] = report
            flush()
        }
        flush(final: true)
        if format != .text {
            Terminal.write(renderer.render(collected, as: format.reportFormat).trimmingCharacters(in: .newlines))
        }
        let duration = ContinuousClock.now - start
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let allArchives = targets.allSatisfy {
            switch $0 {
            case .source, .passSource: false
            default: true
            }
        }
        Terminal.write(summary.line(noun: allArchives ? "archive" : "item", seconds: seconds), to: format == .text ? .standardOutput : .standardError)
        if summary.failed > 0 { throw ExitCode.failure }
    }

    /// The counts of the closing line.
    struct Summary {
        var checked = 0
        var passed = 0
        var failed = 0
        var withErrors = 0
        var withWarnings = 0

        mutating func add(_ report: ValidationReport, failing: Bool) {
            checked += 1
            if failing { failed += 1 } else { passed += 1 }
            if !report.errors.isEmpty { withErrors += 1 }
            if !report.warnings.isEmpty { withWarnings += 1 }
        }

        /// `12 archives, 10 passed, 1 with errors, 2 with warnings, 350.2 archives/s` (`1 archive, …`).
        func line(noun: String, seconds: Double) -> String {
            let rate = Double(checked) / max(seconds, 0.000_001)
            return "\(checked) \(noun)\(checked == 1 ? "" : "s"), \(passed) passed, \(withErrors) with errors, \(withWarnings) with warnings, "
                + "\(String(format: "%.1f", rate)) \(noun)s/s"
        }
    }

    /// The report of one target that is not an order checked in the parallel batch.
    static func validate(_ target: PathArguments.Target, with validator: OrderValidator, passes: PassValidator)
        -> ValidationReport
    {
        switch target {
        case .missing(let path, let reason):
            return PathArguments.missingReport(path, reason: reason)
        case .pass(let path):
            return passes.validate(archiveAt: path)
        case .passBundle(let path):
            return PassBundleFile.merged(PassBundleFile.validate(path, with: passes), path: path)
        case .passSource(let path):
            do {
                return passes.validate(try PassSource(directory: URL(fileURLWithPath: path)), subject: path)
            } catch {
                return .unreadable(path, error)
            }
        case .archive(let path):
            return validator.validate(archiveAt: path)
        case .source(let path):
            do {
                return validator.validate(try OrderSource(directory: URL(fileURLWithPath: path)), subject: path)
            } catch {
                return .unreadable(path, error)
            }
        }
    }
}

/// `wallet-orders rules`
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List every rule validate and verify check: id, severity and what it means.",
        discussion: """
            With RULE-IDs, explains only those rules; an id ending in '.' (or a group name such as \
            'schema') names every rule of its group.

            Examples:
              wallet-orders rules
              wallet-orders rules schema.enum
              wallet-orders rules content --json
              wallet-orders rules --json | jq '.[] | select(.severity == "error") | .id'
            """
    )

    @Argument(help: ArgumentHelp("Rules to explain (as printed in findings, e.g. schema.enum), or groups (schema).", valueName: "rule-id"))
    var ruleIDs: [String] = []

    @Flag(help: "Print as JSON.")
    var json = false

    @Flag(help: "Print as a Markdown article (the DocC Rules page).")
    var markdown = false

    func validate() throws {
        if json && markdown { throw ValidationError("Choose --json or --markdown, not both.") }
        if markdown && !ruleIDs.isEmpty { throw ValidationError("--markdown prints every rule; drop the rule ids or --markdown.") }
    }

    /// The rules `ids` name (every rule when none): exact ids, or groups by prefix.
    static func select(_ ids: [String]) throws -> [ValidationRule] {
        guard !ids.isEmpty else { return ValidationRule.all }
        var selected: [ValidationRule] = []
        for id in ids {
            let group = id.hasSuffix(".") ? id : id + "."
            let matches = ValidationRule.all.filter { $0.id == id || $0.id.hasPrefix(group) }
            guard !matches.isEmpty else {
                let suggestion = NearestName.suggestion(for: id, among: ValidationRule.all.map(\.id))
                throw WalletOrdersError(
                    .invalidConfiguration, "There is no rule '\(id)'.",
                    hint: (suggestion.map { "Did you mean '\($0)'? " } ?? "") + "`wallet-orders rules` lists every rule.")
            }
            selected += matches.filter { !selected.contains($0) }
        }
        return selected
    }

    func run() throws {
        let rules = try reportingFailures { try Self.select(ruleIDs) }
        if json {
            try JSONOutput.print(rules)
            return
        }
        if markdown {
            Terminal.write(ValidationRule.markdownArticle)
            return
        }
        for rule in rules {
            let style: Terminal.Style = rule.severity == .error ? .red : rule.severity == .warning ? .yellow : .cyan
            Terminal.write("\(Terminal.styled(rule.id, .bold))  \(Terminal.styled(rule.severity.rawValue, style))")
            Terminal.write("  \(rule.summary)")
            Terminal.write("  \(rule.explanation)\n")
        }
        Terminal.write("\(rules.count) rule\(rules.count == 1 ? "" : "s").")
    }
}
