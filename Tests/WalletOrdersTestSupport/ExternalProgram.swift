public import Foundation
import Subprocess
import SystemPackage

/// What one run of an external program printed and how it ended.
public struct ProgramResult: Sendable, CustomStringConvertible {
    /// The program's name and its arguments, for messages.
    public var command: [String]
    /// The exit status (or the signal number, if a signal ended it).
    public var status: Int32
    public var standardOutput: Data
    public var standardError: Data

    public init(command: [String], status: Int32, standardOutput: Data, standardError: Data) {
        self.command = command
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// stdout as UTF-8 text.
    public var output: String { String(decoding: standardOutput, as: UTF8.self) }
    /// stderr as UTF-8 text.
    public var errorOutput: String { String(decoding: standardError, as: UTF8.self) }

    public var description: String {
        "\(command.joined(separator: " ")) → exit \(status)\n--- stdout\n\(output)--- stderr\n\(errorOutput)"
    }
}

/// An external program did not finish within its timeout and was killed.
public struct ProgramTimedOut: Error, CustomStringConvertible {
    public var command: [String]
    public var timeout: TimeInterval

    public var description: String {
        "'\(command.joined(separator: " "))' did not finish in \(timeout) seconds and was killed"
    }
}

/// How much slower than a plain debug build the code under test runs: `WALLET_ORDERS_TIME_SCALE`
/// (a number, default 1). `make test-tsan` sets it, since ThreadSanitizer makes the tool start and
/// run about 10 times slower. Tests that time things (kill windows, timeouts) stretch them by it.
public enum TestTiming {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["WALLET_ORDERS_TIME_SCALE"], let value = Double(text), value >= 1
        else { return 1 }
        return value
    }()

    /// The CPU time the calling thread has used so far. For bounds on synchronous work (a page
    /// rendered, an order validated): while every suite runs at once on two cores a wall-clock
    /// bound measures the other suites too, and a page that takes 0.8 s alone has taken 3.6 s;
    /// the thread's own CPU time still grows with the work, so quadratic work still fails it.
    public static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}

/// Runs external programs (the `wallet-orders` tool, `openssl`, `python3`, …) with Subprocess,
/// awaiting their end without holding a thread. stdin is `/dev/null`; stdout and stderr go to
/// files (no pipe to fill, however much a program prints) and are read back.
public enum ExternalProgram {
    /// How long a program may run unless the caller says otherwise (stretched by ``TestTiming/scale``).
    public static let defaultTimeout: TimeInterval = 60 * TestTiming.scale

    /// Runs `executable arguments…`.
    /// - Parameters:
    ///   - environment: the whole environment of the child; `nil` inherits this process's.
    ///   - directory: the child's working directory; `nil` keeps this process's.
    ///   - timeout: after this many seconds the child (and its process group) is killed and
    ///     ``ProgramTimedOut`` is thrown.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        timeout: TimeInterval = defaultTimeout
    ) async throws -> ProgramResult {
        try await launch(
            .path(FilePath(executable.path)), arguments, command: [executable.lastPathComponent] + arguments,
            environment: environment, directory: directory, timeout: timeout)
    }

    /// Runs `tool arguments…`, finding `tool` on `PATH`.
    public static func run(
        tool: String, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        timeout: TimeInterval = defaultTimeout
    ) async throws -> ProgramResult {
        try await launch(
            .name(tool), arguments, command: [tool] + arguments, environment: environment, directory: directory,
            timeout: timeout)
    }

    /// Runs `python3 -c script arguments…`.
    public static func python(
        _ script: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        timeout: TimeInterval = defaultTimeout
    ) async throws -> ProgramResult {
        try await run(tool: "python3", ["-c", script] + arguments, environment: environment, timeout: timeout)
    }

    private static func launch(
        _ executable: Executable, _ arguments: [String], command: [String], environment: [String: String]?,
        directory: URL?, timeout: TimeInterval
    ) async throws -> ProgramResult {
        let scratch = try TemporaryFolder("output")
        defer { scratch.remove() }
        let outURL = try scratch.write([], to: "stdout")
        let errURL = try scratch.write([], to: "stderr")
        let out = try FileDescriptor.open(FilePath(outURL.path), .writeOnly)
        let err = try FileDescriptor.open(FilePath(errURL.path), .writeOnly)
        let configuration = ChildConfiguration(
            executable: executable, arguments: arguments, environment: environment, directory: directory,
            teardown: [])
        // When the time limit comes first the run is cancelled, and Subprocess's teardown kills the
        // child's process group (see ``ChildConfiguration``) before the run returns.
        let status = try await firstOf(seconds: timeout) {
            try await Subprocess.run(
                configuration.executable, arguments: configuration.arguments, environment: configuration.environment,
                workingDirectory: configuration.workingDirectory, platformOptions: configuration.platformOptions,
                input: .none, output: .fileDescriptor(out, closeAfterSpawningProcess: true),
                error: .fileDescriptor(err, closeAfterSpawningProcess: true)
            ).terminationStatus
        }
        guard let status else { throw ProgramTimedOut(command: command, timeout: timeout) }
        return ProgramResult(
            command: command, status: status.code, standardOutput: try Data(contentsOf: outURL),
            standardError: try Data(contentsOf: errURL))
    }
}

