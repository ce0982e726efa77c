import ArgumentParser
import Foundation
import WalletOrders
import WalletOrdersIntake
import WalletPasses

/// `wallet-orders build --batch INPUT --template DIR --out DIR`: many orders (or, with a pass
/// template, many passes), every core, bounded memory, one failure never stopping the others.
struct BatchBuild {
    let command: BuildCommand
    let input: String

    /// Passes when the template holds pass.json, orders otherwise.
    var kind: ArchiveKind {
        guard let template = command.template else { return .order }
        return FileManager.default.fileExists(atPath: template + "/pass.json") ? .pass : .order
    }

    func run() async throws {
        AllocatorTuning.forBatch()
        let time = try SigningTime.resolve(command.signingTime)
        let jobs = command.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        if input == "-" && StandardStream.wasClosed(0) {
            Terminal.reportError(
                "Standard input is closed; no orders can be read from it.",
                hint: "Pipe JSON Lines into the command (… --batch - < orders.jsonl), or give --batch a file or a folder.")
            throw ExitCode.failure
        }
        let kind = kind
        let (builder, outFolder) = try reportingFailures(verbose: command.verbose) { () throws -> (Builder, String) in
            let identity = try command.signing.loadIdentity(validAt: time, for: kind)
            let skippedFiles: [SkippedSourceFile]
            let builder: Builder
            if kind == .pass, let folder = command.template {
                let template = try PassTemplate(directory: URL(fileURLWithPath: folder))
                skippedFiles = template.source.skippedFiles
                builder = .passes(
                    try PassBatchBuilder(
                        identity: identity, template: template, signingTime: time, validate: !command.noValidate, maximumConcurrency: jobs,
                        compression: command.compression.compression))
            } else {
                let template = try command.template.map { try OrderBatchTemplate(directory: URL(fileURLWithPath: $0)) } ?? OrderBatchTemplate()
                skippedFiles = template.skippedFiles
                builder = .orders(
                    try OrderBatchBuilder(
                        identity: identity, template: template, signingTime: time, validate: !command.noValidate, maximumConcurrency: jobs,
                        compression: command.compression.compression))
            }
            if !command.quiet {
                for skipped in skippedFiles {
                    Terminal.write(Terminal.styled("note:", .dim, on: .standardError) + " template: skipped \(skipped)", to: .standardError)
                }
            }
            if let folder = command.template {
                try OutputTarget.refuse(command.out, inside: folder, named: "template folder")
            }
            try OutputTarget.makeFolder(command.out)
            return (builder, command.out)
        }
        let progressMode: BatchProgress.Mode =
            command.quiet ? .off : (Terminal.isTerminal(.standardError) ? .bar : .lines(interval: command.progressInterval))
        let failed: Int
        if input == "-" {
            failed = try await process(
                OrderBatchInputs.jsonLines(fileDescriptor: 0), total: nil, builder: builder, out: outFolder, progress: progressMode)
        } else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory)
            if exists && isDirectory.boolValue {
                let inputs = try reportingFailures { try OrderBatchInputs.jsonFiles(in: URL(fileURLWithPath: input)) }
                let total = progressMode.isOff ? nil : Self.countFiles(in: input)
                failed = try await process(inputs, total: total, builder: builder, out: outFolder, progress: progressMode)
            } else {
                // A regular file can be read twice (to count its lines for progress) and its next
                // line is always at hand; a FIFO's lines come once, when the writer sends them.
                var info = stat()
                let isRegularFile = stat(input, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                let inputs = try reportingFailures { try OrderBatchInputs.jsonLines(at: URL(fileURLWithPath: input)) }
                let total = progressMode.isOff || !isRegularFile ? nil : Self.countLines(in: input)
                failed = try await process(
                    inputs, total: total, builder: builder, out: outFolder, progress: progressMode,
                    inputsPerTask: isRegularFile ? Self.linesPerTask : 1)
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Who holds an output name (compared without case): the earliest order in the input wins it.
    /// One is kept per file written, so it is small: the key is the lowercased name, and the
    /// name itself is kept only when it has capitals.
    struct Claim {
        var index: Int
        var origin: OrderBatchOrigin
        var bytes: Int
        var mixedCaseName: String?

        func fileName(key: String) -> String { mixedCaseName ?? key }
    }

    /// The failure of an order that lost its file name to one earlier in the input.
    static func duplicate(name: String, winner: String, winnerName: String) -> String {
        "file name '\(name)' is taken by \(winner) ('\(winnerName)'; names compare without case), which comes first; not written."
    }

    /// The batch builder of the kind the template is.
    enum Builder {
        case orders(OrderBatchBuilder)
        case passes(PassBatchBuilder)
    }

    /// Builds every item of `inputs` with the builder of its kind, writes the archives, reports;
    /// returns how many failed.
    func process<Inputs: AsyncSequence>(
        _ inputs: Inputs, total: Int?, builder: Builder, out: String, progress mode: BatchProgress.Mode, inputsPerTask: Int = 1
    ) async throws -> Int where Inputs.Element == BatchInput {
        switch builder {
        case .orders(let builder):
            try await process(builder.results(for: inputs, inputsPerTask: inputsPerTask), total: total, out: out, progress: mode)
        case .passes(let builder):
            try await process(builder.results(for: inputs, inputsPerTask: inputsPerTask), total: total, out: out, progress: mode)
        }
    }

    /// Writes the archives of `results` as they come, reports; returns how many failed.
    func process<Results: AsyncSequence, Archive: BuiltArchive>(
        _ results: Results, total: Int?, out: String, progress mode: BatchProgress.Mode
    ) async throws -> Int where Results.Element == BatchResult<Archive> {
        let progress = BatchProgress(mode: mode, total: total)
        var built = 0
        var skipped = 0
        var failed = 0
        var bytes = 0
        var claims: [String: Claim] = [:]
        var warnings: [String: (first: String, message: String, count: Int)] = [:]
        let writer = OutputFolderWriter(directory: out)

        func fail(_ origin: String, _ message: String) {
            failed += 1
            progress.message(Terminal.styled("error:", .red, on: .standardError) + " \(origin): \(message)")
        }

        do {
            for try await result in results {
                let origin = result.origin.description
                switch result.outcome {
                case .failed(var error):
                    // A JSON Lines order's findings are placed in the input file, at its line.
                    if Archive.self == BuiltOrderArchive.self, case .line(let line) = result.origin, let report = result.report, !report.isValid {
                        error = OrderBatchBuilder.validationFailure(report, jsonLines: (input == "-" ? "<stdin>" : input, line))
                    }
                    var message = error.message
                    if command.verbose, let underlying = error.underlying { message += " (caused by: \(underlying))" }
                    fail(origin, message)
                case .built(let archive, let fileName):
                    let key = fileName.lowercased()
                    if let holder = claims[key], holder.index < result.index {
                        fail(origin, Self.duplicate(name: fileName, winner: holder.origin.description, winnerName: holder.fileName(key: key)))
                        break
                    }
                    if command.skipExisting && FileManager.default.fileExists(atPath: writer.directory + fileName) {
                        claims[key] = Claim(
                            index: result.index, origin: result.origin, bytes: 0, mixedCaseName: key == fileName ? nil : fileName)
                        skipped += 1
                        progress.update(done: built + skipped + failed, failed: failed)
                        continue
                    }
                    do {
                        try writer.write(archive.bytes, name: fileName)
                    } catch {
                        fail(origin, (error as? WalletOrdersError)?.message ?? "\(error)")
                        break
                    }
                    if let holder = claims[key] {
                        // A later order got here first; the earlier one takes the name back.
                        let holderName = holder.fileName(key: key)
                        if holderName != fileName { writer.remove(name: holderName) }
                        built -= 1
                        bytes -= holder.bytes
                        fail(holder.origin.description, Self.duplicate(name: holderName, winner: origin, winnerName: fileName))
                    }
                    claims[key] = Claim(
                        index: result.index, origin: result.origin, bytes: archive.bytes.count, mixedCaseName: key == fileName ? nil : fileName)
                    built += 1
                    bytes += archive.bytes.count
                    let findings = (result.report?.warnings ?? []) + archive.diagnostics.filter { $0.severity == .warning }
                    for finding in findings {
                        warnings[finding.ruleID, default: (origin, finding.message, 0)].count += 1
                    }
                }
                progress.update(done: built + skipped + failed, failed: failed)
            }
        } catch {
            // The input itself could not be read further (the orders already started were reported).
            progress.finish()
            let failure = WalletOrdersError.wrappingInput(error)
            Terminal.reportError(failure.message, hint: CLIHints.hint(for: failure))
            throw ExitCode.failure
        }
        progress.finish()
        if built + skipped + failed == 0 {
            let (message, hint) = emptyInput()
            Terminal.reportError(message, hint: hint)
            throw ExitCode.failure
        }
        if !command.quiet {
            for (ruleID, warning) in warnings.sorted(by: { $0.key < $1.key }) {
                let others = warning.count > 1 ? " (and \(warning.count - 1) other \(warning.count == 2 ? kind.noun : kind.plural))" : ""
                Terminal.reportWarning("\(warning.first): [\(ruleID)] \(warning.message)\(others)")
            }
        }
        // The summary is printed with --quiet too: it is the result, not progress.
        let seconds = max(progress.elapsed, 0.000_001)
        let skippedText = command.skipExisting ? ", skipped \(skipped) (already in \(out))" : ""
        Terminal.write(
            "built \(built)\(skippedText), failed \(failed) in \(String(format: "%.2f", seconds)) s: "
                + "\(String(format: "%.1f", Double(built + skipped + failed) / seconds)) \(kind.plural)/s, \(bytes) bytes written to \(out)")
        return failed
    }

    /// What to say when the input held no orders at all.
    func emptyInput() -> (message: String, hint: String) {
        if input == "-" {
            return (
                "No orders were read from standard input: it was empty (or held only blank lines).",
                "Pipe JSON Lines into the command (… --batch - < orders.jsonl): one order.json document per line."
            )
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue {
            return (
                "No orders were read from '\(input)': the folder holds no *.json files.",
                "Put one order.json document per *.json file directly in the folder (hidden files are skipped)."
            )
        }
        return ("No orders were read from '\(input)': the file is empty (or holds only blank lines).", "Put one order.json document per line.")
    }

    /// Orders a task builds from a JSON Lines file: enough that handing results to the writer
    /// wakes it an eighth as often, few enough that a small file still spreads over the cores.
    static let linesPerTask = 8

    /// Non-blank lines of a JSON Lines file (for the progress total), reading 64 KiB at a time.
    static func countLines(in path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var count = 0
        var blank = true
        while let chunk = try? handle.read(upToCount: 64 * 1024), !chunk.isEmpty {
            for byte in chunk {
                if byte == 0x0A {
                    if !blank { count += 1 }
                    blank = true
                } else if byte != 0x20 && byte != 0x09 && byte != 0x0D {
                    blank = false
                }
            }
        }
        return blank ? count : count + 1
    }

    static func countFiles(in path: String) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: path))?.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.count
    }
}

extension WalletOrdersError {
    /// An error thrown while reading the batch's input itself.
    static func wrappingInput(_ error: any Error) -> WalletOrdersError {
        if let error = error as? WalletOrdersError { return error }
        return WalletOrdersError(.fileAccess, "Reading the batch input failed: \(error)")
    }
}

/// Writes the batch's archives into its output folder, each as ``OutputTarget`` writes a file.
struct OutputFolderWriter {
    let directory: String

    init(directory: String) {
        self.directory = directory.hasSuffix("/") ? directory : directory + "/"
    }

    func write(_ bytes: [UInt8], name: String) throws {
        try OutputTarget.path(directory + name).write(bytes)
    }

    /// Removes an archive this run wrote (a regular file); a device or FIFO written through stays.
    func remove(name: String) {
        var info = stat()
        guard lstat(directory + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        unlink(directory + name)
    }
}
