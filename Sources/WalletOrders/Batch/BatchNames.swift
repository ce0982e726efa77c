// The batch machinery (bounded concurrency, JSON Lines and folder inputs) is the core's, shared
// with passes; these are its names from before passes, kept for orders' callers.

/// The results of a batch, delivered as they complete (``BatchSequence``).
public typealias OrderBatchSequence<Base: AsyncSequence, Element: Sendable> = BatchSequence<Base, Element> where Base.Element: Sendable
/// Counters of a batch (``BatchStatistics``).
public typealias OrderBatchStatistics = BatchStatistics
/// A synchronous sequence of inputs as a batch's input (``BatchSynchronousInputs``).
public typealias OrderBatchSynchronousInputs<Base: Sequence> = BatchSynchronousInputs<Base>
/// Ready-made batch inputs (``BatchInputs``).
public typealias OrderBatchInputs = BatchInputs
/// One order of a batch (``BatchInput``).
public typealias OrderBatchInput = BatchInput
/// Where one order of a batch came from (``BatchOrigin``).
public typealias OrderBatchOrigin = BatchOrigin
/// The orders of a JSON Lines file (``JSONLinesInputs``).
public typealias JSONLinesOrders = JSONLinesInputs
