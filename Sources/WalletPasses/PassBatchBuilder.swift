public import Foundation
import WalletOrdersJSON

/// What became of one pass of a batch.
public typealias PassBatchResult = BatchResult<BuiltPassArchive>

/// Builds and signs many passes from one template (tickets, boarding passes, cards): each pass is
/// the template with its own fields merged in (``PassTemplate``), validated, then signed, on every
/// core, with bounded memory, streaming results as they complete.
///
/// ```swift
/// let batch = try PassBatchBuilder(identity: identity, template: try PassTemplate(directory: templateURL))
/// for try await result in batch.results(for: try BatchInputs.jsonLines(at: fieldsURL)) {
///     if case .built(let pass, let fileName) = result.outcome { try pass.write(to: outURL.appendingPathComponent(fileName)) }
/// }
/// ```
///
/// The same inputs, identity and signing time give byte-identical passes whatever
/// ``maximumConcurrency`` is. A failing pass never stops the batch.
public struct PassBatchBuilder: Sendable {
    /// Builds and signs each pass.
    public var builder: PassArchiveBuilder
    /// What every pass shares.
    public var template: PassTemplate
    /// The signing time of every pass.
    public var signingTime: Date
    /// Validates each pass's content before signing (``PassValidator``); a pass with errors is not
    /// signed. `nil` signs without validating.
    public var validator: PassValidator?
    /// How many passes are built at once (default: the number of active cores).
    public var maximumConcurrency: Int

    /// Creates a batch builder.
    ///
    /// - Parameters:
    ///   - identity: Signs every pass (loaded `for: .pass`). Load it once.
    ///   - template: What every pass shares.
    ///   - signingTime: The signing time of every pass (within the certificates' validity).
    ///   - validate: Whether to validate each pass before signing and refuse those with errors.
    ///   - maximumConcurrency: Passes built at once; at least 1.
    ///   - compression: How each pass's files are compressed.
    /// - Throws: ``WalletOrdersError`` when the validator can't be made (a packaging error).
    public init(
        identity: SigningIdentity, template: PassTemplate, signingTime: Date = Date(), validate: Bool = true,
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount, compression: ArchiveCompression = .deflate
    ) throws {
        self.builder = PassArchiveBuilder(identity: identity, compression: compression)
        self.template = template
        self.signingTime = signingTime
        self.validator = validate ? try PassValidator() : nil
        self.maximumConcurrency = max(1, maximumConcurrency)
    }

    /// Builds the passes whose fields `inputs` yields, at most ``maximumConcurrency`` at a time,
    /// yielding each result as it completes (see ``BatchSequence``).
    public func results<Inputs: AsyncSequence>(for inputs: Inputs, inputsPerTask: Int = 1) -> BatchSequence<Inputs, PassBatchResult>
    where Inputs.Element == BatchInput {
        BatchSequence(base: inputs, maximumConcurrency: maximumConcurrency, inputsPerTask: inputsPerTask) { [self] input, index in
            build(input, index: index)
        }
    }

    /// Builds the passes of a synchronous sequence (an array, say).
    public func results<Inputs: Sequence>(for inputs: Inputs) -> BatchSequence<BatchSynchronousInputs<Inputs>, PassBatchResult>
    where Inputs.Element == BatchInput {
        results(
            for: BatchSynchronousInputs(inputs),
            inputsPerTask: batchInputsPerTask(count: inputs.underestimatedCount, maximumConcurrency: maximumConcurrency))
    }

    /// Builds one pass of the batch, synchronously: what each task runs.
    public func build(_ input: BatchInput, index: Int = 0) -> PassBatchResult {
        func failed(_ error: any Error, report: ValidationReport? = nil) -> PassBatchResult {
            PassBatchResult(
                index: index, origin: input.origin, outcome: .failed(WalletOrdersError.wrapping(error, code: .signingFailed)), report: report)
        }
        if let failure = input.readFailure { return failed(failure) }
        let source: PassSource
        let parsed: JSONParseResult?
        do {
            (source, parsed) = try template.merged(with: input.json)
        } catch {
            return failed(error)
        }
        var report: ValidationReport?
        var identity: PassIdentity?
        if let validator {
            let (findings, read) = validator.checkContent(files: source.files, parsed: parsed, now: signingTime)
            let checked = ValidationReport(subject: input.origin.description, diagnostics: findings, kind: .pass)
            identity = read
            if !checked.isValid {
                let first = checked.errors.prefix(3).map { "[\($0.ruleID)] \($0.message)" }.joined(separator: "; ")
                return failed(
                    WalletOrdersError(
                        .validationFailed, "\(checked.errors.count) validation error\(checked.errors.count == 1 ? "" : "s"), not signed: \(first)",
                        hint: "Fix the pass's fields or the template: validating the template folder shows each error in place."),
                    report: checked)
            }
            report = checked
        } else if let root = parsed?.root, let members = root.members {
            // The merge's own tree says who the pass is: no need to parse what it wrote.
            identity = PassIdentity(root: root, members: members, problems: [])
        }
        do {
            let built =
                try identity.map { try builder.build(source, identity: $0, signingTime: signingTime) }
                ?? builder.build(source, signingTime: signingTime)
            let name = ArchiveFileName.make(identifier: built.serialNumber ?? "", kind: .pass)
            return PassBatchResult(index: index, origin: input.origin, outcome: .built(built, fileName: name), report: report)
        } catch {
            return failed(error, report: report)
        }
    }
}
