public import Foundation
public import WalletOrders

/// What became of one order of a batch.
public typealias OrderBatchResult = BatchResult<BuiltOrderArchive>

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
/// Each order goes through ``intake`` as a single build does
/// (``OrderIntake/prepare(source:builder:signingTime:subject:accepting:)``: validated, refused
/// before any signature when it has an error, then built and signed once), so its archive is
/// exactly what ``OrderArchiveBuilder/build(_:signingTime:)`` makes of the template's files plus
/// the order's `order.json`: the same inputs, identity and signing time give byte-identical
/// archives whatever ``maximumConcurrency`` is. The identity is parsed once, by the caller; the
/// intake's validator (schema compiled once) is shared by every order. A failing order never
/// stops the batch.
public struct OrderBatchBuilder: Sendable {
    /// Builds and signs each archive.
    public var builder: OrderArchiveBuilder
    /// The files every order shares.
    public var template: OrderBatchTemplate
    /// The signing time of every archive.
    public var signingTime: Date
    /// Validates each order before signing it, as a single build does; an order with errors is
    /// not signed. `nil` signs without validating.
    public var intake: OrderIntake?
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
        self.intake = validate ? OrderIntake(validator: try OrderValidator()) : nil
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
        func built(_ archive: BuiltOrderArchive, report: ValidationReport?) -> OrderBatchResult {
            result(.built(archive, fileName: OrderArchiveFileName.make(orderIdentifier: archive.orderIdentifier.orderIdentifier)), report: report)
        }
        if let failure = input.readFailure { return result(.failed(failure)) }
        var files = template.files
        files[OrderArchive.orderPath] = input.orderJSON
        let source = OrderSource(files: files)
        guard let intake else {
            do {
                return built(try builder.build(source, signingTime: signingTime), report: nil)
            } catch {
                return result(.failed(WalletOrdersError.wrapping(error, code: .signingFailed)))
            }
        }
        let prepared: OrderIntakeResult<OrderIntake.SignedOrder>
        do {
            prepared = try intake.prepare(source: source, builder: builder, signingTime: signingTime, subject: input.origin.description)
        } catch {
            return result(.failed(WalletOrdersError.wrapping(error, code: .signingFailed)))
        }
        switch prepared.outcome {
        case .taken(let signed): return built(signed.built, report: prepared.report)
        case .refused(let refusal, _): return result(.failed(refusal), report: prepared.report)
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
