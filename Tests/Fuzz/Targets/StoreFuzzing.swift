import Foundation
import Synchronization
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore

/// `OrderIntake.save(signedArchive:)` into one SQLite store in a temporary folder (made once per
/// process, removed at exit). The intake trusts Apple's root only, so no fuzzed archive may be
/// stored: every save must throw `archive-rejected`, and the store must stay empty and readable.
enum StoreFuzzing {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("wallet-orders-fuzz-store-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            fatalError("fuzz store: can't create \(folder.path): \(error)")
        }
        atexit {
            try? FileManager.default.removeItem(at: StoreFuzzing.folder)
        }
        return folder
    }()

    static let store: SQLiteOrderStore = {
        do {
            return try SQLiteOrderStore(url: folder.appendingPathComponent("orders.sqlite"))
        } catch {
            fatalError("fuzz store: can't open the store: \(error)")
        }
    }()

    /// Validates with Apple's root as the only anchor, then saves into ``store``.
    static let intake: OrderIntake = {
        do {
            return OrderIntake(validator: try OrderValidator(), store: store)
        } catch {
            fatalError("fuzz store: can't make the validator: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) throws(InvariantViolation) {
        let outcome = wait { () async -> (saved: Result<SaveOrderResult, any Error>, count: Result<Int, any Error>) in
            let saved: Result<SaveOrderResult, any Error>
            do {
                saved = .success(try await intake.save(signedArchive: bytes))
            } catch {
                saved = .failure(error)
            }
            let count: Result<Int, any Error>
            do {
                count = .success(try await store.count())
            } catch {
                count = .failure(error)
            }
            return (saved, count)
        }
        switch outcome.saved {
        case .success(let result):
            throw InvariantViolation(.store, "an archive not signed by Apple was saved: \(result)")
        case .failure(let error):
            let code = (error as? WalletOrdersError)?.code
            try require(code == .archiveRejected, .store, "save threw \(error), not archive-rejected")
        }
        switch outcome.count {
        case .success(let count):
            try require(count == 0, .store, "the store holds \(count) order(s) after rejected saves")
        case .failure(let error):
            throw InvariantViolation(.store, "the store can't be read after a rejected save: \(error)")
        }
    }

    /// Runs `operation` to completion from synchronous code (libFuzzer's callback).
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await operation()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
