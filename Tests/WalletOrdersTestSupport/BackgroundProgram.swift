public import Foundation

/// A long-running external program, such as `wallet-orders serve`, started for one test and
/// stopped with SIGTERM at the end. stdin is `/dev/null`; stdout and stderr go to files in a
/// scratch folder, so a test can wait for a line the program prints and show everything it printed.
///
/// ```swift
/// let server = try BackgroundProgram(binary, ["serve", "--listen", "127.0.0.1:0"])
/// defer { server.stop() }
/// let line = try server.waitForStandardError(containing: "listening on ", timeout: 30)
/// ```
public final class BackgroundProgram: @unchecked Sendable {
    /// The program's name and its arguments, for messages.
    public let command: [String]
    private let process = Process()
    private let scratch: TemporaryFolder
    private let outURL: URL
    private let errURL: URL
    private let exited = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopped = false

    /// Starts `executable arguments…`.
    /// - Parameter environment: the whole environment of the child; `nil` inherits this process's.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        command = [executable.lastPathComponent] + arguments
        scratch = try TemporaryFolder("background")
        outURL = try scratch.write([], to: "stdout")
        errURL = try scratch.write([], to: "stderr")
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// Everything the program wrote to stdout so far.
    public var output: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    /// Everything the program wrote to stderr so far.
    public var errorOutput: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// Whether the program still runs.
    public var isRunning: Bool { process.isRunning }

    /// The first line of stderr that contains `text`, waiting up to `timeout` seconds for it.
    /// Throws when the program ends first or the time is up.
    public func waitForStandardError(containing text: String, timeout: TimeInterval) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = errorOutput.split(whereSeparator: \.isNewline).first(where: { $0.contains(text) }) {
                return String(line)
            }
            guard process.isRunning else {
                throw BackgroundProgramError(description: "'\(command.joined(separator: " "))' ended before printing '\(text)':\n\(self)")
            }
            guard Date() < deadline else {
                throw BackgroundProgramError(
                    description: "'\(command.joined(separator: " "))' did not print '\(text)' in \(timeout) seconds:\n\(self)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Stops the program: SIGTERM, then SIGKILL after `grace` seconds. Returns its exit status
    /// (or the signal that ended it). Safe to call more than once; later calls return at once.
    @discardableResult
    public func stop(grace: TimeInterval = 10) -> Int32 {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        if first {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                if exited.wait(timeout: .now() + grace) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    _ = exited.wait(timeout: .now() + 10)
                }
            }
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    deinit {
        stop()
        scratch.remove()
    }
}

extension BackgroundProgram: CustomStringConvertible {
    public var description: String {
        "\(command.joined(separator: " "))\n--- stdout\n\(output)--- stderr\n\(errorOutput)"
    }
}

/// A background program did not start as expected.
public struct BackgroundProgramError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}
