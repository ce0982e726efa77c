import Foundation
public import WalletOrders
import WalletOrdersInterop
public import WalletOrdersStore

/// Copies every order of one store into another (SQLite to PostgreSQL and back, or any two
/// `OrderStoring`s), in pages, resumably, and checks the result.
///
/// - **Through the intake:** each page is read with `OrderStoring.list(_:)` (keyset pages by
///   identifier), then goes in as any order does, through ``OrderIntake/save(signedArchives:maximumConcurrency:)``
///   of the intake given: validated again with its validator (the destination's trust roots),
///   saved into its store in one transaction, and its notifier told of every order that changed
///   (a service's push worker, when the copy runs beside a live service). The destination
///   answers with the decision table:
///   an order it holds already is `added` without a change, a newer version there is kept
///   (`newerExisting`), the same `updatedAt` with other files is a conflict.
/// - **Resumable:** after each page is saved (one transaction) `progress` gets the cursor of its
///   last order; pass it back as `after` to continue where a stopped copy left off. Running the
///   whole copy again is also safe: what is there already is left as it is.
/// - **Verified:** ``verify(source:destination:)`` compares the two stores order by order: the
///   same count and, for each order, the same archive SHA-256 (or a newer version in the destination).
///
/// - **Registrations and links:** when both stores keep the web service's data
///   (`DeviceRegistrationStoring`), each copied order's device registrations go with it, and
///   the destination takes the source's customer link secret, so the links customers already
///   have and the devices already registered keep working after the move. A destination that
///   already holds orders keeps its own secret and also accepts the source's
///   (`DeviceRegistrationStoring.acceptCustomerLinkSecret(_:)`), so the links both gave out work.
///
/// - **Change sequence:** when both stores number their changes (`OrderChangeSequencing`), the
///   destination's sequence continues past the source's newest change (before the first page and
///   again at the end), and never goes back. The web service's `lastModified` tags name their
///   store, so a device holding a tag of the source gets its full list from the destination once,
///   then the destination's tags; a destination that already served devices keeps their tags
///   exact, since every order the copy writes is numbered after any tag either store gave out.
///
/// The push outbox and the change history are not copied: pending pushes are sent by the
/// source's servers before the move, and the destination's history starts with the copied
/// orders as inserted.
public enum OrderStoreCopy {
    /// What a copy did.
    public struct Report: Sendable, Hashable, Codable {
        /// Orders read from the source.
        public var read: Int = 0
        /// Orders written to the destination (inserted, or replacing an older version there).
        public var written: Int = 0
        /// Orders the destination held already, the same or newer (nothing written).
        public var unchanged: Int = 0
        /// Orders that failed (a conflict, or an archive the destination doesn't trust), with why.
        public var failures: [Failure] = []
        /// Device registrations copied (both stores keep registrations; already there counts too).
        public var registrations: Int = 0

        /// Creates an empty report.
        public init() {}

        /// One order that could not be copied.
        public struct Failure: Sendable, Hashable, Codable {
            /// The order.
            public var identifier: FullyQualifiedOrderIdentifier
            /// The error's code.
            public var code: String
            /// The error's message.
            public var message: String
        }
    }

    /// Where a copy stands after a page.
    public struct Progress: Sendable, Hashable {
        /// The report so far.
        public var report: Report
        /// Pass as `after` to continue after the last order copied.
        public var cursor: OrderListCursor
    }

    /// Copies the source's orders after `after` (all of them for `nil`), `batchSize` at a time,
    /// into `destination` through an intake with `validator` and no notifier.
    ///
    /// - Parameters:
    ///   - source: The store to read.
    ///   - destination: The store to write.
    ///   - validator: Verifies every archive again before the destination saves it (with the
    ///     trust roots the destination's orders must chain to).
    ///   - batchSize: Orders per page and per destination transaction.
    ///   - after: The cursor of a previous copy's ``Progress``, to resume it.
    ///   - progress: Called after each page is saved, with the cursor to resume from.
    /// - Throws: A store error of either store (the pages saved before it stay saved).
    public static func copy(
        from source: any OrderStoring, to destination: any OrderStoring, validator: OrderValidator, batchSize: Int = 100,
        after: OrderListCursor? = nil,
        progress: @Sendable (Progress) async throws -> Void = { _ in }
    ) async throws -> Report {
        try await copy(
            from: source, through: OrderIntake(validator: validator, store: destination), batchSize: batchSize, after: after,
            progress: progress)
    }

