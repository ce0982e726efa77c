public import Foundation

/// The validation of one item of a batch.
public struct OrderBatchValidationResult: Sendable {
    /// The position of the item in the input, from 0.
    public var index: Int
    /// The archive file or source folder that was validated.
    public var url: URL
    /// Every finding; its subject is `url.relativePath`.
    public var report: ValidationReport
}

extension OrderValidator {
    /// Validates many archives (or order source folders), at most `maximumConcurrency` at a time,
    /// yielding each report as it completes (see ``OrderBatchSequence``; use
    /// ``OrderBatchValidationResult/index`` to restore input order).
    ///
    /// A URL naming a folder is validated as an order source (size and content checks, as
    /// ``validate(_:subject:)``); any other as an archive file (everything, as
    /// ``validate(archiveBytes:subject:now:)``). A file that can't be read gives a report with a
    /// `file.unreadable` error rather than stopping the batch.
    ///
    /// - Parameters:
    ///   - urls: The archives and source folders.
    ///   - maximumConcurrency: Items validated at once (default: the number of active cores).
    ///   - now: The time certificates are checked at.
    public func validateBatch<URLs: AsyncSequence>(
        _ urls: URLs, maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount, now: Date = Date()
    ) -> OrderBatchSequence<URLs, OrderBatchValidationResult> where URLs.Element == URL {
        validateBatch(urls, maximumConcurrency: maximumConcurrency, inputsPerTask: 1, now: now)
    }

    func validateBatch<URLs: AsyncSequence>(
        _ urls: URLs, maximumConcurrency: Int, inputsPerTask: Int, now: Date
    ) -> OrderBatchSequence<URLs, OrderBatchValidationResult> where URLs.Element == URL {
        OrderBatchSequence(base: urls, maximumConcurrency: maximumConcurrency, inputsPerTask: inputsPerTask) { [self] url, index in
            OrderBatchValidationResult(index: index, url: url, report: validateItem(at: url, now: now))
        }
    }

    /// Validates the archives and source folders of a synchronous sequence (an array, say); see
    /// ``validateBatch(_:maximumConcurrency:now:)-(AsyncSequence,_,_)``.
    public func validateBatch<URLs: Sequence>(
        _ urls: URLs, maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount, now: Date = Date()
    ) -> OrderBatchSequence<OrderBatchSynchronousInputs<URLs>, OrderBatchValidationResult> where URLs.Element == URL {
        validateBatch(
            OrderBatchSynchronousInputs(urls), maximumConcurrency: maximumConcurrency,
            inputsPerTask: batchInputsPerTask(count: urls.underestimatedCount, maximumConcurrency: maximumConcurrency), now: now)
    }

    /// One item of a batch: a source folder or an archive file.
    func validateItem(at url: URL, now: Date) -> ValidationReport {
        let subject = url.relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return .unreadable(
                subject,
                WalletOrdersError(
                    .fileAccess, "'\(subject)' does not exist.", hint: "Pass a .order archive, an order source folder, or a folder of archives."))
        }
        if isDirectory.boolValue {
            do {
                return validate(try OrderSource(directory: url), subject: subject)
            } catch {
                return .unreadable(subject, error)
            }
        }
        return validate(archiveAt: url.path, subject: subject, now: now)
    }
}
