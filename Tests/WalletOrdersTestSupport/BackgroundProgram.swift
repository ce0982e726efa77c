public import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// A long-running external program, such as `wallet-orders serve`, started for one test and
/// stopped at the end. stdin is `/dev/null`; stdout and stderr are read as they come (stdout is
/// kept in a file too), so a test awaits the line it waits for (an event, not a poll) and can
/// show everything the program printed. Nothing blocks a thread: Subprocess awaits the program.
///
/// ```swift
/// let server = try await BackgroundProgram(binary, ["serve", "--listen", "127.0.0.1:0"])
/// defer { server.kill() }
/// let line = try await server.waitForStandardError(containing: "listening on ", timeout: 30)
/// ```
///
/// A program still running when the value goes away is killed (SIGKILL to its process group).
public final class BackgroundProgram: Sendable {
    /// The program's name and its arguments, for messages.
    public let command: [String]
    /// Where stdout goes.
    public let standardOutputURL: URL
    private let scratch: TemporaryFolder
    private let state = ProgramState()
    private let running: Task<Int32, any Error>

    fileprivate struct State: ~Copyable {
        var processIdentifier: Int32?
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var status: Int32?
        var failure: String?
        var waiters: [UUID: Waiter] = [:]
        var launchWaiters: [CheckedContinuation<Void, any Error>] = []
        var exitWaiters: [UUID: CheckedContinuation<Int32, any Error>] = [:]

        var printed: Printed {
            Printed(output: String(decoding: standardOutput, as: UTF8.self), errorOutput: String(decoding: standardError, as: UTF8.self))
        }
    }

    /// A test waiting for something the program prints.
    fileprivate struct Waiter {
        var check: @Sendable (Printed) -> String?
        var continuation: CheckedContinuation<String, any Error>
    }

    /// What the program has printed so far.
    public struct Printed: Sendable {
        public var output: String
        public var errorOutput: String

        /// The lines of `text`.
        public static func lines(_ text: String) -> [String] { text.split(whereSeparator: \.isNewline).map(String.init) }
    }