    /// Copies the source's orders after `after` (all of them for `nil`), `batchSize` at a time,
    /// into the store of `intake`, which validates each page and tells its notifier of every change.
    ///
    /// - Parameters:
    ///   - source: The store to read.
    ///   - intake: Validates every archive again and saves it into its store (the destination).
    ///   - batchSize: Orders per page and per destination transaction.
    ///   - after: The cursor of a previous copy's ``Progress``, to resume it.
    ///   - progress: Called after each page is saved, with the cursor to resume from.
    /// - Throws: A store error of either store (the pages saved before it stay saved), or
    ///   ``WalletOrdersError/Code/invalidConfiguration`` for an intake without a store.
    public static func copy(
        from source: any OrderStoring, through intake: OrderIntake, batchSize: Int = 100, after: OrderListCursor? = nil,
        progress: @Sendable (Progress) async throws -> Void = { _ in }
    ) async throws -> Report {
        let destination = try intake.requireStore()
        var report = Report()
        let registrationStores = (source as? any DeviceRegistrationStoring, destination as? any DeviceRegistrationStoring)
        if let from = registrationStores.0, let to = registrationStores.1 {
            // The links customers have are HMACs under the source's secrets. An empty destination
            // takes the source's secret (its new links are the ones the source gave); one that
            // holds orders may have given out links of its own, so it keeps its secret and also
            // accepts the source's.
            var secrets = try await from.customerLinkSecrets()
            if try await destination.list(OrderQuery(sort: .identifier, limit: 1)).orders.isEmpty {
                try await to.setCustomerLinkSecret(secrets.removeFirst())
            }
            let held = try await to.customerLinkSecrets()
            for secret in secrets where !held.contains(secret) { try await to.acceptCustomerLinkSecret(secret) }
        }
        try await carryChangeSequence(from: source, to: destination)
        var query = OrderQuery(sort: .identifier, limit: max(1, batchSize), after: after)
        while true {
            let page = try await source.list(query)
            guard let last = page.orders.last else { break }
            var archives: [[UInt8]] = []
            var identifiers: [FullyQualifiedOrderIdentifier] = []
            for summary in page.orders {
                // An order deleted between the page and this read is simply not copied.
                guard let bytes = try await source.archive(for: summary.identifier) else { continue }
                archives.append(bytes)
                identifiers.append(summary.identifier)
            }
            report.read += archives.count
            // Saved without a word to the notifier, which hears of the page once its registrations are in.
            var quiet = intake
            quiet.notifier = nil
            let results = try await quiet.save(signedArchives: archives)
            var changed: [OrderSaveReceipt] = []
            for (identifier, result) in zip(identifiers, results) {
                switch result {
                case .success(let receipt):
                    if receipt.storeChanged { report.written += 1 } else { report.unchanged += 1 }
                    changed.append(receipt)
                case .failure(let error):
                    report.failures.append(Report.Failure(identifier: identifier, code: error.code.description, message: error.message))
                    continue
                }
                if let from = registrationStores.0, let to = registrationStores.1 {
                    if let previous = try await from.accessRecord(for: identifier)?.previousAuthenticationToken {
                        try await to.keepPreviousAuthenticationToken(previous, for: identifier)
                    }
                    for registration in try await from.registrations(for: identifier) {
                        _ = try await to.register(
                            deviceIdentifier: registration.deviceIdentifier, pushToken: registration.pushToken, for: identifier, limits: .unlimited)
                        report.registrations += 1
                    }
                }
            }
            await intake.notify(changed)
            let cursor = last.cursor(.identifier)
            try await progress(Progress(report: report, cursor: cursor))
            guard let next = page.nextCursor else { break }
            query.after = next
        }
        // The source may have changed while the pages were copied.
        try await carryChangeSequence(from: source, to: destination)
        return report
    }

    /// Moves the destination's change sequence past the source's newest change, when both number theirs.
    private static func carryChangeSequence(from source: any OrderStoring, to destination: any OrderStoring) async throws {
        guard let from = source as? any OrderChangeSequencing, let to = destination as? any OrderChangeSequencing else { return }
        try await to.continueChangeSequence(after: try await from.newestChangeSequence())
    }

    /// How two stores compare after a copy.
    public struct Verification: Sendable, Hashable, Codable {
        /// Orders in the source.
        public var sourceCount: Int = 0
        /// Orders in the destination.
        public var destinationCount: Int = 0
        /// Source orders the destination holds with the same archive (equal SHA-256).
        public var identical: Int = 0
        /// Source orders the destination holds in a newer version.
        public var newerInDestination: Int = 0
        /// Source orders missing from the destination, or there in another archive at the same or an older version.
        public var mismatched: [FullyQualifiedOrderIdentifier] = []
        /// A SHA-256 over the source's (identifier, archive SHA-256) pairs, in identifier order.
        public var sourceDigest: String = ""
        /// The same over the destination's orders.
        public var destinationDigest: String = ""

        /// Creates an empty verification.
        public init() {}

        /// Whether every source order is in the destination, identical or newer.
        public var isComplete: Bool { mismatched.isEmpty }
    }

    /// Compares the two stores order by order (count, and each order's archive SHA-256).
    public static func verify(source: any OrderStoring, destination: any OrderStoring, batchSize: Int = 500) async throws
        -> Verification
    {
        let from = try await inventory(source, batchSize: batchSize)
        let to = try await inventory(destination, batchSize: batchSize)
        var verification = Verification()
        verification.sourceCount = from.count
        verification.destinationCount = to.count
        verification.sourceDigest = digest(from)
        verification.destinationDigest = digest(to)
        let destination = Dictionary(uniqueKeysWithValues: to.map { ($0.identifier, $0) })
        for order in from {
            guard let there = destination[order.identifier] else {
                verification.mismatched.append(order.identifier)
                continue
            }
            if there.sha256 == order.sha256 {
                verification.identical += 1
            } else if there.updatedAt > order.updatedAt {
                verification.newerInDestination += 1
            } else {
                verification.mismatched.append(order.identifier)
            }
        }
        return verification
    }

    private static func inventory(_ store: any OrderStoring, batchSize: Int) async throws -> [StoredOrderSummary] {
        var all: [StoredOrderSummary] = []
        var query = OrderQuery(sort: .identifier, limit: max(1, batchSize))
        while true {
            let page = try await store.list(query)
            all += page.orders
            guard let next = page.nextCursor else { return all }
            query.after = next
        }
    }

    private static func digest(_ orders: [StoredOrderSummary]) -> String {
        var text = ""
        for order in orders {
            text += "\(order.identifier.orderTypeIdentifier)\u{0}\(order.identifier.orderIdentifier)\u{0}\(order.sha256)\n"
        }
        return SHA256.hexHash(Array(text.utf8))
    }
}
