public import Foundation

/// Where one order of a batch came from, for messages: a line of a JSON Lines file, a file, or a
/// label of the caller's.
public enum OrderBatchOrigin: Sendable, Hashable, CustomStringConvertible {
    /// A line of a JSON Lines file, counted from 1.
    case line(Int)
    /// A file, by the name or path the caller gave.
    case file(String)
    /// Anything else the caller wants to see in messages.
    case label(String)

    /// `line 12`, the file name, or the label.
    public var description: String {
        switch self {
        case .line(let number): "line \(number)"
        case .file(let name): name
        case .label(let label): label
        }
    }
}

/// One order of a batch: the bytes of its `order.json` and where they came from.
public struct OrderBatchInput: Sendable {
    /// Where the order came from, for messages.
    public var origin: OrderBatchOrigin
    /// The exact bytes of `order.json`.
    public var orderJSON: [UInt8]
    /// Why the order could not even be read, when it couldn't.
    public var readFailure: WalletOrdersError?

    /// An order to build.
    public init(origin: OrderBatchOrigin, orderJSON: [UInt8]) {
        self.origin = origin
        self.orderJSON = orderJSON
        self.readFailure = nil
    }

    /// An order that could not be read (an unreadable file, a line over the size limit): the
    /// batch reports it as a failure with `error` and goes on with the others.
    public static func unreadable(origin: OrderBatchOrigin, error: WalletOrdersError) -> Self {
        var input = Self(origin: origin, orderJSON: [])
        input.readFailure = error
        return input
    }
}

/// The files every order of a batch shares: images and `xx.lproj/order.strings`.
public struct OrderBatchTemplate: Sendable {
    /// Path (relative, `/`-separated) → exact bytes. Never holds `order.json`: each order brings its own.
    public private(set) var files: [String: [UInt8]]
    /// Files found in the template folder but left out: junk, dotfiles, an old manifest or
    /// signature, and an `order.json` (each order of the batch brings its own).
    public private(set) var skippedFiles: [OrderSource.SkippedFile]

    /// A template from files in memory. Junk and `order.json` are left out and listed in ``skippedFiles``.
    public init(files: [String: [UInt8]] = [:]) {
        let source = OrderSource(files: files)
        var kept = source.files
        var skipped = source.skippedFiles
        if kept.removeValue(forKey: OrderArchive.orderPath) != nil {
            skipped.append(.init(path: OrderArchive.orderPath, reason: "each order of the batch brings its own order.json"))
        }
        self.files = kept
        self.skippedFiles = skipped.sorted { $0.path < $1.path }
    }

    /// Reads a template folder: every regular file below it, with the same rules as
    /// ``OrderSource/init(directory:)`` (junk skipped; symbolic links and special files refused),
    /// except that no `order.json` is needed, and one that is there is left out.
    ///
    /// - Throws: ``WalletOrdersError`` with ``WalletOrdersError/Code/invalidSource`` (not a
    ///   folder, a link, a special file) or ``WalletOrdersError/Code/fileAccess``.
    public init(directory: URL) throws {
        let (files, skipped) = try OrderSource.readFolder(
            directory, notAFolder: "The template '\(directory.path)' is not a folder.",
            hint: "Pass the folder that holds the images and .lproj folders every order shares.",
            folder: "the template folder")
        self.init(files: files)
        self.skippedFiles = (self.skippedFiles + skipped).sorted { $0.path < $1.path }
    }

}

/// What became of one order of a batch.
public struct OrderBatchResult: Sendable {
    /// The position of the order in the input, from 0.
    public var index: Int
    /// Where the order came from.
    public var origin: OrderBatchOrigin
    /// The archive, or why there is none.
    public var outcome: Outcome
    /// The validation findings, when the batch validates: warnings and notes for a built order,
    /// the errors for one refused by validation.
    public var report: ValidationReport?

