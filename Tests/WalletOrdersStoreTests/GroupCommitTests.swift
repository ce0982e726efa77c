import Foundation
import Synchronization
import Testing
import WalletOrders
import WalletOrdersIntake
import WalletOrdersStore
import WalletOrdersTestFixtures
import WalletOrdersTestSupport

/// Group commit: saves that overlap share a transaction, each caller gets its own answers, a
/// failed transaction fails only its own group, and a caller that goes away cancels nobody's write.
@Suite("Group commit")
struct GroupCommitTests {
    /// Records every transaction `commit` was called with. With `holdFirstUntil`, the first
    /// transaction waits until that many callers queue behind it (a flush to disk that takes a
    /// while, as long as the test needs, whatever the machine's speed).
    final class Recorder: Sendable {
        let groups = Mutex<[[Int]]>([])
        let failing = Mutex<Set<Int>>([])
        let hold: (group: GroupCommit<Int, String>, callers: Int)?

        init(holdFirstUntil hold: (group: GroupCommit<Int, String>, callers: Int)? = nil) {
            self.hold = hold
        }

        func commit(_ items: [Int]) async throws -> [String] {
            let first = groups.withLock { groups -> Bool in
                groups.append(items)
                return groups.count == 1
            }
            if first, let hold { await waitUntil { hold.group.waitingCallers >= hold.callers } }
            if failing.withLock({ !$0.isDisjoint(with: items) }) { throw CancellationError() }
            return items.map { "saved \($0)" }
        }
    }

    /// Waits for `condition`, looking again after every other task had its turn.
    static func waitUntil(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test(
        "200 callers at once: each gets its own answers, in order; the 199 that came during the first transaction share the next",
        .timeLimit(.minutes(1)))
    func grouping() async throws {
        let group = GroupCommit<Int, String>()
        let recorder = Recorder(holdFirstUntil: (group, 199))
        let answers = try await withThrowingTaskGroup(of: (Int, [String]).self) { tasks in
            for caller in 0..<200 {
                tasks.addTask {
                    (caller, try await group.submit([caller * 10, caller * 10 + 1]) { try await recorder.commit($0) })
                }
            }
            var answers: [Int: [String]] = [:]
            for try await (caller, answer) in tasks { answers[caller] = answer }
            return answers
        }
        for caller in 0..<200 {
            let expected: [String] = ["saved \(caller * 10)", "saved \(caller * 10 + 1)"]
            #expect(answers[caller] == expected)
        }
        let groups: [[Int]] = recorder.groups.withLock { $0 }
        let committed: [Int] = groups.flatMap { $0 }.sorted()
        let submitted: [Int] = (0..<200).flatMap { [$0 * 10, $0 * 10 + 1] }
        #expect(committed == submitted)
        #expect(groups.count == 2, "\(groups.count) transactions for 200 callers: the first, then 398 items in one")
        let largest: Int = groups.map(\.count).max() ?? 0
        #expect(largest <= group.maximumItems)
    }

    @Test("A transaction that fails fails its own callers only; the next group commits")
    func failureStaysInItsGroup() async throws {
        let group = GroupCommit<Int, String>()
        let recorder = Recorder()
        recorder.failing.withLock { $0 = [0] }
        // The first caller leads alone (nothing waits yet) and fails.
        await #expect(throws: CancellationError.self) { try await group.submit([0]) { try await recorder.commit($0) } }
        let answer: [String] = try await group.submit([1, 2]) { try await recorder.commit($0) }
        #expect(answer == ["saved 1", "saved 2"])
    }

    @Test(
        "A leader whose task is cancelled mid-commit fails alone: the callers in its group are committed by the next leader", .timeLimit(.minutes(1)))
    func cancelledLeader() async throws {
        let group = GroupCommit<Int, String>()
        let attempts = Mutex<[[Int]]>([])
        let release = AsyncStream<Void>.makeStream()
        let slowCommit: @Sendable ([Int]) async throws -> [String] = { items in
            attempts.withLock { $0.append(items) }
            for await _ in release.stream { break }  // ends at once when the task is cancelled
            try Task.checkCancellation()  // a transaction in a cancelled task fails, writing nothing
            return items.map { "saved \($0)" }
        }
        func waitForAttempts(_ count: Int) async {
            await Self.waitUntil { attempts.withLock({ $0.count }) >= count }
        }
        let first = Task { try await group.submit([0], commit: slowCommit) }
        await waitForAttempts(1)
        let leader = Task { try await group.submit([1], commit: slowCommit) }
        await Self.waitUntil { group.waitingCallers == 1 }
        let follower = Task { try await group.submit([2], commit: slowCommit) }
        await Self.waitUntil { group.waitingCallers == 2 }  // both wait behind the first commit
        release.continuation.yield()
        let firstAnswer: [String] = try await first.value
        #expect(firstAnswer == ["saved 0"])
        await waitForAttempts(2)  // the second caller leads a group of two
        leader.cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        release.continuation.yield()
        let followerAnswer: [String] = try await follower.value
        #expect(followerAnswer == ["saved 2"])
        let tried: [[Int]] = attempts.withLock { $0 }
        #expect(tried == [[0], [1, 2], [2]])
        release.continuation.finish()
    }

    @Test(
        "Concurrent saves into a real store: every save answered, one order's versions decided in arrival order",
        arguments: StoreKind.webServiceCases)
    func concurrentSaves(kind: StoreKind) async throws {
        try await kind.withWebServiceStore { store in
            let intake = store.intake()
            let distinct = try (0..<48).map {
                try SampleVersions.archive(updatedAt: "2025-11-21T00:00:00Z", orderIdentifier: "group-\($0)")
            }
            let versions = try (1...16).map {
                try SampleVersions.archive(updatedAt: String(format: "2025-11-21T00:00:%02dZ", $0), orderIdentifier: "one")
            }
            let results = try await withThrowingTaskGroup(of: (String, SaveOrderResult).self) { tasks in
                for (index, bytes) in distinct.enumerated() {
                    tasks.addTask { ("group-\(index)", try await intake.save(signedArchive: bytes)) }
                }
                for bytes in versions {
                    tasks.addTask { ("one", try await intake.save(signedArchive: bytes)) }
                }
                var results: [(String, SaveOrderResult)] = []
                for try await result in tasks { results.append(result) }
                return results
            }
            let distinctAnswers: [SaveOrderResult] = results.filter { $0.0 != "one" }.map(\.1)
            let versionAnswers: [SaveOrderResult] = results.filter { $0.0 == "one" }.map(\.1)
            #expect(distinctAnswers == Array(repeating: .added, count: 48))
            #expect(versionAnswers.contains(.added))
            let unexpected: [SaveOrderResult] = versionAnswers.filter { $0 != .added && $0 != .newerExisting }
            #expect(unexpected.isEmpty)
            for index in 0..<48 {
                #expect(try await store.archive(for: SampleVersions.identifier("group-\(index)")) == distinct[index])
            }
            // Whatever the arrival order, the newest version is the one kept.
            #expect(try await store.archive(for: SampleVersions.identifier("one")) == versions.last)
        }
    }
}
