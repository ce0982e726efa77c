import Synchronization

/// Group commit: writes that arrive while a transaction is being committed wait for it, then go
/// together in the next one, so that many saves share one transaction and one flush to disk and
/// each is still durable when its caller hears the answer.
///
/// There is no background task. The first caller to find no commit running leads: it writes its
/// own items and those of everyone waiting (up to ``maximumItems``, always at least one caller's
/// whole list) in one call of `commit`, hands each waiter its part of the answer, then passes the
/// lead to the first caller still waiting. One writer at a time, in arrival order.
///
/// The commit runs in the leader's task (and on its executor). When a leader whose task was
/// cancelled (its client went away) gets a failed commit, only it gets the failure: the other
/// callers of its group go first in the next group, under a leader of their own. Otherwise, if
/// `commit` throws, every caller of that group gets the error: none of its writes was committed.
package final class GroupCommit<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Writes `items` in one transaction and returns one outcome per item, in order.
    package typealias Commit = @Sendable (_ items: [Item]) async throws -> [Outcome]

    /// The most items one transaction takes from waiting callers (default 512).
    package let maximumItems: Int
    private let state = Mutex(State())

    private struct Waiter {
        let items: [Item]
        let continuation: CheckedContinuation<Turn, Never>
    }

    private enum Turn {
        /// The group this caller was part of was committed (or failed).
        case done(Result<[Outcome], any Error>)
        /// Write the next group.
        case lead
    }

    private struct State {
        var waiting: [Waiter] = []
        var committing = false
    }

    /// How many callers wait behind the commit running now (for tests, which wait for callers to
    /// queue instead of sleeping).
    package var waitingCallers: Int { state.withLock { $0.waiting.count } }

    /// A group commit taking up to `maximumItems` items a transaction.
    package init(maximumItems: Int = 512) {
        self.maximumItems = max(1, maximumItems)
    }

    /// Writes `items` with whatever else is waiting and returns their outcomes, in order. Whoever
    /// leads a group writes it with its own `commit`: every caller passes the same.
    package func submit(_ items: [Item], commit: @escaping Commit) async throws -> [Outcome] {
        guard !items.isEmpty else { return [] }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state -> Bool in
                if state.committing {
                    state.waiting.append(Waiter(items: items, continuation: continuation))
                    return false
                }
                state.committing = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead:
            return try await lead(items, commit).get()
        }
    }

    /// Commits `own` with the callers waiting now, answers them, and passes the lead on.
    private func lead(_ own: [Item], _ commit: @escaping Commit) async -> Result<[Outcome], any Error> {
        let followers = state.withLock { state -> [Waiter] in
            var count = own.count
            var taken = 0
            while taken < state.waiting.count, count + state.waiting[taken].items.count <= maximumItems {
                count += state.waiting[taken].items.count
                taken += 1
            }
            defer { state.waiting.removeFirst(taken) }
            return Array(state.waiting.prefix(taken))
        }
        var items = own
        for follower in followers { items += follower.items }
        let result: Result<[Outcome], any Error>
        do {
            let outcomes = try await commit(items)
            guard outcomes.count == items.count else {
                preconditionFailure("GroupCommit: \(outcomes.count) outcomes for \(items.count) items")
            }
            result = .success(outcomes)
        } catch {
            result = .failure(error)
        }
        if case .failure = result, Task.isCancelled, !followers.isEmpty {
            // This caller went away (its task was cancelled) and the transaction failed with it:
            // nothing of the group was written. The others didn't go away: they go first in the
            // next group, led by the first of them, and this caller alone gets the failure.
            state.withLock { $0.waiting.insert(contentsOf: followers, at: 0) }
            passLead()
            return result
        }
        var start = own.count
        for follower in followers {
            let end = start + follower.items.count
            follower.continuation.resume(returning: .done(result.map { Array($0[start..<end]) }))
            start = end
        }
        passLead()
        return result.map { Array($0[0..<own.count]) }
    }

    /// Hands the lead to the first caller waiting (it commits its own items with whoever waits
    /// behind it then), or ends the commit run when none waits.
    private func passLead() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.committing = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
    }
}
