import Foundation
import Testing
import WalletOrdersServer
import WalletOrdersTestSupport

@Suite("As many event loops as CPUs the process may run on")
struct EventLoopCountTests {
    @Test(
        "The CPUs a process may run on, from /proc/self/status's Cpus_allowed_list",
        arguments: [
            ("Name:\tserve\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", 2), ("Cpus_allowed_list:\t0\n", 1),
            ("Cpus_allowed_list:\t0-3,8,10-11\n", 7), ("Cpus_allowed_list:\t3-1\n", nil), ("Cpus_allowed_list:\tx\n", nil),
            ("Cpus_allowed_list:\t\n", nil), ("Name:\tserve\n", nil),
        ] as [(String, Int?)])
    func allowedCPUs(status: String, count: Int?) {
        #expect(OrderServer.TaskThreads.allowedCPUs(status: status) == count)
    }

    @Test("Against the kernel's own file: this process may run on at least one CPU, one pinned with taskset to CPU 0 on exactly one")
    func kernelStatus() async throws {
        let own = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        #expect((OrderServer.TaskThreads.allowedCPUs(status: own) ?? 0) >= 1)
        let pinned = try await ExternalProgram.run(URL(fileURLWithPath: "/usr/bin/taskset"), ["-c", "0", "cat", "/proc/self/status"])
        #expect(pinned.status == 0)
        #expect(OrderServer.TaskThreads.allowedCPUs(status: pinned.output) == 1, "\(pinned.output)")
    }
}
