import Foundation
import Testing
import WalletOrdersTestSupport

/// The harness every end-to-end test stands on: a program in the background is awaited, its
/// output waited for as an event, and a time limit ends the wait and the program.
@Suite("BackgroundProgram: waits for what a program prints, and its limits end the wait")
struct BackgroundProgramTests {
    @Test("A line printed later is returned as soon as it is printed; the program is still running")
    func waitsForALine() async throws {
        let program = try await BackgroundProgram(shell: "echo starting >&2; sleep 0.2; echo ready; exec sleep 600")
        defer { program.kill() }
        #expect(try await program.waitForStandardOutput(containing: "ready", timeout: 120) == "ready")
        #expect(try await program.waitForStandardError(containing: "start", timeout: 120) == "starting")
        #expect(program.isRunning)
    }

    @Test("wait(timeout:) on a program that never ends kills it and throws; the status is SIGKILL's")
    func waitTimesOut() async throws {
        let program = try await BackgroundProgram(shell: "exec sleep 600")
        await #expect(throws: ProgramTimedOut.self) { try await program.wait(timeout: 0.5) }
        #expect(!program.isRunning)
        #expect(await program.stop() == SIGKILL)
    }

    @Test("A wait for a line that never comes ends at its limit with what was printed; one for a program that ended, at once")
    func lineNeverComes() async throws {
        let program = try await BackgroundProgram(shell: "echo nothing useful; exec sleep 600")
        defer { program.kill() }
        let error = await #expect(throws: BackgroundProgramError.self) {
            try await program.waitForStandardOutput(containing: "ready", timeout: 0.5)
        }
        #expect(error?.description.contains("nothing useful") == true, "\(String(describing: error))")

        let ended = try await BackgroundProgram(shell: "echo bye; exit 3")
        #expect(try await ended.wait() == 3)
        await #expect(throws: BackgroundProgramError.self) { try await ended.waitForStandardOutput(containing: "ready", timeout: 600) }
    }

    @Test("ExternalProgram's time limit kills the program's whole process group, a grandchild too")
    func externalProgramLimit() async throws {
        let folder = try TemporaryFolder("limit")
        defer { folder.remove() }
        let marker = folder.file("grandchild.pid")
        await #expect(throws: ProgramTimedOut.self) {
            try await ExternalProgram.run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep 600 & echo $! > '\(marker.path)'; wait"], timeout: 1)
        }
        let text = try String(contentsOf: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let grandchild = try #require(pid_t(text))
        // The group's SIGKILL has been sent when run returns; the grandchild is then gone or a
        // zombie waiting to be reaped (state Z), however long the kernel takes to tear it down.
        let process = "/proc/\(grandchild)"
        let gone = try await BackgroundProgram(
            shell: "while [ -e \(process) ] && [ \"$(awk '{print $3}' \(process)/stat 2>/dev/null)\" != Z ]; do sleep 0.05; done")
        #expect(try await gone.wait(timeout: 120) == 0)
    }
}