    /// Starts `executable arguments…` and returns once it runs.
    /// - Parameters:
    ///   - environment: the whole environment of the child; `nil` inherits this process's.
    ///   - directory: the child's working directory; `nil` keeps this process's.
    ///   - standardOutput: the file stdout goes to (made empty); by default one in a scratch folder.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        standardOutput: URL? = nil
    ) async throws {
        command = [executable.lastPathComponent] + arguments
        scratch = try TemporaryFolder("background")
        let outURL = standardOutput ?? scratch.file("stdout")
        standardOutputURL = outURL
        let out: FileHandle
        do {
            try Data().write(to: outURL)
            out = try FileHandle(forWritingTo: outURL)
        } catch {
            scratch.remove()
            throw error
        }
        let configuration = ChildConfiguration(
            executable: .path(FilePath(executable.path)), arguments: arguments, environment: environment, directory: directory,
            teardown: [])
        let state = state
        let command = command
        running = Task {
            do {
                let result = try await Subprocess.run(
                    configuration.executable, arguments: configuration.arguments, environment: configuration.environment,
                    workingDirectory: configuration.workingDirectory, platformOptions: configuration.platformOptions,
                    input: .none, output: .sequence, error: .sequence
                ) { execution in
                    BackgroundProgram.launched(execution.processIdentifier.value, state: state)
                    // Both streams are read as they come, so a pipe never fills and a waiter hears
                    // of each line at once; stdout is also kept in its file.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await chunk in execution.standardOutput {
                                let bytes = chunk.withUnsafeBytes { Array($0) }
                                try? out.write(contentsOf: bytes)
                                BackgroundProgram.received(bytes, error: false, state: state)
                            }
                        }
                        group.addTask {
                            for try await chunk in execution.standardError {
                                BackgroundProgram.received(chunk.withUnsafeBytes { Array($0) }, error: true, state: state)
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                try? out.close()
                BackgroundProgram.ended(status: result.terminationStatus.code, failure: nil, state: state)
                return result.terminationStatus.code
            } catch {
                BackgroundProgram.ended(status: nil, failure: "'\(command.joined(separator: " "))' could not run: \(error)", state: state)
                throw error
            }
        }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.mutex.withLock { state in
                    if state.processIdentifier != nil {
                        continuation.resume()
                    } else if let failure = state.failure {
                        continuation.resume(throwing: BackgroundProgramError(description: failure))
                    } else {
                        state.launchWaiters.append(continuation)
                    }
                }
            }
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// Starts `tool arguments…`, found on `PATH`.
    public convenience init(
        tool: String, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        standardOutput: URL? = nil
    ) async throws {
        guard let path = ProgramLocation.find(tool) else {
            throw BackgroundProgramError(description: "'\(tool)' is not on PATH")
        }
        try await self.init(path, arguments, environment: environment, in: directory, standardOutput: standardOutput)
    }

    /// `/bin/sh -c script`.
    public convenience init(shell script: String, environment: [String: String]? = nil, standardOutput: URL? = nil) async throws {
        try await self.init(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment, standardOutput: standardOutput)
    }

    private static func launched(_ pid: Int32, state: ProgramState) {
        let waiters = state.mutex.withLock { state in
            state.processIdentifier = pid
            defer { state.launchWaiters = [] }
            return state.launchWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func received(_ bytes: [UInt8], error: Bool, state: ProgramState) {
        let found = state.mutex.withLock { state -> [(CheckedContinuation<String, any Error>, String)] in
            if error { state.standardError += bytes } else { state.standardOutput += bytes }
            guard !state.waiters.isEmpty else { return [] }
            let printed = state.printed
            var found: [(CheckedContinuation<String, any Error>, String)] = []
            for (key, waiter) in state.waiters {
                if let answer = waiter.check(printed) {
                    found.append((waiter.continuation, answer))
                    state.waiters[key] = nil
                }
            }
            return found
        }
        for (continuation, answer) in found { continuation.resume(returning: answer) }
    }

    private static func ended(status: Int32?, failure: String?, state: ProgramState) {
        let (launch, waiters, exits, printed) = state.mutex.withLock { state in
            state.status = status
            state.failure = failure
            defer {
                state.launchWaiters = []
                state.waiters = [:]
                state.exitWaiters = [:]
            }
            return (state.launchWaiters, state.waiters, state.exitWaiters, state.printed)
        }
        let reason = failure ?? "ended (status \(status ?? -1))"
        for waiter in launch { waiter.resume(throwing: BackgroundProgramError(description: reason)) }
        for (_, waiter) in waiters {
            if let answer = waiter.check(printed) {
                waiter.continuation.resume(returning: answer)
            } else {
                waiter.continuation.resume(
                    throwing: BackgroundProgramError(
                        description: "\(reason) before printing what was waited for\n--- stdout\n\(printed.output)--- stderr\n\(printed.errorOutput)")
                )
            }
        }
        for (_, waiter) in exits {
            if let status {
                waiter.resume(returning: status)
            } else {
                waiter.resume(throwing: BackgroundProgramError(description: reason))
            }
        }
    }

    /// Everything the program wrote to stdout so far.
    public var output: String { state.mutex.withLock { String(decoding: $0.standardOutput, as: UTF8.self) } }
    /// Everything the program wrote to stderr so far.
    public var errorOutput: String { state.mutex.withLock { String(decoding: $0.standardError, as: UTF8.self) } }

    /// Whether the program still runs.
    public var isRunning: Bool { state.mutex.withLock { $0.status == nil && $0.failure == nil } }

    /// The process's identifier.
    public var processIdentifier: Int32 { state.mutex.withLock { $0.processIdentifier ?? 0 } }

    /// The first line of stderr that contains `text`, as soon as the program prints it (up to
    /// `timeout` seconds). Throws when the program ends first or the time is up.
    public func waitForStandardError(containing text: String, timeout: TimeInterval) async throws -> String {
        try await waitUntil("a line of stderr with '\(text)'", timeout: timeout) { printed in
            Printed.lines(printed.errorOutput).first { $0.contains(text) }
        }
    }

    /// The first line of stdout that contains `text`, as soon as the program prints it.
    public func waitForStandardOutput(containing text: String, timeout: TimeInterval) async throws -> String {
        try await waitUntil("a line of stdout with '\(text)'", timeout: timeout) { printed in
            Printed.lines(printed.output).first { $0.contains(text) }
        }
    }

    /// What `check` finds in what the program has printed, as soon as it finds something: `check`
    /// runs now and again on every chunk the program prints (an event, not a poll). Throws when
    /// the program ends without `check` finding anything, or `timeout` seconds pass.
    /// - Parameter what: what is waited for, for the message.
    public func waitUntil(
        _ what: String, timeout: TimeInterval, _ check: @escaping @Sendable (Printed) -> String?
    ) async throws -> String {
        let key = UUID()
        let command = command.joined(separator: " ")
        let timedOut: @Sendable () -> BackgroundProgramError = {
            BackgroundProgramError(description: "'\(command)' did not print \(what) in \(timeout) seconds:\n\(self)")
        }
        let answer = try await firstOf(seconds: timeout) {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<String, any Error>? = self.state.mutex.withLock { state in
                    if let answer = check(state.printed) { return .success(answer) }
                    if state.status != nil || state.failure != nil {
                        let printed = state.printed
                        return .failure(
                            BackgroundProgramError(
                                description:
                                    "'\(command)' ended before printing \(what)\n--- stdout\n\(printed.output)--- stderr\n\(printed.errorOutput)"))
                    }
                    state.waiters[key] = Waiter(check: check, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onTimeout: {
            let failure = timedOut()
            self.state.mutex.withLock { $0.waiters.removeValue(forKey: key) }?.continuation.resume(throwing: failure)
        }
        guard let answer else { throw timedOut() }
        return answer
    }

    /// Waits for the program to end by itself, up to `timeout` seconds; then kills it and throws.
    /// Returns its exit status (or the signal that ended it).
    @discardableResult
    public func wait(timeout: TimeInterval = ExternalProgram.defaultTimeout) async throws -> Int32 {
        let key = UUID()
        let status = try await firstOf(seconds: timeout) {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<Int32, any Error>? = self.state.mutex.withLock { state in
                    if let status = state.status { return .success(status) }
                    if let failure = state.failure { return .failure(BackgroundProgramError(description: failure)) }
                    state.exitWaiters[key] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onTimeout: {
            self.state.mutex.withLock { $0.exitWaiters.removeValue(forKey: key) }?.resume(throwing: CancellationError())
        }
        if let status { return status }
        kill()
        _ = try? await running.value
        throw ProgramTimedOut(command: command, timeout: timeout)
    }

    /// Sends `signal` to the program (not to its children).
    public func send(_ signal: Int32) {
        let pid = processIdentifier
        if pid > 0, isRunning { _ = Foundation.kill(pid, signal) }
    }

    /// Stops the program: SIGTERM, then SIGKILL to its process group if it hasn't ended `grace`
    /// seconds later. Returns its exit status (or the signal that ended it). Safe to call more
    /// than once; later calls return the same status.
    @discardableResult
    public func stop(grace: TimeInterval = 10) async -> Int32 {
        send(SIGTERM)
        if let status = try? await wait(timeout: grace) { return status }
        return (try? await running.value) ?? -1
    }

    /// SIGKILL to the program's process group, at once; ``wait(timeout:)`` then gives the status.
    /// In a `defer`, this also keeps the program running to the end of the scope.
    public func kill() {
        let pid = processIdentifier
        if pid > 0, isRunning {
            _ = Foundation.kill(-pid, SIGKILL)
            _ = Foundation.kill(pid, SIGKILL)
        }
    }

    deinit {
        kill()
        running.cancel()
        scratch.remove()
    }
}

extension BackgroundProgram: CustomStringConvertible {
    public var description: String {
        "\(command.joined(separator: " "))\n--- stdout\n\(output)--- stderr\n\(errorOutput)"
    }
}

/// What a ``BackgroundProgram`` knows of its program, shared with the task that runs it.
private final class ProgramState: Sendable {
    let mutex = Mutex(BackgroundProgram.State())
}

/// A background program did not start or print as expected.
public struct BackgroundProgramError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

/// Finds a program on `PATH`, as a shell would.
enum ProgramLocation {
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