    /// The archive, or why there is none.
    public enum Outcome: Sendable {
        /// Built and signed; `fileName` is ``OrderArchiveFileName/make(orderIdentifier:)`` of the order.
        case built(BuiltOrderArchive, fileName: String)
        /// Not built: unreadable, not a valid order, refused by validation, or signing failed.
        case failed(WalletOrdersError)
    }

    /// The archive, when the order was built.
    public var archive: BuiltOrderArchive? {
        if case .built(let archive, _) = outcome { return archive }
        return nil
    }

    /// The file name for the archive, when the order was built.
    public var fileName: String? {
        if case .built(_, let name) = outcome { return name }
        return nil
    }

    /// Why the order was not built, when it wasn't.
    public var error: WalletOrdersError? {
        if case .failed(let error) = outcome { return error }
        return nil
    }
}

/// Builds and signs many orders that share one identity, one template and one signing time, on
/// every core, with bounded memory.
///
/// ```swift
/// let batch = try OrderBatchBuilder(
///     identity: identity, template: try OrderBatchTemplate(directory: templateURL), signingTime: Date())
/// for try await result in batch.results(for: try OrderBatchInputs.jsonLines(at: inputURL)) {
///     switch result.outcome {
///     case .built(let archive, let fileName): try archive.write(to: outURL.appendingPathComponent(fileName))
///     case .failed(let error): print("\(result.origin): \(error.message)")
///     }
/// }
/// ```
///
/// Each order's archive is exactly what ``OrderArchiveBuilder/build(_:signingTime:)`` makes of the
/// template's files plus the order's `order.json`, so a batch is as reproducible as a single
/// build: the same inputs, identity and signing time give byte-identical archives whatever
/// ``maximumConcurrency`` is. The identity is parsed once, by the caller; the validator (schema
/// compiled once) is shared by every order. A failing order never stops the batch.
public struct OrderBatchBuilder: Sendable {
    /// Builds and signs each archive.
    public var builder: OrderArchiveBuilder
    /// The files every order shares.
    public var template: OrderBatchTemplate
    /// The signing time of every archive.
    public var signingTime: Date
    /// Validates each order before signing (as `wallet-orders validate SOURCE` would); an order
    /// with errors is not signed. `nil` signs without validating.
    public var validator: OrderValidator?
    /// How many orders are built at once (default: the number of active cores).
    public var maximumConcurrency: Int

    /// Creates a batch builder.
    ///
    /// - Parameters:
    ///   - identity: Signs every archive. Load it once.
    ///   - template: The files every order shares.
    ///   - signingTime: The signing time of every archive (within the certificates' validity).
    ///   - validate: Whether to validate each order before signing and refuse those with errors.
    ///   - maximumConcurrency: Orders built at once; at least 1.
    ///   - compression: How each archive's files are compressed.
    /// - Throws: ``WalletOrdersError`` when the validator can't be made (a packaging error).
    public init(
        identity: SigningIdentity, template: OrderBatchTemplate = OrderBatchTemplate(), signingTime: Date = Date(),
        validate: Bool = true, maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        compression: ArchiveCompression = .deflate
    ) throws {
        self.builder = OrderArchiveBuilder(identity: identity, compression: compression)
        self.template = template
        self.signingTime = signingTime
        self.validator = validate ? try OrderValidator() : nil
        self.maximumConcurrency = max(1, maximumConcurrency)
    }

    /// Builds the orders of `orders`, at most ``maximumConcurrency`` at a time, yielding each
    /// result as it completes (see ``OrderBatchSequence``). The sequence throws only what
    /// `orders` throws (a read error of the input itself) or `CancellationError`.
    public func results<Orders: AsyncSequence>(for orders: Orders) -> OrderBatchSequence<Orders, OrderBatchResult>
    where Orders.Element == OrderBatchInput {
        results(for: orders, inputsPerTask: 1)
    }

