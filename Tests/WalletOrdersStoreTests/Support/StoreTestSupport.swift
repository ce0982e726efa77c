import Foundation
import Testing
import WalletOrders
import WalletOrdersStore
import WalletOrdersTestSupport
import WalletOrdersTestFixtures

/// The two stores every contract test runs against, through ``OrderStoring``.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }

    /// A fresh, empty store; `body` gets it, and any temporary folder is removed afterwards.
    /// `validator` defaults to one trusting the test root.
    func withStore<T>(
        validator: OrderValidator = TestPKI.validator, _ body: (any OrderStoring) async throws -> T
    ) async throws -> T {
        switch self {
        case .inMemory:
            return try await body(try InMemoryOrderStore(validator: validator))
        case .sqlite:
            let folder = try TemporaryFolder("store")
            defer { folder.remove() }
            return try await body(try SQLiteOrderStore(url: folder.file("orders.sqlite"), validator: validator))
        }
    }
}

/// Records what confirmation handlers were asked.
actor ProposalRecorder {
    private(set) var proposals: [SaveProposal] = []
    func record(_ proposal: SaveProposal) { proposals.append(proposal) }
}

/// SHA-256 from Python's hashlib, an oracle independent of the store's own digest.
enum SHA256Oracle {
    static func hex(_ bytes: [UInt8]) -> String {
        let hexBytes = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let result = try! ExternalProgram.python(
            "import hashlib, sys; print(hashlib.sha256(bytes.fromhex(sys.argv[1])).hexdigest())", [hexBytes])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
