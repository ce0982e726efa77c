public import Foundation

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

/// Runs external programs (the `wallet-orders` tool, `openssl`, `python3`, …) with `Process`.
/// stdin is `/dev/null`; stdout and stderr go to files (no pipe deadlocks) and are read back.
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
    ) throws -> ProgramResult {
        try launch(
            executable, arguments, command: [executable.lastPathComponent] + arguments, environment: environment,
            directory: directory, timeout: timeout)
    }

    /// Runs `tool arguments…`, finding `tool` on `PATH` through `/usr/bin/env`.
    public static func run(
        tool: String, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        timeout: TimeInterval = defaultTimeout
    ) throws -> ProgramResult {
        try launch(
            URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments, command: [tool] + arguments,
            environment: environment, directory: directory, timeout: timeout)
    }

    /// Runs `python3 -c script arguments…`.
    public static func python(
        _ script: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        timeout: TimeInterval = defaultTimeout
    ) throws -> ProgramResult {
        try run(tool: "python3", ["-c", script] + arguments, environment: environment, timeout: timeout)
    }

    private static func launch(
        _ executable: URL, _ arguments: [String], command: [String], environment: [String: String]?,
        directory: URL?, timeout: TimeInterval
    ) throws -> ProgramResult {
        let scratch = try TemporaryFolder("output")
        defer { scratch.remove() }
        let outURL = try scratch.write([], to: "stdout")
        let errURL = try scratch.write([], to: "stderr")
        let out = try FileHandle(forWritingTo: outURL)
        defer { try? out.close() }
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? err.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            // SIGKILL, not SIGTERM: a test's child may ignore SIGTERM (or inherit it ignored). The
            // child leads its own process group on Linux, so the group goes too: a grandchild holding
            // on would otherwise keep `Process` from noticing the end.
            let child = process.processIdentifier
            kill(-child, SIGKILL)
            kill(child, SIGKILL)
            _ = finished.wait(timeout: .now() + 10)
            throw ProgramTimedOut(command: command, timeout: timeout)
        }
        process.waitUntilExit()
        return ProgramResult(
            command: command, status: process.terminationStatus, standardOutput: try Data(contentsOf: outURL),
            standardError: try Data(contentsOf: errURL))
    }
}