    /// ``results(for:)-(AsyncSequence)`` with ``OrderBatchSequence/inputsPerTask`` chosen by the
    /// caller, who knows that `orders` never keeps a task waiting (a file, not a pipe).
    package func results<Orders: AsyncSequence>(for orders: Orders, inputsPerTask: Int) -> OrderBatchSequence<Orders, OrderBatchResult>
    where Orders.Element == OrderBatchInput {
        OrderBatchSequence(base: orders, maximumConcurrency: maximumConcurrency, inputsPerTask: inputsPerTask) { [self] input, index in
            build(input, index: index)
        }
    }

    /// Builds the orders of a synchronous sequence (an array, say); see ``results(for:)-(AsyncSequence)``.
    public func results<Orders: Sequence>(for orders: Orders)
        -> OrderBatchSequence<OrderBatchSynchronousInputs<Orders>, OrderBatchResult>
    where Orders.Element == OrderBatchInput {
        results(
            for: OrderBatchSynchronousInputs(orders),
            inputsPerTask: batchInputsPerTask(count: orders.underestimatedCount, maximumConcurrency: maximumConcurrency))
    }

    /// Builds one order of the batch, synchronously: what each task of ``results(for:)-(AsyncSequence)`` runs.
    ///
    /// - Parameters:
    ///   - input: The order.
    ///   - index: Its position in the batch, copied into the result.
    public func build(_ input: OrderBatchInput, index: Int = 0) -> OrderBatchResult {
        func result(_ outcome: OrderBatchResult.Outcome, report: ValidationReport? = nil) -> OrderBatchResult {
            OrderBatchResult(index: index, origin: input.origin, outcome: outcome, report: report)
        }
        if let failure = input.readFailure { return result(.failed(failure)) }
        var files = template.files
        files[OrderArchive.orderPath] = input.orderJSON
        let source = OrderSource(files: files)
        var report: ValidationReport?
        if let validator {
            let findings = validator.validate(source, subject: input.origin.description)
            if !findings.isValid { return result(.failed(Self.validationFailure(findings)), report: findings) }
            report = findings
        }
        do {
            let archive = try builder.build(source, signingTime: signingTime)
            let fileName = OrderArchiveFileName.make(orderIdentifier: archive.orderIdentifier.orderIdentifier)
            return result(.built(archive, fileName: fileName), report: report)
        } catch {
            return result(.failed(WalletOrdersError.wrapping(error, code: .signingFailed)), report: report)
        }
    }

    /// `validation-failed`, naming the first errors so one line says what is wrong.
    ///
    /// With `jsonLines` (the input file's name and the order's line in it), a finding in
    /// `order.json` is placed in that file (`orders.jsonl:4:247`) rather than in `order.json`,
    /// whose one line is the input's line.
    package static func validationFailure(
        _ report: ValidationReport, jsonLines: (file: String, line: Int)? = nil
    ) -> WalletOrdersError {
        let errors = report.errors
        let shown = errors.prefix(3).map { diagnostic -> String in
            var place = diagnostic.location.file ?? ""
            if let jsonLines, place == OrderArchive.orderPath, diagnostic.location.line == 1 {
                place = "\(jsonLines.file):\(jsonLines.line)"
            } else if let line = diagnostic.location.line {
                place += ":\(line)"
            }
            if let column = diagnostic.location.column { place += ":\(column)" }
            if diagnostic.location.line == nil, let pointer = diagnostic.location.jsonPointer, !pointer.isEmpty {
                place += " at \(pointer)"
            }
            return "[\(diagnostic.ruleID)] \(diagnostic.message)\(place.isEmpty ? "" : " (\(place))")"
        }
        let more = errors.count > shown.count ? "; and \(errors.count - shown.count) more" : ""
        return WalletOrdersError(
            .validationFailed,
            "\(errors.count) validation error\(errors.count == 1 ? "" : "s"), not signed: \(shown.joined(separator: "; "))\(more)",
            hint: "Fix the order: validating its source shows each error in place.")
    }
}
