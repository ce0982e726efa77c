import Foundation
public import WalletOrdersStore
public import WalletPasses

/// Copies every pass of one store into another, with all its versions, and checks the result:
/// what ``OrderStoreCopy`` does for orders, for the passes kept beside them.
///
/// - Each pass's versions go in oldest first, each validated again with the validator given
///   (the destination's trust roots), so the destination holds the same versions in the same
///   order. A pass whose newest version the destination holds already is left as it is (a copy
///   run again writes nothing); one it holds with other content takes the source's versions as
///   new versions after its own (the source's newest is the destination's newest).
/// - The change sequence is carried as the order copy carries it (``OrderChangeSequencing``), so
///   every pass the copy writes is numbered after every tag either store gave out.
/// - When both stores keep registrations (``PassRegistrationStoring``), each pass's device
///   registrations go with it, written or unchanged, so devices keep getting its updates.
public enum PassStoreCopy {
    /// What a copy of passes did.
    public struct Report: Sendable, Hashable, Codable {
        /// Passes read from the source.
        public var read: Int = 0
        /// Passes written to the destination (with all their versions).
        public var written: Int = 0
        /// Passes whose newest version the destination held already (nothing written).
        public var unchanged: Int = 0
        /// Passes that failed (a version the destination doesn't trust), with why.
        public var failures: [Failure] = []
        /// Device registrations copied (both stores keep registrations; already there counts too).
        public var registrations: Int = 0

        /// Creates an empty report.
        public init() {}

        /// One pass that could not be copied.
        public struct Failure: Sendable, Hashable, Codable {
            /// The pass.
            public var identifier: PassIdentifier
            /// The error's code.
            public var code: String
            /// The error's message.
            public var message: String
        }
    }

    /// Copies the source's passes, `batchSize` passes a page.
    ///
    /// - Throws: A store error of either store (the passes saved before it stay saved).
    public static func copy(
        from source: any PassStoring, to destination: any PassStoring, validator: PassValidator, batchSize: Int = 100
    ) async throws -> Report {
        try await carryChangeSequence(from: source, to: destination)
        var report = Report()
        var query = PassQuery(limit: batchSize)
        while true {
            let page = try await source.listPasses(query)
            for summary in page.passes {
                report.read += 1
                if try await destination.passSummary(for: summary.identifier)?.current.sha256 == summary.current.sha256 {
                    report.unchanged += 1
                    report.registrations += try await copyRegistrations(of: summary.identifier, from: source, to: destination)
                    continue
                }
                var verified: [VerifiedPassArchive] = []
                do {
                    for version in try await source.passVersions(for: summary.identifier) {
                        // A version deleted with its pass since the page was read is not copied.
                        guard let bytes = try await source.passArchive(for: summary.identifier, version: version.version) else { continue }
                        verified.append(try VerifiedPassArchive(bytes: bytes, validator: validator))
                    }
                } catch let error as WalletOrdersError {
                    report.failures.append(Report.Failure(identifier: summary.identifier, code: error.code.description, message: error.message))
                    continue
                }
                guard !verified.isEmpty else { continue }
                _ = try await destination.save(verifiedPasses: verified)
                report.written += 1
                report.registrations += try await copyRegistrations(of: summary.identifier, from: source, to: destination)
            }
            guard let next = page.nextCursor else { break }
            query.after = next
        }
        try await carryChangeSequence(from: source, to: destination)
        return report
    }

    /// How the two stores' passes compare after a copy.
    public struct Verification: Sendable, Hashable, Codable {
        /// Passes in the source.
        public var sourceCount: Int = 0
        /// Passes in the destination.
        public var destinationCount: Int = 0
        /// Source passes the destination holds with the same newest version (equal SHA-256).
        public var identical: Int = 0
        /// Source passes missing from the destination, or there with another newest version.
        public var mismatched: [PassIdentifier] = []

        /// Creates an empty verification.
        public init() {}

        /// Whether every source pass is in the destination with the same newest version.
        public var isComplete: Bool { mismatched.isEmpty }
    }

    /// Compares the two stores pass by pass (count, and each pass's newest SHA-256).
    public static func verify(source: any PassStoring, destination: any PassStoring) async throws -> Verification {
        let from = try await inventory(source)
        let to = try await inventory(destination)
        var verification = Verification()
        verification.sourceCount = from.count
        verification.destinationCount = to.count
        for (identifier, sha256) in from.sorted(by: { $0.key < $1.key }) {
            if to[identifier] == sha256 { verification.identical += 1 } else { verification.mismatched.append(identifier) }
        }
        return verification
    }

    private static func inventory(_ store: any PassStoring) async throws -> [PassIdentifier: String] {
        var all: [PassIdentifier: String] = [:]
        var query = PassQuery(limit: 500)
        while true {
            let page = try await store.listPasses(query)
            for pass in page.passes { all[pass.identifier] = pass.current.sha256 }
            guard let next = page.nextCursor else { return all }
            query.after = next
        }
    }

    /// Registers in `destination` every device `source` has registered for `pass`; returns how many.
    private static func copyRegistrations(of pass: PassIdentifier, from source: any PassStoring, to destination: any PassStoring)
        async throws -> Int
    {
        guard let from = source as? any PassRegistrationStoring, let to = destination as? any PassRegistrationStoring else { return 0 }
        let registrations = try await from.registrations(for: pass)
        for registration in registrations {
            _ = try await to.register(
                deviceIdentifier: registration.deviceIdentifier, pushToken: registration.pushToken, for: pass, limits: .unlimited)
        }
        return registrations.count
    }

    private static func carryChangeSequence(from source: any PassStoring, to destination: any PassStoring) async throws {
        guard let from = source as? any OrderChangeSequencing, let to = destination as? any OrderChangeSequencing else { return }
        try await to.continueChangeSequence(after: try await from.newestChangeSequence())
    }
}