/// How every child of the tests is started: in a process group of its own, so that a teardown
/// (the run's task cancelled, a time limit passed) reaches its children too; a grandchild that
/// held on to a pipe would otherwise outlive the test. The teardown's last step is always SIGKILL
/// to the group: a test's child may ignore SIGTERM (or inherit it ignored).
struct ChildConfiguration: Sendable {
    var executable: Executable
    var arguments: Arguments
    var environment: Environment
    var workingDirectory: FilePath?
    var platformOptions: PlatformOptions

    /// - Parameter teardown: the steps before the group's SIGKILL, such as a SIGTERM and its grace.
    init(executable: Executable, arguments: [String], environment: [String: String]?, directory: URL?, teardown: [TeardownStep]) {
        self.executable = executable
        self.arguments = Arguments(arguments)
        if let environment {
            self.environment = .custom(Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) }))
        } else {
            self.environment = .inherit
        }
        workingDirectory = directory.map { FilePath($0.path) }
        var options = PlatformOptions()
        options.processGroupID = 0
        options.teardownSequence = teardown + [.send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .seconds(10))]
        platformOptions = options
    }
}

/// What `work` returns, or `nil` when `seconds` pass first. Then `onTimeout` runs (to end a wait
/// that `work` can't see cancelled, such as a continuation), `work`'s task is cancelled, and both
/// have ended when this returns.
func firstOf<T: Sendable>(
    seconds: TimeInterval, _ work: @escaping @Sendable () async throws -> T, onTimeout: @Sendable () -> Void = {}
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next() ?? nil
        if first == nil { onTimeout() }
        group.cancelAll()
        return first
    }
}

extension TerminationStatus {
    /// The exit status, or the number of the signal that ended the process.
    var code: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }
}

/// A value made once per test process by async work (running a program, say) and then only read:
/// the first test that asks starts the work, and every test awaits the same result.
public final class SharedFixture<Value: Sendable>: Sendable {
    private let making: Task<Value, any Error>

    public init(_ make: @escaping @Sendable () async throws -> Value) {
        making = Task(operation: make)
    }

    /// The value, or the error the work ended with.
    public func get() async throws -> Value { try await making.value }
}

extension Sequence {
    /// `map` for a transform that awaits, one element after the other.
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }

    /// `compactMap` for a transform that awaits, one element after the other.
    public func asyncCompactMap<T>(_ transform: (Element) async throws -> T?) async rethrows -> [T] {
        var results: [T] = []
        for element in self { if let result = try await transform(element) { results.append(result) } }
        return results
    }

    /// `flatMap` for a transform that awaits, one element after the other.
    public func asyncFlatMap<S: Sequence>(_ transform: (Element) async throws -> S) async rethrows -> [S.Element] {
        var results: [S.Element] = []
        for element in self { results += try await transform(element) }
        return results
    }
}
